"""Additive-mask configurations of the GPU suite (`suite.py --set masks`).

Real models mask attention with an additive tensor that holds 0 where a key
is visible and a large negative value where it is not: finfo(dtype).min in
HF transformers, -inf in PyTorch's SDPA utilities, -1e9 in older code. These
configurations feed such a tensor, built here with numpy in the pattern the
models use (causal + sliding window, windows narrower than a kv tile so that
whole leading tiles of a row are masked, whole rows masked, key padding),
to three graph forms:

  mask_fwd    tg.sdpa with the mask as its `bias` operand
  mask_hf     HF transformers' eager attention transcribed op for op
              (repeat_kv, matmul, * scaling, optional soft-capping, + mask,
              softmax in f32, cast, matmul, transpose), which
              tg-fuse-attention turns into one tg.attention
  mask_bloom  Bloom's attention on [B·H, S, D] tensors (baddbmm with the
              ALiBi tensor, views around the softmax)
  mask_train  tg.sdpa {training} + tg.sdpa_grad with the mask as bias
              (o, stats, dq, dk, dv checked)

Each config names its mask file in c["inputs"]; suite.py writes it with
`write_inputs` and passes it to tg-run with --input."""
import os

import attention_graphs as ag

FILLS = ("min", "-inf", "-1e9")
# finfo(dtype).min, the value HF transformers masks with.
FINFO_MIN = {"bf16": -3.3895313892515355e38, "f16": -65504.0, "f32": -3.4028234663852886e38}


def fill_value(fill, dtype):
    if fill == "min":
        return FINFO_MIN[dtype]
    if fill == "-inf":
        return float("-inf")
    if fill == "-1e9":
        # The value each type holds (f16 cannot: it would be -inf).
        return {"bf16": -999292928.0, "f32": -1e9}[dtype]
    raise ValueError(fill)


def mask_array(c):
    """The additive mask [Bm, Hm, Sq, Skv] (Bm = B or 1, Hm = Hq or 1;
    [B, 1, 1, Skv] for key padding) as float32 values exact in the mask's
    dtype."""
    import numpy as np
    m = c["mask"]
    B, Sq, Skv = c["B"], c["Sq"], c["Skv"]
    q = np.arange(Sq)[:, None]
    kv = np.arange(Skv)[None, :]
    pattern = m["pattern"]
    if pattern == "keypad":
        lengths = [Skv - 37 * b - 5 for b in range(B)]
        visible = np.stack([np.broadcast_to(kv < n, (1, Skv)) for n in lengths])[:, None]
    else:
        shift = Skv - Sq  # bottom-right aligned, as HF's masks with a cache
        visible = kv <= q + shift
        if pattern == "window":
            # Mistral / Gemma-2: sliding_window_mask = tril(ones, -window)
            visible = visible & (kv > q + shift - m["window"])
        elif pattern == "rows":
            # The first rows see nothing (e.g. left padding of the queries).
            visible = visible & (q >= m["masked_rows"])
        elif pattern != "causal":
            raise ValueError(pattern)
        visible = np.broadcast_to(visible, (m.get("batch", 1), m.get("heads", 1), Sq, Skv))
    value = fill_value(m["fill"], m["dtype"])
    return np.where(visible, np.float32(0.0), np.float32(value)).astype(np.float32)


def mask_shape(c):
    m = c["mask"]
    if m["pattern"] == "keypad":
        return [c["B"], 1, 1, c["Skv"]]
    return [m.get("batch", 1), m.get("heads", 1), c["Sq"], c["Skv"]]


def write_inputs(c, workdir):
    """Writes the config's mask file; returns --input arguments."""
    import numpy as np
    path = os.path.join(workdir, c["name"] + "_mask.npy")
    np.save(path, mask_array(c))
    return ["--input=%s=%s" % (c["mask_name"], path)]


def _with_mask_bias(c):
    """c as an attention_graphs config whose bias operand is the mask."""
    return dict(c, bias=dict(shape=mask_shape(c), dtype=c["mask"]["dtype"], name="bias"))


