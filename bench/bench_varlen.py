#!/usr/bin/env python3
"""Benchmark (not a test): tgc's ragged ("varlen", packed THD) attention
forward, bf16, on an H200, against the same tokens as one dense batch, as a
padded batch, and against FlashAttention-2's varlen kernel, in one process:

  tgc_varlen               tg.sdpa with cu_seqlens_q / cu_seqlens_kv: q [T, H, D],
                           k, v [T, Hkv, D], over a long-tailed length mix (lognormal,
                           median 1024, clipped to [64, 8192], the last length cut so
                           that they sum to T exactly; it may fall below 64)
  tgc_dense_uniform        the same total tokens as one dense batch: B' = round(T / L)
                           sequences of L = the mix's mean length rounded to a multiple
                           of 128, [B', H, L, D] (the goal's yardstick: "varlen prefill
                           >= 0.95x the speed of the same tokens as one padded dense
                           batch", compared in effective TFLOP/s since the FLOPs differ)
  tgc_padded               what users do without varlen: [B, H, max_len, D] with
                           seq_len_q / seq_len_kv (the mix's lengths); the same useful
                           FLOPs as tgc_varlen, so times compare directly
  flash_varlen             PyTorch's FlashAttention-2 varlen forward,
                           torch.ops.aten._flash_attention_forward on q [T, H, D]
  torch_varlen_attn        torch.nn.attention.varlen.varlen_attn (where this torch has it)
  flash_dense_uniform      torch SDPA's FLASH_ATTENTION backend on the row-2 tensors
                           (also tgc_dense_uniform's reference)
  torch_sdpa_dense_uniform torch SDPA's CUDNN_ATTENTION backend on the row-2 tensors

(torch SDPA on the padded batch with a boolean mask is not comparable and is
not measured.) All tgc rows are compiled with --backend=nvrtc (the ragged
layout runs only there; the dense rows use the same generated kernel).

Causal: tgc uses #tg<causal bottom_right> per sequence; torch's flash varlen
is_causal is bottom-right aligned too (FlashAttention >= 2.1), and torch SDPA's
dense is_causal is top-left. Every sequence here has equal q and kv lengths, so
top-left and bottom-right are the same mask.

FLOPs (effective TFLOP/s = flops / time): 4 * H * D * pairs, where pairs =
sum_b Lq_b * Lkv_b = sum_b L_b^2 without a mask and sum_b L_b * (L_b + 1) / 2
(the visible (q, kv) pairs, exactly) with causal; H is the query heads (GQA
does not change the FLOPs). tgc_padded and the varlen rows share the mix's
FLOPs (padding is not counted); the dense-uniform rows use B' sequences of L.

Correctness (a fast wrong kernel must not pass): every tgc output is poisoned
with NaN before its first run. tgc_varlen is compared with flash_varlen's
output (max abs error, NaN fails, < 3e-2), or, where flash fails, with a
per-sequence float32 reference (softmax(q k^T / sqrt(D)) v on the sliced
sequences). tgc_padded's valid rows are compared with tgc_varlen's rows and
with that reference (the padding itself is filled with random values, so a
kernel that ignored seq_len_kv would fail); tgc_dense_uniform with
flash_dense_uniform (or float32 math). Rows of torch that fail to run are
recorded with their exception text (ok: null) instead of stopping the run.
Memory: each tgc row records exe.workspace_size (bytes).

Usage (GPU machine, < 2 minutes): python3 bench/bench_varlen.py --lib build/lib/libtgc.so --out $OUT
Writes bench_varlen.json, bench_varlen.md (and bench_varlen.png with
matplotlib) under --out; exits 1 when a row's output is wrong."""
import argparse, inspect, itertools, json, math, os, random, sys, time

import torch

try:
    import numpy as np
except ImportError:  # the length mix then comes from Python's random (other lengths: see env's length_rng)
    np = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tgc  # noqa: E402  (the package's C API wrapper: tgc.Library)

TOL = 3e-2  # max abs error for bf16 outputs


def ttype(shape, elem):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


# --- graphs ---------------------------------------------------------------

