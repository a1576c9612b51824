"""An independent scaled-dot-product-attention reference in plain python3.

Written from the tg.sdpa description (TGOps.td) and the dropout mapping in
docs/reference.md, sharing no code with the C++ interpreter. Reads the
inputs and outputs tg-run saved, recomputes the output (and stats), and
prints the largest differences for FileCheck.

usage: sdpa_reference.py IN_DIR OUT_DIR key=value...
  options: scale, softcap, causal (top_left|bottom_right), window_left,
  window_right, alibi (1), bias (1), padding (1), dropout, stats (1)
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import npy  # noqa: E402

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK,
                          (p0 >> 32) ^ c3 ^ k1, p0 & MASK)
    return c0, c1, c2, c3


def keep(seed, offset, index, p):
    seed &= (1 << 64) - 1
    offset &= (1 << 64) - 1
    block = index // 4
    words = philox((block & MASK, block >> 32, offset & MASK, offset >> 32),
                   (seed & MASK, seed >> 32))
    return words[index % 4] >= int(math.floor(p * 2.0 ** 32))


def f32(x):
    import struct
    if math.isinf(x) or math.isnan(x):
        return x
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    in_dir, out_dir = sys.argv[1], sys.argv[2]
    opt = dict(a.split("=", 1) for a in sys.argv[3:])
    (B, Hq, Sq, D), q = npy.load(os.path.join(in_dir, "q.npy"))
    (_, Hkv, Skv, _), k = npy.load(os.path.join(in_dir, "k.npy"))
    (_, _, _, Dv), v = npy.load(os.path.join(in_dir, "v.npy"))
    _, o = npy.load(os.path.join(out_dir, "o.npy"))
    scale = float(opt.get("scale", 1.0 / math.sqrt(D)))
    softcap = float(opt["softcap"]) if "softcap" in opt else None
    causal = opt.get("causal")
    wl = int(opt["window_left"]) if "window_left" in opt else None
    wr = int(opt["window_right"]) if "window_right" in opt else None
    p = float(opt.get("dropout", 0.0))
    bias = None
    if opt.get("bias"):
        bshape, bias = npy.load(os.path.join(in_dir, "bias.npy"))
    lq = lkv = None
    if opt.get("padding"):
        _, lq = npy.load(os.path.join(in_dir, "seq_len_q.npy"))
        _, lkv = npy.load(os.path.join(in_dir, "seq_len_kv.npy"))
    if p > 0:
        _, (seed,) = npy.load(os.path.join(in_dir, "seed.npy"))
        _, (offset,) = npy.load(os.path.join(in_dir, "offset.npy"))
    group = Hq // Hkv
    worst_o = worst_lse = 0.0
    masked_rows = dropped = total = 0
    lse_out = None
    if opt.get("stats"):
        _, lse_out = npy.load(os.path.join(out_dir, "lse.npy"))
    for b in range(B):
        Lq = lq[b] if lq else Sq
        Lkv = lkv[b] if lkv else Skv
        for h in range(Hq):
            hk = h // group
            for i in range(Sq):
                diag = i + (Lkv - Lq if causal == "bottom_right" else 0)
                s = []
                for j in range(Skv):
                    dot = sum(q[((b * Hq + h) * Sq + i) * D + d] *
                              k[((b * Hkv + hk) * Skv + j) * D + d]
                              for d in range(D))
                    x = f32(scale * dot)
                    if softcap:
                        x = softcap * math.tanh(x / softcap)
                    if bias is not None:
                        idx = [b, h, i, j]
                        off = 0
                        for dim, n in enumerate(bshape):
                            off = off * n + (idx[dim] if n > 1 else 0)
                        x += bias[off]
                    if opt.get("alibi"):
                        x += 2.0 ** (-8.0 * (h + 1) / Hq) * (j - diag)
                    dead = ((lq and i >= Lq) or (lkv and j >= Lkv) or
                            (causal and j > diag) or
                            (wl is not None and j < diag - wl) or
                            (wr is not None and j > diag + wr))
                    s.append(-math.inf if dead else x)
                m = max(s)
                row = (b * Hq + h) * Sq + i
                if m == -math.inf:
                    masked_rows += 1
                    probs = [0.0] * Skv
                    lse = -math.inf
                else:
                    e = [math.exp(x - m) for x in s]
                    total_e = sum(e)
                    probs = [x / total_e for x in e]
                    lse = m + math.log(total_e)
                if p > 0:
                    for j in range(Skv):
                        total += 1
                        if keep(seed, offset, row * Skv + j, p):
                            probs[j] /= (1.0 - p)
                        else:
                            probs[j] = 0.0
                            dropped += 1
                for d in range(Dv):
                    ref = sum(probs[j] * v[((b * Hkv + hk) * Skv + j) * Dv + d]
                              for j in range(Skv))
                    worst_o = max(worst_o, abs(ref - o[row * Dv + d]) /
                                  (1.0 + abs(ref)))
                if lse_out is not None:
                    got = lse_out[row]
                    if lse == -math.inf or got == -math.inf:
                        worst_lse = max(worst_lse, 0.0 if lse == got else 1.0)
                    else:
                        worst_lse = max(worst_lse, abs(lse - got) /
                                        (1.0 + abs(lse)))
    print("output error %s" % ("ok" if worst_o < 2e-6 else "BAD %g" % worst_o))
    if lse_out is not None:
        print("stats error %s" % ("ok" if worst_lse < 2e-6
                                  else "BAD %g" % worst_lse))
    print("fully masked rows %d" % masked_rows)
    if p > 0:
        print("dropped %d of %d" % (dropped, total))


if __name__ == "__main__":
    main()
