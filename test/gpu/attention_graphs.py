"""tg graphs for the GPU suite and the benchmarks, generated from small
config dicts: forward tg.sdpa, forward + tg.sdpa_grad in one function (so
that o and stats given to the backward are the forward's own), and
tg.sdpa_grad alone on given q, k, v, o, do, stats.

A config has B, Hq, Hkv, Sq, Skv, D, dtype and optional Dv (v's head dim,
default D), causal ("top_left"/"bottom_right"), window (left, right),
softcap, alibi, bias (True: a random f32 [1,Hq,Sq,Skv]; a dict gives its
shape and dtype, as mask_graphs.py feeds additive masks; bias_grad: the
backward also returns dbias), padding (True, or "kv": seq_len_kv alone), dropout, training, layout ("bshd":
logical [B,H,S,D] over a [B,S,H,D] buffer), deterministic (the suite compiles
and runs it with --deterministic and checks repeated runs bit for bit)."""


def ttype(shape, elem):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


def _bshd_strides(shape):
    b, h, s, d = shape
    return "tg.strides = array<i64: %d, %d, %d, 1>" % (s * h * d, d, h * d)


class _Sig:
    """Arguments and results of one function, with their tg attributes."""

    def __init__(self, c):
        self.c = c
        self.bshd = c.get("layout") == "bshd"
        self.args, self.results = [], []

    def value(self, name, shape, elem, bshd=False):
        attrs = 'tg.name = "%s"' % name
        if bshd and self.bshd:
            attrs += ", " + _bshd_strides(shape)
        return "%s {%s}" % (ttype(shape, elem), attrs)

    def arg(self, name, shape, elem, bshd=False):
        self.args.append("%%%s: %s" % (name, self.value(name, shape, elem, bshd)))

    def result(self, name, shape, elem, bshd=False):
        self.results.append((name, ttype(shape, elem), self.value(name, shape, elem, bshd)))

    def function(self, fn, body):
        names = ", ".join("%" + r[0] for r in self.results)
        types = ", ".join(r[1] for r in self.results)
        return ("func.func @%s(%s) -> (%s) {\n" % (fn, ", ".join(self.args), ", ".join(r[2] for r in self.results))
                + body + "  return %s : %s\n}\n" % (names, types))


def shapes(c):
    B, Hq, Hkv, Sq, Skv, D = c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Skv"], c["D"]
    Dv = c.get("Dv", D)
    return dict(q=[B, Hq, Sq, D], k=[B, Hkv, Skv, D], v=[B, Hkv, Skv, Dv], o=[B, Hq, Sq, Dv],
                stats=[B, Hq, Sq, 1])


def _options(c, sig, training):
    """Optional operands (declared as arguments of `sig`) and the attribute
    dict of tg.sdpa / tg.sdpa_grad."""
    B, Hq, Sq, Skv = c["B"], c["Hq"], c["Sq"], c["Skv"]
    operands = []
    if c.get("bias"):
        sig.arg("bias", bias_shape(c), bias_dtype(c))
        operands.append("bias(%%bias : %s)" % ttype(bias_shape(c), bias_dtype(c)))
    if c.get("padding"):
        # padding="kv": key lengths alone (what a mask_mod `kv < len[b]` lifts to).
        if c["padding"] != "kv":
            sig.arg("seq_len_q", [B], "i32")
            operands.append("seq_len_q(%%seq_len_q : %s)" % ttype([B], "i32"))
        sig.arg("seq_len_kv", [B], "i32")
        operands.append("seq_len_kv(%%seq_len_kv : %s)" % ttype([B], "i32"))
    if c.get("dropout"):
        sig.args.append('%seed: tensor<i64> {tg.name = "seed"}')
        sig.args.append('%offset: tensor<i64> {tg.name = "offset"}')
        operands.append("seed(%seed) offset(%offset)")
    attrs = []
    if c.get("causal"):
        attrs.append("causal = #tg<causal %s>" % c["causal"])
    if c.get("window"):
        left, right = c["window"]
        if left is not None:
            attrs.append("window_left = %d : i64" % left)
        if right is not None:
            attrs.append("window_right = %d : i64" % right)
    if c.get("softcap"):
        attrs.append("softcap = %s : f64" % c["softcap"])
    if c.get("alibi"):
        attrs.append("alibi")
    if c.get("dropout"):
        attrs.append("dropout = %s : f64" % c["dropout"])
    if training:
        attrs.append("training")
    return " ".join(operands), ", ".join(attrs)