def varlen_graph(T, H, Hkv, D, B, max_len, causal):
    """tg.sdpa in the ragged layout: q [T, H, D], k, v [T, Hkv, D], offsets
    cu_seqlens_q / cu_seqlens_kv i32 [B + 1], o [T, H, D]."""
    tq, tkv, tc = ttype([T, H, D], "bf16"), ttype([T, Hkv, D], "bf16"), ttype([B + 1], "i32")
    attrs = (["causal = #tg<causal bottom_right>"] if causal else []) + [
        "max_seqlen_q = %d : i64" % max_len, "max_seqlen_kv = %d : i64" % max_len]
    return ('func.func @varlen(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"},\n'
            '                  %%cu_seqlens_q: %s {tg.name = "cu_seqlens_q"}, '
            '%%cu_seqlens_kv: %s {tg.name = "cu_seqlens_kv"})\n'
            '    -> (%s {tg.name = "o"}) {\n'
            '  %%o = tg.sdpa %%q, %%k, %%v cu_seqlens_q(%%cu_seqlens_q : %s) cu_seqlens_kv(%%cu_seqlens_kv : %s)\n'
            '      {%s}\n'
            '      : %s, %s, %s -> %s\n'
            '  return %%o : %s\n'
            '}\n' % (tq, tkv, tkv, tc, tc, tq, tc, tc, ", ".join(attrs), tq, tkv, tkv, tq, tq))


def dense_graph(B, H, Hkv, S, D, causal, padded=False):
    """Dense tg.sdpa: q [B, H, S, D], k, v [B, Hkv, S, D]; with `padded` the
    i32 [B] lengths seq_len_q / seq_len_kv mask the padding."""
    tq, tkv, tl = ttype([B, H, S, D], "bf16"), ttype([B, Hkv, S, D], "bf16"), ttype([B], "i32")
    args = ['%%q: %s {tg.name = "q"}' % tq, '%%k: %s {tg.name = "k"}' % tkv, '%%v: %s {tg.name = "v"}' % tkv]
    operands = ""
    if padded:
        args += ['%%seq_len_q: %s {tg.name = "seq_len_q"}' % tl, '%%seq_len_kv: %s {tg.name = "seq_len_kv"}' % tl]
        operands = " seq_len_q(%%seq_len_q : %s) seq_len_kv(%%seq_len_kv : %s)" % (tl, tl)
    attrs = "causal = #tg<causal bottom_right>" if causal else ""
    return ('func.func @%s(%s)\n    -> (%s {tg.name = "o"}) {\n'
            '  %%o = tg.sdpa %%q, %%k, %%v%s {%s}\n'
            '      : %s, %s, %s -> %s\n'
            '  return %%o : %s\n'
            '}\n' % ("padded" if padded else "dense", ", ".join(args), tq, operands, attrs, tq, tkv, tkv, tq, tq))


# --- lengths, FLOPs, layouts ----------------------------------------------

def length_mix(T, seed, median=1024, sigma=1.0, lo=64, hi=8192):
    """Sequence lengths summing to T exactly: lognormal (median `median`),
    clipped to [lo, hi], drawn until they reach T; the last is cut to fit.
    numpy's default_rng(seed) draws them (Python's random.Random(seed) where
    numpy is missing)."""
    if np is not None:
        rng = np.random.default_rng(seed)
        draw = lambda: float(rng.lognormal(math.log(median), sigma))  # noqa: E731
    else:
        rng = random.Random(seed)
        draw = lambda: rng.lognormvariate(math.log(median), sigma)  # noqa: E731
    hi = min(hi, T)
    lengths = []
    while sum(lengths) < T:
        lengths.append(int(min(max(round(draw()), min(lo, hi)), hi)))
    lengths[-1] -= sum(lengths) - T  # >= 1: the sum before the last draw was < T
    assert sum(lengths) == T and min(lengths) >= 1
    return lengths


def uniform_shape(lengths):
    """(B', L): L = the mean length rounded to a multiple of 128, B' = round(T / L)."""
    T = sum(lengths)
    L = max(128, int(round(T / len(lengths) / 128.0)) * 128)
    return max(1, int(round(T / L))), L