def hf_eager_graph(c, fn="hf_eager_attention"):
    """HF transformers' eager attention (Llama/Mistral/Gemma-2), with an
    attention_mask input; softcap as Gemma-2 writes it."""
    B, Hq, Hkv, Sq, Skv, D, dt = c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Skv"], c["D"], c["dtype"]
    g = Hq // Hkv
    T = ag.ttype
    mshape, mdt = mask_shape(c), c["mask"]["dtype"]
    q, k = T([B, Hq, Sq, D], dt), T([B, Hkv, Skv, D], dt)
    k5, kx, kr = T([B, Hkv, 1, Skv, D], dt), T([B, Hkv, g, Skv, D], dt), T([B, Hq, Skv, D], dt)
    kt, s = T([B, Hq, D, Skv], dt), T([B, Hq, Sq, Skv], dt)
    s32, mt = T([B, Hq, Sq, Skv], "f32"), T(mshape, mdt)
    o, ot = T([B, Hq, Sq, D], dt), T([B, Sq, Hq, D], dt)
    lines = [
        'func.func @%s(%%query: %s {tg.name = "query_states"}, %%key: %s {tg.name = "key_states"},' % (fn, q, k),
        '    %%value: %s {tg.name = "value_states"}, %%mask: %s {tg.name = "attention_mask"})' % (k, mt),
        '    -> (%s {tg.name = "attn_output"}) {' % ot,
    ]
    for name, src in (("key_states", "key"), ("value_states", "value")):
        lines += ['  %%%s5 = tg.reshape %%%s : %s -> %s' % (name, src, k, k5),
                  '  %%%sx = tg.broadcast %%%s5 : %s -> %s' % (name, name, k5, kx),
                  '  %%%s = tg.reshape %%%sx : %s -> %s' % (name, name, kx, kr)]
    scaling = D ** -0.5
    lines += ['  %%kt = tg.transpose %%key_states perm = [0, 1, 3, 2] : %s -> %s' % (kr, kt),
              '  %%qk = tg.matmul %%query, %%kt : %s, %s -> %s' % (q, kt, s),
              '  %%scaling = tg.constant dense<%r> : tensor<%s>' % (scaling, dt),
              '  %%w0 = tg.mul %%qk, %%scaling : %s, tensor<%s>' % (s, dt)]
    last = "w0"
    if c.get("softcap"):
        lines += ['  %%cap = tg.constant dense<%r> : tensor<%s>' % (float(c["softcap"]), dt),
                  '  %%c0 = tg.div %%w0, %%cap : %s, tensor<%s>' % (s, dt),
                  '  %%c1 = tg.tanh %%c0 : %s' % s,
                  '  %%c2 = tg.mul %%c1, %%cap : %s, tensor<%s>' % (s, dt)]
        last = "c2"
    if mdt != dt:
        raise ValueError("HF adds a mask of the model's dtype")
    lines += ['  %%w1 = tg.add %%%s, %%mask : %s, %s' % (last, s, mt),
              '  %%w32 = tg.cast %%w1 : %s to %s' % (s, s32),
              '  %%p32 = tg.softmax %%w32 axis = 3 : %s' % s32,
              '  %%p = tg.cast %%p32 : %s to %s' % (s32, s),
              '  %%o = tg.matmul %%p, %%value_states : %s, %s -> %s' % (s, kr, o),
              '  %%ot = tg.transpose %%o perm = [0, 2, 1, 3] : %s -> %s' % (o, ot),
              '  return %%ot : %s' % ot, '}']
    return "\n".join(lines) + "\n"


