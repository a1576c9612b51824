"""FP8 attention graphs for the GPU suite (--set fp8): tg.sdpa with e4m3 or
e5m2 q, k, v and fp8_scales, over the options the fused sm_90a FP8 kernel
takes (causal both ways, windows, padding, GQA, Sq != Skv, lengths that are
no tile multiple, training stats, fp8 / bf16 / f16 outputs) and a few it
refuses (hd 64, a score modifier), which the compiler expands with its
reason.

The six scales are given as inputs with the values an FP8 training recipe
uses (q, k, v at unit scale, P scaled into the format's range by scale_s
and back by descale_s, O at scale_o), not random ones: random descales
would make the scores and the outputs meaningless for an fp8 check. A
config sets scale_s / scale_o / descales to vary them."""
import os
import sys

import attention_graphs as ag

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Reference", "Inputs"))
import npy  # noqa: E402  (the lit tests' .npy reader and writer, no numpy)

FORMATS = {"e4m3": ("f8E4M3FN", 448.0), "e5m2": ("f8E5M2", 57344.0)}


def graph_text(c, fn="attention"):
    elem = FORMATS[c["fp8"]][0]
    out = c.get("out", elem)
    sig = ag._Sig(c)
    sh = ag.shapes(c)
    for n in ("q", "k", "v"):
        sig.arg(n, sh[n], elem)
    training = bool(c.get("training"))
    operands, attrs = ag._options(c, sig, training)
    for n in ag.FP8_SCALES:
        sig.args.append('%%%s: tensor<f32> {tg.name = "%s"}' % (n, n))
    operands += " fp8_scales(%s : %s)" % (", ".join("%" + n for n in ag.FP8_SCALES),
                                          ", ".join(["tensor<f32>"] * 6))
    amax = c.get("amax", True)
    sig.result("o", sh["o"], out)
    names, types = ["%o"], ag.ttype(sh["o"], out)
    if training:
        sig.result("stats", sh["stats"], "f32")
        names.append("%stats")
        types += ", " + ag.ttype(sh["stats"], "f32")
    if amax:
        sig.result("amax_s", [], "f32")
        sig.result("amax_o", [], "f32")
        names += ["%amax_s", "%amax_o"]
        types += " amax(tensor<f32>, tensor<f32>)"
    q, k, v = (ag.ttype(sh[n], elem) for n in ("q", "k", "v"))
    body = "  %s = tg.sdpa %%q, %%k, %%v %s {%s}\n      : %s, %s, %s -> %s\n" % (
        ", ".join(names), operands, attrs, q, k, v, types)
    return sig.function(fn, body).replace("tensor<xf32>", "tensor<f32>")


def scales(c):
    """descale_q, descale_k, descale_v, descale_s, scale_s, scale_o."""
    top = FORMATS[c["fp8"]][1]
    s = dict(descale_q=1.0, descale_k=1.0, descale_v=1.0, scale_s=top, descale_s=1.0 / top, scale_o=1.0)
    s.update(c.get("scales", {}))
    return s


def write_inputs(c, workdir):
    out = []
    for name, value in scales(c).items():
        path = os.path.join(workdir, "%s_%s.npy" % (c["name"], name))
        npy.save(path, (), [value])  # rank 0, float32
        out.append("--input=%s=%s" % (name, path))
    return out


def fp8_configs():
    out = []

    def add(name, fmt, D, B=2, Hq=4, Hkv=None, Sq=512, Skv=None, **kw):
        c = dict(kind="fp8", fp8=fmt, B=B, Hq=Hq, Hkv=Hkv or Hq, Sq=Sq, Skv=Skv or Sq, D=D, dtype="fp8")
        c.update(kw)
        c["name"] = "fp8_%s_d%d_%s" % (fmt, D, name)
        out.append(c)

    add("plain", "e4m3", 128)
    add("plain", "e5m2", 128)
    add("causal_s1000", "e4m3", 128, Sq=1000, causal="top_left")
    add("causal_br_sq300_skv777_bf16_out", "e5m2", 128, Sq=300, Skv=777, causal="bottom_right", out="bf16")
    add("gqa4_padding_training_bf16_out", "e4m3", 128, Hq=8, Hkv=2, Sq=640, padding=True, training=True,
        out="bf16")
    add("padding_kv_causal_f16_out", "e5m2", 128, Sq=384, Skv=500, padding="kv", causal="bottom_right", out="f16")
    add("window_128_0", "e4m3", 128, Sq=1024, window=(128, 0))
    add("window_64_32_no_amax", "e4m3", 128, Sq=700, window=(64, 32), amax=False)
    add("plain_s2048", "e4m3", 256, B=1, Hq=2, Sq=2048)
    add("causal_training_f16_out", "e4m3", 256, Sq=640, causal="top_left", training=True, out="f16")
    add("plain_e5m2_s384", "e5m2", 256, Sq=384)
    add("b1_h2_s4096", "e4m3", 128, B=1, Hq=2, Sq=4096, causal="top_left")
    # Other scales: a small scale_s (P near fp8's subnormals), descales
    # that are not 1, an output scale that saturates some outputs.
    add("scale_s_16_descales", "e4m3", 128, Sq=256,
        scales=dict(descale_q=0.5, descale_k=0.25, descale_v=2.0, scale_s=16.0, descale_s=1 / 16.0, scale_o=200.0))
    # Refused by the fused kernel (hd 64; a softcap region): expanded into
    # generic kernels with the reason, still checked.
    add("expanded_hd64", "e4m3", 64, Sq=256, expanded=True)
    add("expanded_softcap", "e4m3", 128, Sq=256, softcap=30.0, expanded=True)
    return out