def pairs(lengths, causal):
    """Visible (q, kv) pairs, summed over sequences (lq == lkv here)."""
    return sum(L * (L + 1) // 2 if causal else L * L for L in lengths)


def attention_flops(lengths, H, D, causal):
    return 4.0 * H * D * pairs(lengths, causal)


def cu_seqlens(lengths):
    return [0] + list(itertools.accumulate(lengths))


def pad(x, lengths, S, fill=None):
    """Packed [T, Hx, D] -> [B, Hx, S, D]; positions past each length come
    from `fill` (a [B, Hx, S, D] tensor, e.g. random values) or zeros."""
    out = fill.clone() if fill is not None else x.new_zeros(len(lengths), x.shape[1], S, x.shape[2])
    cu = cu_seqlens(lengths)
    for b, L in enumerate(lengths):
        out[b, :, :L] = x[cu[b]:cu[b + 1]].transpose(0, 1)
    return out


def unpad(x, lengths):
    """[B, Hx, S, D] -> packed [T, Hx, D] (valid rows only)."""
    return torch.cat([x[b, :, :L].transpose(0, 1) for b, L in enumerate(lengths)], 0)


def math_attention(q, k, v, causal, scale, head_chunk=4):
    """float32 softmax(q k^T * scale) v of one sequence: q [Lq, H, D], k, v
    [Lkv, Hkv, D] -> [Lq, H, D] f32; bottom-right causal (kv <= q + Lkv - Lq)."""
    Lq, H, D = q.shape
    Lkv, Hkv = k.shape[0], k.shape[1]
    g = H // Hkv
    out = torch.empty(Lq, H, v.shape[2], dtype=torch.float32, device=q.device)
    mask = None
    if causal:
        qi = torch.arange(Lq, device=q.device)[:, None]
        ki = torch.arange(Lkv, device=q.device)[None, :]
        mask = ki > qi + (Lkv - Lq)
    for h0 in range(0, H, head_chunk):
        hs = range(h0, min(H, h0 + head_chunk))
        qs = q[:, hs.start:hs.stop].float().transpose(0, 1)                      # [h, Lq, D]
        kv_heads = [h // g for h in hs]
        ks = k[:, kv_heads].float().transpose(0, 1)                               # [h, Lkv, D]
        vs = v[:, kv_heads].float().transpose(0, 1)
        s = torch.matmul(qs, ks.transpose(1, 2)) * scale
        if mask is not None:
            s = s.masked_fill(mask, float("-inf"))
        out[:, hs.start:hs.stop] = torch.matmul(torch.softmax(s, -1), vs).transpose(0, 1)
        del s
    return out


def packed_reference(q, k, v, lengths, causal, scale):
    """Per-sequence float32 reference of the ragged attention, packed [T, H, D]."""
    cu = cu_seqlens(lengths)
    return torch.cat([math_attention(q[cu[b]:cu[b + 1]], k[cu[b]:cu[b + 1]], v[cu[b]:cu[b + 1]], causal, scale)
                      for b in range(len(lengths))], 0)


def dense_reference(q, k, v, causal, scale):
    """float32 reference of dense [B, H, S, D] attention, batch by batch."""
    return torch.stack([math_attention(q[b].transpose(0, 1), k[b].transpose(0, 1), v[b].transpose(0, 1),
                                       causal, scale).transpose(0, 1) for b in range(q.shape[0])], 0)


def max_err(a, b):
    """Max abs difference in float32 (NaN anywhere gives NaN)."""
    d = (a.float() - b.float()).abs()
    return float("nan") if torch.isnan(d).any().item() else d.max().item()


def err_ok(err):
    return bool(err == err and err < TOL)  # NaN fails


def short_error(ex):
    """The first line of an exception's text (for the table)."""
    text = ("%s: %s" % (type(ex).__name__, ex)).strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[0] if lines else text)[:400]


def record_error(row, ex):
    """An exception in a row: its first line, and the whole text (a compile
    error's diagnostics) where it has more."""
    row["error"] = short_error(ex)
    full = ("%s: %s" % (type(ex).__name__, ex)).strip()
    if full != row["error"]:
        row["error_detail"] = full[:3000]


# --- torch calls ----------------------------------------------------------

def flash_varlen_fn(q, k, v, cu, max_len, causal, scale):
    """A closure calling aten._flash_attention_forward on packed q, k, v (first
    tries the `scale` keyword, then the schema without it)."""
    op = torch.ops.aten._flash_attention_forward

    def with_scale():
        return op(q, k, v, cu, cu, max_len, max_len, 0.0, causal, False, scale=scale)[0]

    def without_scale():  # flash's default scale is 1/sqrt(D) too
        return op(q, k, v, cu, cu, max_len, max_len, 0.0, causal, False)[0]
    try:
        with_scale()
        return with_scale
    except Exception as first:  # noqa: BLE001
        try:
            without_scale()
            return without_scale
        except Exception:  # noqa: BLE001
            raise first


def torch_varlen_attn_fn(q, k, v, cu, max_len, causal, scale, gqa):
    """A closure calling torch.nn.attention.varlen.varlen_attn, whose keywords
    changed between releases (is_causal in 2.9; window_size, scale, enable_gqa later)."""
    from torch.nn.attention.varlen import varlen_attn
    params = inspect.signature(varlen_attn).parameters
    kw = {}
    if "scale" in params:
        kw["scale"] = scale
    if causal:
        if "is_causal" in params:
            kw["is_causal"] = True
        elif "window_size" in params:
            kw["window_size"] = (-1, 0)  # bottom-right causal
        else:
            raise RuntimeError("varlen_attn%s has no causal option" % inspect.signature(varlen_attn))
    if gqa and "enable_gqa" in params:
        kw["enable_gqa"] = True
    return lambda: varlen_attn(q, k, v, cu, cu, max_len, max_len, **kw), str(inspect.signature(varlen_attn))


def sdpa_fn(backend, q, k, v, causal, scale, gqa):
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel
    kw = {"enable_gqa": True} if gqa else {}

    def fn():
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, **kw)
    return fn