def bloom_graph(c, fn="bloom_attention"):
    """HF transformers' Bloom attention on [B·H, S, D] tensors: baddbmm with
    the ALiBi tensor [B·H, 1, S], view to [B, H, S, S], + mask, softmax in
    f32, view back, bmm (examples/models/bloom_alibi.mlir at any size)."""
    B, H, Sq, Skv, D, dt = c["B"], c["Hq"], c["Sq"], c["Skv"], c["D"], c["dtype"]
    T = ag.ttype
    N = B * H
    mshape, mdt = mask_shape(c), c["mask"]["dtype"]
    q, k, v = T([N, Sq, D], dt), T([N, D, Skv], dt), T([N, Skv, D], dt)
    s3, s4, s32 = T([N, Sq, Skv], dt), T([B, H, Sq, Skv], dt), T([B, H, Sq, Skv], "f32")
    al, mt = T([N, 1, Skv], dt), T(mshape, mdt)
    o = T([N, Sq, D], dt)
    lines = [
        'func.func @%s(%%q: %s {tg.name = "query_layer"}, %%k: %s {tg.name = "key_layer"},' % (fn, q, k),
        '    %%v: %s {tg.name = "value_layer"}, %%alibi: %s {tg.name = "alibi"},' % (v, al),
        '    %%mask: %s {tg.name = "attention_mask"}) -> (%s {tg.name = "context_layer"}) {' % (mt, o),
        '  %%qk = tg.matmul %%q, %%k : %s, %s -> %s' % (q, k, s3),
        '  %%alpha = tg.constant dense<%r> : tensor<%s>' % (D ** -0.5, dt),
        '  %%scaled = tg.mul %%qk, %%alpha : %s, tensor<%s>' % (s3, dt),
        '  %%w = tg.add %%scaled, %%alibi : %s, %s' % (s3, al),
        '  %%w4 = tg.reshape %%w : %s -> %s' % (s3, s4),
        '  %%wm = tg.add %%w4, %%mask : %s, %s' % (s4, mt),
        '  %%w32 = tg.cast %%wm : %s to %s' % (s4, s32),
        '  %%p32 = tg.softmax %%w32 axis = 3 : %s' % s32,
        '  %%p = tg.cast %%p32 : %s to %s' % (s32, s4),
        '  %%p3 = tg.reshape %%p : %s -> %s' % (s4, s3),
        '  %%o = tg.matmul %%p3, %%v : %s, %s -> %s' % (s3, v, o),
        '  return %%o : %s' % o, '}']
    return "\n".join(lines) + "\n"


def graph_text(c):
    if c["kind"] == "mask_bloom":
        return bloom_graph(c)
    if c["kind"] == "mask_fwd":
        return ag.sdpa_graph(_with_mask_bias(c))
    if c["kind"] == "mask_train":
        return ag.sdpa_fwd_bwd_graph(_with_mask_bias(c))
    if c["kind"] == "mask_hf":
        return hf_eager_graph(c)
    raise ValueError("unknown kind %r" % c["kind"])