def _sdpa_line(c, operands, attrs, training):
    sh, dt = shapes(c), c["dtype"]
    names = "%o, %stats" if training else "%o"
    res = ttype(sh["o"], dt) + (", " + ttype(sh["stats"], "f32") if training else "")
    return ("  %s = tg.sdpa %%q, %%k, %%v %s {%s}\n      : %s, %s, %s -> %s\n"
            % (names, operands, attrs, ttype(sh["q"], dt), ttype(sh["k"], dt), ttype(sh["v"], dt), res))


def bias_shape(c):
    bias = c.get("bias")
    return bias["shape"] if isinstance(bias, dict) else [1, c["Hq"], c["Sq"], c["Skv"]]


def bias_dtype(c):
    bias = c.get("bias")
    return bias["dtype"] if isinstance(bias, dict) else "f32"


def _grad_line(c, operands, attrs):
    sh, dt = shapes(c), c["dtype"]
    dbias = bool(c.get("bias_grad"))
    return ("  %%dq, %%dk, %%dv%s = tg.sdpa_grad %%q, %%k, %%v, %%o, %%do, %%stats %s {%s}\n"
            "      : %s, %s, %s, %s, %s, %s%s\n"
            % (", %dbias" if dbias else "", operands, attrs, ttype(sh["q"], dt), ttype(sh["k"], dt),
               ttype(sh["v"], dt), ttype(sh["o"], dt), ttype(sh["o"], dt), ttype(sh["stats"], "f32"),
               " -> dbias " + ttype(bias_shape(c), "f32") if dbias else ""))


def _qkv(c, sig):
    sh, dt = shapes(c), c["dtype"]
    for n in ("q", "k", "v"):
        sig.arg(n, sh[n], dt, bshd=True)


def sdpa_graph(c, fn="attention"):
    """Forward: q, k, v (+ options) -> o (+ stats in training)."""
    sig = _Sig(c)
    sh, dt = shapes(c), c["dtype"]
    _qkv(c, sig)
    training = bool(c.get("training"))
    operands, attrs = _options(c, sig, training)
    sig.result("o", sh["o"], dt, bshd=True)
    if training:
        sig.result("stats", sh["stats"], "f32")
    return sig.function(fn, _sdpa_line(c, operands, attrs, training))


def sdpa_fwd_bwd_graph(c, fn="attention_fwd_bwd"):
    """Training forward then its backward in one function: q, k, v, do (+
    options) -> o, stats, dq, dk, dv. The backward sees the forward's own o
    and stats, as in training (cuDNN's backward recomputes P from stats)."""
    sig = _Sig(c)
    sh, dt = shapes(c), c["dtype"]
    _qkv(c, sig)
    sig.arg("do", sh["o"], dt, bshd=True)
    operands, attrs = _options(c, sig, True)
    grad_attrs = ", ".join(a for a in attrs.split(", ") if a != "training")
    for n, s, e in (("o", sh["o"], dt), ("stats", sh["stats"], "f32"), ("dq", sh["q"], dt),
                    ("dk", sh["k"], dt), ("dv", sh["v"], dt)):
        sig.result(n, s, e, bshd=(n != "stats"))
    if c.get("bias_grad"):
        sig.result("dbias", bias_shape(c), "f32")
    return sig.function(fn, _sdpa_line(c, operands, attrs, True) + _grad_line(c, operands, grad_attrs))


def sdpa_grad_graph(c, fn="attention_bwd"):
    """tg.sdpa_grad alone: q, k, v, o, do, stats (+ options) -> dq, dk, dv."""
    sig = _Sig(c)
    sh, dt = shapes(c), c["dtype"]
    _qkv(c, sig)
    sig.arg("o", sh["o"], dt, bshd=True)
    sig.arg("do", sh["o"], dt, bshd=True)
    sig.arg("stats", sh["stats"], "f32")
    operands, attrs = _options(c, sig, False)
    for n in ("dq", "dk", "dv"):
        sig.result(n, sh[n[1:]], dt, bshd=True)
    if c.get("bias_grad"):
        sig.result("dbias", bias_shape(c), "f32")
    return sig.function(fn, _grad_line(c, operands, attrs))