# --- report ---------------------------------------------------------------

def chart(rows, path):
    """Effective TFLOP/s per case, causal beside non-causal (missing bars: not run)."""
    from bench_attention import pyplot_or_none  # noqa: E402
    plt = pyplot_or_none()
    if plt is None:
        return
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    modes = sorted({r["causal"] for r in rows})
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / max(1, len(modes))
    for i, causal in enumerate(modes):
        by = {r["case"]: r for r in rows if r["causal"] == causal}
        ax.bar([x + (i - (len(modes) - 1) / 2.0) * width for x in range(len(cases))],
               [(by.get(c) or {}).get("tflops") or 0 for c in cases], width,
               label="causal" if causal else "non-causal")
    ax.set_xticks(list(range(len(cases))))
    ax.set_xticklabels(cases, rotation=25, fontsize=8)
    ax.set_ylabel("effective TFLOP/s")
    ax.set_title("varlen attention forward, bf16 (higher is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def fmt(x, spec="%s"):
    return "-" if x is None else spec % x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--tokens", type=int, default=16384, help="total tokens T of the length mix")
    ap.add_argument("--H", type=int, default=16, help="query heads")
    ap.add_argument("--hkv", type=int, default=None, help="kv heads (GQA; default: --H)")
    ap.add_argument("--D", type=int, default=128)
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--seed", type=int, default=0, help="numpy seed of the length mix (torch's of the data)")
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend
    from bench_attention import Tgc, bench  # noqa: E402  (median of CUDA-event timings; what ran)

    T, H, D = args.tokens, args.H, args.D
    Hkv = args.hkv or H
    if H % Hkv:
        ap.error("--H must be a multiple of --hkv")
    gqa = Hkv != H
    scale = 1.0 / math.sqrt(D)
    modes = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    options = " ".join(["--arch=" + args.arch, "--backend=nvrtc"])  # Library.compile takes one option string

    lengths = length_mix(T, args.seed)
    B, max_len = len(lengths), max(lengths)
    Bu, Lu = uniform_shape(lengths)
    cu_list = cu_seqlens(lengths)
    print("lengths (%d sequences, T=%d, mean %.1f, max %d): %s" % (B, T, T / B, max_len, lengths), flush=True)
    print("dense uniform: %d x %d (%d tokens)" % (Bu, Lu, Bu * Lu), flush=True)

    lib = tgc.Library(args.lib)
    dev = "cuda"
    env = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(),
           "commit": os.environ.get("TGC_COMMIT", "unknown"), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
           "T": T, "H": H, "Hkv": Hkv, "D": D, "seed": args.seed, "B": B, "max_len": max_len,
           "lengths": lengths, "cu_seqlens": cu_list, "uniform_B": Bu, "uniform_L": Lu,
           "tgc_options": options,
           "length_rng": "numpy.random.default_rng(%d).lognormal" % args.seed if np is not None
           else "random.Random(%d).lognormvariate (numpy missing)" % args.seed}
    try:
        env["flash_schema"] = str(torch.ops.aten._flash_attention_forward.default._schema)
    except Exception as ex:  # noqa: BLE001
        env["flash_schema"] = "unavailable: " + short_error(ex)
    print({k: v for k, v in env.items() if k not in ("lengths", "cu_seqlens")}, flush=True)

    torch.manual_seed(args.seed)
    bf = torch.bfloat16
    q = torch.randn(T, H, D, device=dev, dtype=bf)
    k = torch.randn(T, Hkv, D, device=dev, dtype=bf)
    v = torch.randn(T, Hkv, D, device=dev, dtype=bf)
    cu_q = torch.tensor(cu_list, device=dev, dtype=torch.int32)
    cu_kv = cu_q.clone()
    # The padded batch: the packed tokens, and random values in the padding so
    # that a kernel reading past seq_len would disagree with the varlen rows.
    qp = pad(q, lengths, max_len, torch.randn(B, H, max_len, D, device=dev, dtype=bf))
    kp = pad(k, lengths, max_len, torch.randn(B, Hkv, max_len, D, device=dev, dtype=bf))
    vp = pad(v, lengths, max_len, torch.randn(B, Hkv, max_len, D, device=dev, dtype=bf))
    lens = torch.tensor(lengths, device=dev, dtype=torch.int32)
    lens_kv = lens.clone()
    # The dense uniform batch.
    qu = torch.randn(Bu, H, Lu, D, device=dev, dtype=bf)
    ku = torch.randn(Bu, Hkv, Lu, D, device=dev, dtype=bf)
    vu = torch.randn(Bu, Hkv, Lu, D, device=dev, dtype=bf)
    stream = torch.cuda.current_stream().cuda_stream

    rows = []

    def emit(row):
        rows.append(row)
        print(row, flush=True)

    def tgc_row(case, causal, mlir, binds, o, flops, batch):
        """Compile, poison o with NaN (done by the caller), run once, time."""
        row = dict(case=case, causal=causal, batch=batch, flops=flops)
        t0 = time.time()
        try:
            exe = lib.compile(mlir, options)
            try:
                arr = tgc.BindingArray.from_dict(dict(binds, o=o))
                exe.run(arr, stream)
                torch.cuda.synchronize()
                row["compile_s"] = round(time.time() - t0, 2)
                try:
                    row["ran"] = Tgc.ran(exe, stream)
                except Exception as ex:  # noqa: BLE001
                    row["ran"] = "? (%s)" % short_error(ex)
                row["workspace_bytes"] = int(exe.workspace_size)
                row["ms"] = round(bench(lambda: exe.run(arr, stream), reps=20), 4)
                row["tflops"] = round(flops / row["ms"] / 1e9, 1)
            finally:
                exe.destroy()
        except Exception as ex:  # noqa: BLE001 - a tgc failure is a (failed) result
            record_error(row, ex)
            row["ok"] = False
        return row

    def torch_row(case, causal, fn_maker, flops, batch):
        """Run a torch closure once (its output is returned), then time it;
        failures are recorded, not raised."""
        row = dict(case=case, causal=causal, batch=batch, flops=flops)
        try:
            made = fn_maker()
            fn, extra = made if isinstance(made, tuple) else (made, None)
            if extra:
                row["signature"] = extra
            out = fn()
            torch.cuda.synchronize()
            row["ms"] = round(bench(fn, reps=20), 4)
            row["tflops"] = round(flops / row["ms"] / 1e9, 1)
            return row, out
        except Exception as ex:  # noqa: BLE001
            record_error(row, ex)
            row["ok"] = None  # not run
            return row, None

    for causal in modes:
        vflops = attention_flops(lengths, H, D, causal)
        uflops = attention_flops([Lu] * Bu, H, D, causal)
        vbatch = "varlen %d seqs, T=%d" % (B, T)
        pbatch = "%dx%d padded" % (B, max_len)
        ubatch = "%dx%d" % (Bu, Lu)

        # Reference of the packed rows: FlashAttention-2 varlen, else float32 math.
        frow, fout = torch_row("flash_varlen", causal,
                               lambda: flash_varlen_fn(q, k, v, cu_q, max_len, causal, scale), vflops, vbatch)
        ref, ref_name = None, None
        if fout is not None and not torch.isnan(fout).any().item():
            ref, ref_name = fout, "flash_varlen"
            frow["ok"] = True  # the reference itself: finite; tgc_varlen checks it against tgc
        elif fout is not None:
            frow["ok"], frow["error"] = False, "flash_varlen output has NaN"
        if ref is None:
            ref, ref_name = packed_reference(q, k, v, lengths, causal, scale), "float32 math per sequence"
            if fout is not None:
                frow["max_abs_err_vs_ref"] = max_err(fout, ref)
                frow["ok"] = err_ok(frow["max_abs_err_vs_ref"])
        emit(frow)

        # tgc_varlen.
        o_var = torch.full_like(q, float("nan"))
        row = tgc_row("tgc_varlen", causal, varlen_graph(T, H, Hkv, D, B, max_len, causal),
                      dict(q=q, k=k, v=v, cu_seqlens_q=cu_q, cu_seqlens_kv=cu_kv), o_var, vflops, vbatch)
        varlen_ran = "error" not in row
        if varlen_ran:
            row["reference"] = ref_name
            row["max_abs_err_vs_ref"] = max_err(o_var, ref)
            row["ok"] = err_ok(row["max_abs_err_vs_ref"])
            if fout is not None and ref_name != "flash_varlen":
                row["max_abs_err_vs_flash"] = max_err(o_var, fout)
        emit(row)

        # tgc_padded: valid rows against tgc_varlen's rows and the reference.
        o_pad = torch.full_like(qp, float("nan"))
        row = tgc_row("tgc_padded", causal, dense_graph(B, H, Hkv, max_len, D, causal, padded=True),
                      dict(q=qp, k=kp, v=vp, seq_len_q=lens, seq_len_kv=lens_kv), o_pad, vflops, pbatch)
        if "error" not in row:
            valid = unpad(o_pad, lengths)
            row["reference"] = ref_name
            row["max_abs_err_vs_ref"] = max_err(valid, ref)
            row["ok"] = err_ok(row["max_abs_err_vs_ref"])
            if varlen_ran:
                row["max_abs_err_vs_tgc_varlen"] = max_err(valid, o_var)
                row["ok"] = row["ok"] and err_ok(row["max_abs_err_vs_tgc_varlen"])
            del valid
        emit(row)
        del o_pad

        # torch.nn.attention.varlen.varlen_attn, where it exists.
        row, out = torch_row("torch_varlen_attn", causal,
                             lambda: torch_varlen_attn_fn(q, k, v, cu_q, max_len, causal, scale, gqa), vflops, vbatch)
        if out is not None:
            out = out[0] if isinstance(out, tuple) else out
            row["reference"] = ref_name
            row["max_abs_err_vs_ref"] = max_err(out, ref)
            row["ok"] = err_ok(row["max_abs_err_vs_ref"])
        emit(row)
        del out, ref, fout, o_var

        # Dense uniform: torch flash (the reference), tgc, torch cuDNN.
        row, uref = torch_row("flash_dense_uniform", causal,
                              lambda: sdpa_fn(SDPBackend.FLASH_ATTENTION, qu, ku, vu, causal, scale, gqa),
                              uflops, ubatch)
        uref_name = "flash_dense_uniform"
        if uref is None or torch.isnan(uref).any().item():
            math_ref = dense_reference(qu, ku, vu, causal, scale)
            if uref is not None:
                row["max_abs_err_vs_ref"] = max_err(uref, math_ref)
                row["ok"] = err_ok(row["max_abs_err_vs_ref"])
            uref, uref_name = math_ref, "float32 math"
        else:
            row["ok"] = True
        emit(row)

        o_u = torch.full_like(qu, float("nan"))
        row = tgc_row("tgc_dense_uniform", causal, dense_graph(Bu, H, Hkv, Lu, D, causal),
                      dict(q=qu, k=ku, v=vu), o_u, uflops, ubatch)
        if "error" not in row:
            row["reference"] = uref_name
            row["max_abs_err_vs_ref"] = max_err(o_u, uref)
            row["ok"] = err_ok(row["max_abs_err_vs_ref"])
        emit(row)
        del o_u

        row, out = torch_row("torch_sdpa_dense_uniform", causal,
                             lambda: sdpa_fn(SDPBackend.CUDNN_ATTENTION, qu, ku, vu, causal, scale, gqa),
                             uflops, ubatch)
        if out is not None:
            row["backend"] = "cudnn"
            row["reference"] = uref_name
            row["max_abs_err_vs_ref"] = max_err(out, uref)
            row["ok"] = err_ok(row["max_abs_err_vs_ref"])
        emit(row)
        del out, uref
        torch.cuda.empty_cache()

    # Ratios per causal mode.
    summary = {}
    for causal in modes:
        by = {r["case"]: r for r in rows if r["causal"] == causal and r.get("ms")}
        dense, flash = by.get("tgc_dense_uniform"), by.get("flash_varlen")
        for r in rows:
            if r["causal"] != causal or not r.get("ms"):
                continue
            if dense:
                r["tflops_vs_tgc_dense_uniform"] = round(r["tflops"] / dense["tflops"], 3)
            if flash and r["case"] in ("tgc_varlen", "tgc_padded", "torch_varlen_attn", "flash_varlen"):
                r["ms_vs_flash_varlen"] = round(r["ms"] / flash["ms"], 3)
        s = {}
        tv = by.get("tgc_varlen")
        if tv and dense:
            s["tgc_varlen_vs_tgc_dense_uniform_tflops"] = tv["tflops_vs_tgc_dense_uniform"]
            s["goal_0.95_met"] = tv["tflops_vs_tgc_dense_uniform"] >= 0.95
        if tv and flash:
            s["tgc_varlen_vs_flash_varlen_ms"] = tv["ms_vs_flash_varlen"]
        if tv and by.get("tgc_padded"):
            s["tgc_padded_vs_tgc_varlen_ms"] = round(by["tgc_padded"]["ms"] / tv["ms"], 3)
        summary["causal" if causal else "non_causal"] = s
    print(summary, flush=True)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_varlen.json"), "w") as f:
        json.dump({"env": env, "rows": rows, "summary": summary}, f, indent=1)
    lines = ["# tgc varlen (ragged) attention forward (%s, %s, commit %s)" % (env["gpu"], env["date"], env["commit"]),
             "",
             "bf16, T=%d tokens in %d sequences (lognormal mix, seed %d, max %d), H=%d Hkv=%d D=%d; dense uniform "
             "%dx%d; tgc with %s; times are medians of 20 runs. Effective TFLOP/s = 4*H*D*pairs / time, pairs = "
             "sum L^2 (causal: sum L(L+1)/2); padding is not counted. Goal: tgc_varlen >= 0.95x tgc_dense_uniform "
             "in TFLOP/s." % (T, B, args.seed, max_len, H, Hkv, D, Bu, Lu, options),
             "", "Lengths: %s" % lengths, "",
             "| case | causal | batch | ms | TFLOP/s | TFLOP/s / tgc_dense_uniform | ms / flash_varlen "
             "| max abs err (vs) | workspace MiB | ok |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        err = r.get("max_abs_err_vs_ref")
        err_text = "-" if err is None else "%.2e (%s)" % (err, r.get("reference", "?"))
        if r.get("max_abs_err_vs_tgc_varlen") is not None:
            err_text += "; %.2e (tgc_varlen)" % r["max_abs_err_vs_tgc_varlen"]
        ms = fmt(r.get("ms")) if "error" not in r else "failed: " + r["error"].replace("|", "/")[:160]
        ws = r.get("workspace_bytes")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], "yes" if r["causal"] else "no", r["batch"], ms, fmt(r.get("tflops")),
            fmt(r.get("tflops_vs_tgc_dense_uniform")), fmt(r.get("ms_vs_flash_varlen")), err_text,
            "-" if ws is None else "%.2f" % (ws / 2 ** 20), fmt(r.get("ok"))))
    for mode, s in summary.items():
        if s:
            lines += ["", "%s: %s" % (mode, ", ".join("%s = %s" % kv for kv in s.items()))]
    with open(os.path.join(args.out, "bench_varlen.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    chart(rows, os.path.join(args.out, "bench_varlen.png"))
    print("\n".join(lines))
    sys.exit(1 if any(r.get("ok") is False for r in rows) else 0)


if __name__ == "__main__":
    main()