def mask_configs():
    out = []
    base = dict(B=1, Hq=8, Hkv=4, Sq=300, Skv=300, D=64, dtype="bf16")

    def add(kind, name, mask, **kw):
        c = dict(base, kind=kind, mask=mask, mask_name="bias" if kind in ("mask_fwd", "mask_train")
                 else "attention_mask")
        c.update(kw)
        c["name"] = "%s_%s" % (kind, name)
        if mask["pattern"] == "rows" and mask["fill"] == "min" and mask["dtype"] != "f16":
            # Measured on the H200 (cuDNN 9.19): a row whose every score is
            # about -3.4e38 comes out as zeros from cuDNN, where the reference
            # (and PyTorch's math SDPA, HF's eager attention, the NVRTC
            # kernel) gives the uniform average of V (docs/cudnn.md).
            c["known_cudnn_difference"] = ("rows masked entirely by finfo(%s).min: cuDNN gives zeros, the "
                                           "reference the uniform average of V" % mask["dtype"])
        out.append(c)

    # tg.sdpa's bias: every fill value and mask dtype, the window narrower
    # than a kv tile (whole leading tiles masked), whole masked rows, key
    # padding, with and without softcap, f16 and bf16, S not a tile multiple.
    for mdt in ("bf16", "f16", "f32"):
        for fill in FILLS:
            if mdt == "f16" and fill == "-1e9":
                continue
            add("mask_fwd", "window64_%s_%s" % (mdt, fill.replace("-", "m")),
                dict(pattern="window", window=64, fill=fill, dtype=mdt))
    for fill in FILLS:
        f = fill.replace("-", "m")
        add("mask_fwd", "window32_softcap_" + f, dict(pattern="window", window=32, fill=fill, dtype="bf16"),
            softcap=50.0, B=2, Sq=128, Skv=128)
        add("mask_fwd", "rows_" + f, dict(pattern="rows", masked_rows=3, fill=fill, dtype="bf16"))
        add("mask_fwd", "keypad_" + f, dict(pattern="keypad", fill=fill, dtype="bf16"), B=3, Hq=4, Hkv=4)
    add("mask_fwd", "window100_d128_f16", dict(pattern="window", window=100, fill="min", dtype="f16"),
        dtype="f16", Sq=257, Skv=257, D=128)
    add("mask_fwd", "window64_batch2", dict(pattern="window", window=64, fill="min", dtype="bf16", batch=2),
        B=2)
    # HF's eager form, fused by tg-fuse-attention.
    for fill in ("min", "-inf"):
        f = fill.replace("-", "m")
        add("mask_hf", "mistral_window64_" + f, dict(pattern="window", window=64, fill=fill, dtype="bf16"))
        add("mask_hf", "gemma2_window32_softcap_" + f, dict(pattern="window", window=32, fill=fill, dtype="bf16"),
            softcap=50.0, B=2, Sq=128, Skv=128, Hq=8, Hkv=4)
        add("mask_hf", "llama_causal_" + f, dict(pattern="causal", fill=fill, dtype="bf16"), Sq=257, Skv=257)
        add("mask_hf", "rows_" + f, dict(pattern="rows", masked_rows=3, fill=fill, dtype="bf16"))
    add("mask_hf", "gemma2_window100_d128_softcap", dict(pattern="window", window=100, fill="min", dtype="bf16"),
        softcap=50.0, Sq=257, Skv=257, D=128)
    add("mask_hf", "keypad_f16", dict(pattern="keypad", fill="min", dtype="f16"), dtype="f16", B=3, Hq=4, Hkv=4)
    # Bloom's [B·H, S, D] form with its ALiBi tensor (random here) and the
    # causal mask, fused through the rank-3 views.
    for fill in ("min", "-inf"):
        add("mask_bloom", "causal_" + fill.replace("-", "m"), dict(pattern="causal", fill=fill, dtype="bf16"),
            B=2, Hq=4, Hkv=4, Sq=200, Skv=200, mask_name="attention_mask")
    # Training steps with the mask as tg.sdpa's bias (the Mistral case).
    for fill in FILLS:
        add("mask_train", "mistral_window64_" + fill.replace("-", "m"),
            dict(pattern="window", window=64, fill=fill, dtype="bf16"))
    add("mask_train", "window100_d128_softcap", dict(pattern="window", window=100, fill="min", dtype="bf16"),
        softcap=50.0, Sq=257, Skv=257, D=128)
    add("mask_train", "rows_min_f16", dict(pattern="rows", masked_rows=3, fill="min", dtype="f16"), dtype="f16")
    add("mask_train", "keypad_min", dict(pattern="keypad", fill="min", dtype="bf16"), B=3, Hq=4, Hkv=2)
    return out


def bias_probe_configs():
    """Which bias forms cuDNN's engines take (docs/cudnn.md's table): the
    bias dtype x its broadcast dimensions, alone and with softcap, GQA, a
    causal or window attribute mask, at S = 256 (a tile multiple) and 300."""
    out = []
    base = dict(B=2, Hq=4, Hkv=4, Sq=256, Skv=256, D=64, dtype="bf16", kind="mask_fwd", mask_name="bias")

    def add(name, mask, **kw):
        c = dict(base, mask=mask)
        c.update(kw)
        c["name"] = "probe_" + name
        out.append(c)

    for mdt in ("bf16", "f16", "f32"):
        for batch, heads in ((1, 1), (2, 1), (1, 4), (2, 4)):
            m = dict(pattern="causal", fill="min", dtype=mdt, batch=batch, heads=heads)
            dims = "%sx%s" % ("B" if batch > 1 else "1", "H" if heads > 1 else "1")
            add("%s_%s" % (mdt, dims), m)
            if mdt == "bf16" or dims == "1x1":
                add("%s_%s_softcap" % (mdt, dims), m, softcap=30.0)
                add("%s_%s_gqa" % (mdt, dims), dict(m, heads=8) if heads > 1 else m, Hq=8, Hkv=2)
                add("%s_%s_causal_attr" % (mdt, dims), m, causal="top_left")
                add("%s_%s_window_attr" % (mdt, dims), m, causal="top_left", window=(64, None))
                add("%s_%s_s300" % (mdt, dims), m, Sq=300, Skv=300)
    add("bf16_Bx1_d128_f16model", dict(pattern="causal", fill="min", dtype="f16", batch=2), dtype="f16", D=128)
    return out