def document_step_graph(c, fn="document_step"):
    """A training step with a document mask (packed sequences): tg.attention
    (training) whose score region keeps the keys of the query's own document
    (captured i32 ids doc_q [B,1,Sq,1] and doc_kv [B,1,1,Skv]; causal as an
    attribute), then its tg.attention_grad with the same region (score_grad
    empty: the gradient passes where the mask keeps the score). q, k, v, do,
    doc_q, doc_kv -> o, dq, dk, dv."""
    sh, dt = shapes(c), c["dtype"]
    B, Sq, Skv = c["B"], c["Sq"], c["Skv"]
    tq, tk, tv, to = (ttype(sh[n], dt) for n in ("q", "k", "v", "o"))
    ts = ttype(sh["stats"], "f32")
    tdq, tdk = ttype([B, 1, Sq, 1], "i32"), ttype([B, 1, 1, Skv], "i32")
    scale = c.get("scale", 1.0 / c["D"] ** 0.5)
    attrs = "scale = %r : f64" % scale
    if c.get("causal"):
        attrs = "causal = #tg<causal %s>, " % c["causal"] + attrs
    region = ("  ^bb0(%%s: tensor<f32>, %%b: tensor<i64>, %%h: tensor<i64>, %%qi: tensor<i64>, %%ki: tensor<i64>, "
              "%%dqe: tensor<i32>, %%dke: tensor<i32>):\n"
              "    %%same = tg.cmp eq, %%dqe, %%dke : tensor<i32>, tensor<i32>\n"
              "    %%ninf = tg.constant dense<0xFF800000> : tensor<f32>\n"
              "    %%r = tg.select %%same, %%s, %%ninf : tensor<i1>, tensor<f32>, tensor<f32>\n"
              "    tg.yield %%r : tensor<f32>\n  }")
    caps = "captures(%%doc_q, %%doc_kv : %s, %s)" % (tdq, tdk)
    args = ['%%%s: %s {tg.name = "%s"}' % (n, t, n) for n, t in
            (("q", tq), ("k", tk), ("v", tv), ("do", to), ("doc_q", tdq), ("doc_kv", tdk))]
    results = ['%s {tg.name = "%s"}' % (t, n) for n, t in (("o", to), ("dq", tq), ("dk", tk), ("dv", tv))]
    return ("func.func @%s(%s)\n    -> (%s) {\n" % (fn, ", ".join(args), ", ".join(results))
            + "  %%o, %%lse = tg.attention %%q, %%k, %%v %s {%s, training} : %s, %s, %s -> %s, %s score {\n%s\n"
            % (caps, attrs, tq, tk, tv, to, ts, region % ())
            + "  %%dq, %%dk, %%dv = tg.attention_grad %%q, %%k, %%v, %%o, %%do, %%lse %s {%s}\n"
              "      : %s, %s, %s, %s, %s, %s score {\n%s score_grad {\n  }\n"
            % (caps, attrs, tq, tk, tv, to, to, ts, region % ())
            + "  return %%o, %%dq, %%dk, %%dv : %s, %s, %s, %s\n}\n" % (to, tq, tk, tv))


FP8_SCALES = ("descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o")


def fp8_sdpa_graph(B, H, S, D, causal=False, elem="f8E4M3FN", out_elem="f8E4M3FN", fn="fp8_attention"):
    """FP8 forward (cuDNN's pattern): fp8 q, k, v and the six rank-0 f32
    fp8_scales -> o (out_elem) and the rank-0 f32 amax of s and o."""
    qt, ot, sc = ttype([B, H, S, D], elem), ttype([B, H, S, D], out_elem), "tensor<f32>"
    args = ['%%%s: %s {tg.name = "%s"}' % (n, qt, n) for n in ("q", "k", "v")]
    args += ['%%%s: %s {tg.name = "%s"}' % (n, sc, n) for n in FP8_SCALES]
    attrs = "{causal = #tg<causal top_left>}" if causal else "{}"
    return ('func.func @%s(%s) -> (%s {tg.name = "o"}, %s {tg.name = "amax_s"}, %s {tg.name = "amax_o"}) {\n'
            '  %%o, %%amax_s, %%amax_o = tg.sdpa %%q, %%k, %%v fp8_scales(%s : %s) %s\n'
            '      : %s, %s, %s -> %s amax(%s, %s)\n'
            '  return %%o, %%amax_s, %%amax_o : %s, %s, %s\n}\n'
            % (fn, ", ".join(args), ot, sc, sc, ", ".join("%" + n for n in FP8_SCALES), ", ".join([sc] * 6), attrs,
               qt, qt, qt, ot, sc, sc, ot, sc, sc))


def mixed_matmul_graph(M, K, N, scaled=False, fn="mixed_matmul", weight="i8", group=0):
    """x [M,K] bf16 times w [K,N] (int8, or `weight`: i4, f8E4M3FN, f8E5M2) ->
    y [M,N] bf16. Plain: tg.matmul (w converted exactly). Scaled:
    tg.fused_matmul dequantising w per output channel in prologue_b (cast,
    times scale [1,N] bf16), as examples/mixed_attention_matmul.mlir does.
    With `group` G: scales per group of G rows, written as PyTorch code
    writes it (cast, view as [K/G, G, N], times scale [K/G, 1, N], view
    back, tg.matmul); the compiler fuses it."""
    x, w, y = ttype([M, K], "bf16"), ttype([K, N], weight), ttype([M, N], "bf16")
    args = '%%x: %s {tg.name = "x"}, %%w: %s {tg.name = "w"}' % (x, w)
    if group:
        wb, wg = ttype([K, N], "bf16"), ttype([K // group, group, N], "bf16")
        sc = ttype([K // group, 1, N], "bf16")
        return ('func.func @%s(%s, %%scale: %s {tg.name = "scale"}) -> (%s {tg.name = "y"}) {\n'
                '  %%wf = tg.cast %%w : %s to %s\n'
                '  %%wg = tg.reshape %%wf : %s -> %s\n'
                '  %%ws = tg.mul %%wg, %%scale : %s, %s\n'
                '  %%wd = tg.reshape %%ws : %s -> %s\n'
                '  %%y = tg.matmul %%x, %%wd : %s, %s -> %s\n'
                '  return %%y : %s\n}\n' % (fn, args, sc, y, w, wb, wb, wg, wg, sc, wg, wb, x, wb, y, y))
    if not scaled:
        return ('func.func @%s(%s) -> (%s {tg.name = "y"}) {\n'
                '  %%y = tg.matmul %%x, %%w : %s, %s -> %s\n  return %%y : %s\n}\n' % (fn, args, y, x, w, y, y))
    sc = ttype([1, N], "bf16")
    return ('func.func @%s(%s, %%scale: %s {tg.name = "scale"}) -> (%s {tg.name = "y"}) {\n'
            '  %%y = tg.fused_matmul %%x, %%w b_captures(%%scale : %s) : %s, %s -> %s\n'
            '    prologue_a {}\n'
            '    prologue_b {\n'
            '    ^bb0(%%e: tensor<%s>, %%s: tensor<bf16>):\n'
            '      %%h = tg.cast %%e : tensor<%s> to tensor<bf16>\n'
            '      %%d = tg.mul %%h, %%s : tensor<bf16>, tensor<bf16>\n'
            '      tg.yield %%d : tensor<bf16>\n'
            '    }\n'
            '    epilogue {}\n'
            '  return %%y : %s\n}\n' % (fn, args, sc, y, sc, x, w, y, weight, weight, y))


# ---------------------------------------------------------------------------
# Configurations of the GPU suite.

BASE = dict(B=2, Hq=2, Hkv=2, Sq=128, Skv=128, D=128, dtype="bf16")


def _adder(out, kind):
    def add(name, **kw):
        c = dict(BASE, kind=kind)
        c.update(kw)
        c["name"] = name
        out.append(c)
    return add


def forward_configs():
    """The NVRTC issue's grid (55 configurations)."""
    out = []
    add = _adder(out, "fwd")
    for dt in ("bf16", "f16"):
        for d in (64, 72, 80, 96, 128, 192, 256):
            add("hd%d_%s" % (d, dt), D=d, dtype=dt)
    for sq, skv in ((1, 1), (1, 17), (17, 17), (17, 128), (128, 1000), (1000, 1000), (1000, 128), (4096, 4096)):
        for causal in (None, "top_left", "bottom_right"):
            big = max(sq, skv) >= 1000
            add("s%dx%d_%s" % (sq, skv, causal or "full"), Sq=sq, Skv=skv, causal=causal,
                B=1 if big else 2, Hq=2 if big else 4, Hkv=1 if big else 2, D=64 if sq == 4096 else 128)
    for g in (1, 4, 8):
        add("gqa%d" % g, Hq=8, Hkv=8 // g, Sq=257, Skv=300)
    opt = dict(Sq=200, Skv=333)
    add("window_causal", causal="top_left", window=(64, None), **opt)
    add("window_both", window=(40, 24), **opt)
    add("bias", bias=True, **opt)
    add("softcap", softcap=30.0, **opt)
    add("alibi", alibi=True, Hq=4, Hkv=4, **opt)
    add("dropout_small", dropout=0.2, Sq=17, Skv=17)
    add("dropout", dropout=0.1, **opt)
    add("padding", padding=True, B=3, **opt)
    add("padding_causal_br", padding=True, causal="bottom_right", B=3, **opt)
    add("padding_kv_only_training", padding="kv", training=True, B=3, **opt)
    add("training", training=True, **opt)
    add("training_causal", training=True, causal="top_left", **opt)
    add("layout_bshd", layout="bshd", Hq=4, Hkv=2, **opt)
    add("layout_bshd_f16", layout="bshd", dtype="f16", **opt)
    add("everything", bias=True, softcap=20.0, alibi=True, padding=True, causal="bottom_right",
        dropout=0.1, training=True, Hq=4, Hkv=2, B=2, D=64, Sq=150, Skv=190)
    return out


def backward_configs():
    """Backward configurations, the shapes cuDNN's backward supports on
    Hopper (16-bit types, hd 64/128/256), S 128 and ~1000 (S_kv not a
    multiple of 128 exercises the padding workaround of cuDNN <= 9.15), GQA,
    and the options the composite backward graph takes.

    kind "bwd": tg.sdpa_grad alone on consistent inputs: q, k, v (and the
    options' inputs), o and stats come from a reference training forward
    (suite.py runs it first with `tg-run --ref`), do is random.
    kind "train": the training forward and tg.sdpa_grad in one function
    (outputs o, stats, dq, dk, dv), as a training step compiles."""
    out = []
    add = _adder(out, "bwd")
    for dt in ("bf16", "f16"):
        for d in (64, 128):
            for causal in (None, "top_left"):
                add("bwd_hd%d_%s_%s" % (d, dt, causal or "full"), D=d, dtype=dt, causal=causal)
    add("bwd_hd256_bf16", D=256, Sq=128, Skv=128, B=1)
    for causal in (None, "top_left"):
        add("bwd_s1000_%s" % (causal or "full"), Sq=1000, Skv=1000, B=1, Hq=2, Hkv=1, causal=causal)
    add("bwd_s1024_full", Sq=1024, Skv=1024, B=1, Hq=2, Hkv=2, D=64)
    add("bwd_s128x1000_bottom_right", Sq=128, Skv=1000, B=1, Hq=2, Hkv=2, causal="bottom_right")
    add("bwd_s1000x128_full", Sq=1000, Skv=128, B=1, Hq=2, Hkv=2)
    for g in (4, 8):
        add("bwd_gqa%d" % g, Hq=8, Hkv=8 // g, Sq=257, Skv=300, D=64)
    add("bwd_gqa4_causal_f16", Hq=8, Hkv=2, Sq=256, Skv=256, dtype="f16", causal="top_left")
    add("bwd_gqa2_s1000_f16", dtype="f16", Sq=1000, Skv=1000, B=1, Hq=4, Hkv=2, D=64)
    opt = dict(Sq=200, Skv=333)
    add("bwd_bias", bias=True, **opt)
    add("bwd_padding", padding=True, B=3, **opt)
    add("bwd_padding_causal_br", padding=True, causal="bottom_right", B=3, **opt)
    add("bwd_window_causal", causal="top_left", window=(64, None), **opt)
    add("bwd_softcap", softcap=30.0, **opt)
    add("bwd_alibi", alibi=True, Hq=4, Hkv=4, **opt)
    add("bwd_dropout", dropout=0.1, **opt)
    add("bwd_layout_bshd", layout="bshd", Hq=4, Hkv=2, **opt)
    train = _adder(out, "train")
    train("train_hd64_bf16_full", D=64)
    train("train_hd128_f16_causal", dtype="f16", causal="top_left")
    train("train_s1000_causal", Sq=1000, Skv=1000, B=1, Hq=2, Hkv=1, causal="top_left")
    train("train_gqa4", Hq=8, Hkv=2, Sq=257, Skv=300, D=64)
    train("train_padding_causal_br", padding=True, causal="bottom_right", B=3, Sq=200, Skv=333)
    train("train_padding_kv_only", padding="kv", B=3, Sq=200, Skv=333)
    train("train_layout_bshd", layout="bshd", Hq=4, Hkv=2, Sq=200, Skv=333)
    return out


def fused_backward_configs():
    """The backward configurations above plus every option of the fused
    NVRTC backward: head dims with pad columns, Dqk != Dv, MQA, windows,
    dropout with masks, Sq = 1 and odd lengths, score regions, dbias (suite
    --set fused, with --backend nvrtc --expect-fused)."""
    out = backward_configs()
    add = _adder(out, "bwd")
    train = _adder(out, "train")
    opt = dict(Sq=200, Skv=333)
    add("bwd_hd72_f16_causal", D=72, dtype="f16", causal="top_left", Sq=150, Skv=150)
    add("bwd_hd80_bf16_gqa2", D=80, Hq=4, Hkv=2, Sq=130, Skv=190)
    add("bwd_hd96_f16_window", D=96, dtype="f16", window=(40, 24), Sq=200, Skv=200)
    add("bwd_hd192_bf16_causal_br", D=192, causal="bottom_right", Sq=100, Skv=260, B=1)
    add("bwd_hd256_f16_causal", D=256, dtype="f16", causal="top_left", Sq=150, Skv=150, B=1)
    add("bwd_dqk128_dv64", D=128, Dv=64, Sq=140, Skv=170)
    add("bwd_mqa_causal", Hq=8, Hkv=1, D=64, causal="top_left", Sq=200, Skv=200, B=1)
    add("bwd_s1x333", Sq=1, Skv=333, Hq=4, Hkv=2)
    add("bwd_s17x17_f16", Sq=17, Skv=17, dtype="f16")
    add("bwd_dropout_causal_f16", dropout=0.2, causal="top_left", dtype="f16", **opt)
    add("bwd_dropout_padding_gqa", dropout=0.1, padding=True, Hq=4, Hkv=2, B=3, **opt)
    add("bwd_window_both", window=(40, 24), **opt)
    add("bwd_softcap_causal_br", softcap=20.0, causal="bottom_right", **opt)
    add("bwd_everything", bias=True, softcap=20.0, alibi=True, padding=True, causal="bottom_right",
        dropout=0.1, Hq=4, Hkv=2, B=2, D=64, Sq=150, Skv=190)
    train("train_softcap_causal", softcap=30.0, causal="top_left", Sq=200, Skv=200)
    train("train_alibi_causal_hd64", alibi=True, causal="top_left", D=64, Hq=4, Hkv=4, Sq=200, Skv=200)
    train("train_bias_f16", bias=True, dtype="f16", Sq=150, Skv=180)
    train("train_window_gqa", window=(64, 0), Hq=4, Hkv=2, Sq=300, Skv=300, B=1)
    train("train_dropout", dropout=0.1, Sq=200, Skv=200)
    train("train_hd256_causal", D=256, causal="bottom_right", Sq=100, Skv=150, B=1)
    train("train_everything", bias=True, softcap=20.0, alibi=True, padding=True, causal="bottom_right",
          dropout=0.1, Hq=4, Hkv=2, B=2, D=64, Sq=150, Skv=190)
    # A learnable bias: dbias (summed over the batch) from the fused kernel.
    add("bwd_bias_grad_causal", bias=True, bias_grad=True, causal="top_left", **opt)
    add("bwd_bias_grad_softcap_gqa_padding", bias=True, bias_grad=True, softcap=20.0, padding=True, Hq=4,
        Hkv=2, B=3, **opt)
    train("train_bias_grad", bias=True, bias_grad=True, causal="top_left", Sq=200, Skv=200)
    train("train_bias_grad_f16_dropout", bias=True, bias_grad=True, dtype="f16", dropout=0.1, Sq=150, Skv=180)
    # --deterministic: dQ added in kv-tile order (semaphores); tg-run
    # --repeat checks that every output is bitwise identical over runs.
    add("bwd_deterministic_causal_gqa", deterministic=True, causal="bottom_right", Hq=4, Hkv=2, B=2, Sq=700,
        Skv=900)
    add("bwd_deterministic_window_padding", deterministic=True, window=(100, 30), padding=True, B=3, Sq=500,
        Skv=500)
    # B = 1: the [1, Hq, Sq, Skv] bias has no broadcast dimension, so its
    # gradient is deterministic too.
    train("train_deterministic_bias_grad", deterministic=True, bias=True, bias_grad=True, causal="top_left",
          B=1, Sq=300, Skv=300)
    return out


def graph_text(c):
    if c["kind"] == "fwd":
        return sdpa_graph(c)
    if c["kind"] == "bwd":
        return sdpa_grad_graph(c)
    if c["kind"] == "train":
        return sdpa_fwd_bwd_graph(c)
    raise ValueError("unknown kind %r" % c["kind"])


def is_big(c):
    return max(c["Sq"], c["Skv"]) >= 1000
