"""Ragged (packed, "THD") configurations of the GPU suite (`suite.py --set
ragged`): tg.sdpa with cu_seqlens_q / cu_seqlens_kv on the fused NVRTC
forward, checked against the CPU reference by `tg-run --check`.

  ragged_fwd   packed sequences of uneven lengths (tg-run's random offsets:
               every token used, none longer than max_seqlen), with causal
               top-left / bottom-right per sequence, windows, GQA, training
               stats [T, H, 1], softcap, bias broadcast to [B, H, maxq, maxkv],
               dropout, hd 64-256, bf16 and f16, Sq != Skv per sequence
  ragged_train training steps: tg.sdpa {training} + tg.sdpa_grad (the
               fused NVRTC backward with the offsets), GQA, Sq != Skv,
               window + dropout + softcap, a bias with its gradient, 30 short
               sequences, and an empty sequence and one without keys
  ragged_edge  offsets given as inputs: a zero-length sequence, one
               sequence of max_seqlen, and malformed offsets (negative,
               decreasing, past the end) that the kernel clamps as the
               reference does (TGOps.td); the gathersan-style memcheck run of
               this set shows that no access leaves the tensors"""
import os

import attention_graphs as ag

ttype = ag.ttype


def graph_text(c):
    r = c["ragged"]
    Tq, Tkv, B, Hq, Hkv, D, dt = c["Tq"], c["Tkv"], c["B"], c["Hq"], c["Hkv"], c["D"], c["dtype"]
    q, kv, o = ttype([Tq, Hq, D], dt), ttype([Tkv, Hkv, D], dt), ttype([Tq, Hq, D], dt)
    cu = ttype([B + 1], "i32")
    args = ['%%q: %s {tg.name = "q"}' % q, '%%k: %s {tg.name = "k"}' % kv, '%%v: %s {tg.name = "v"}' % kv,
            '%%cu_seqlens_q: %s {tg.name = "cu_seqlens_q"}' % cu, '%%cu_seqlens_kv: %s {tg.name = "cu_seqlens_kv"}' % cu]
    operands = ""
    if r.get("bias"):
        bias = ttype(r["bias"], "f32")
        args.append('%%bias: %s {tg.name = "bias"}' % bias)
        operands += " bias(%%bias : %s)" % bias
    if r.get("dropout"):
        args += ['%seed: tensor<i64> {tg.name = "seed"}', '%offset: tensor<i64> {tg.name = "offset"}']
    operands += " cu_seqlens_q(%%cu_seqlens_q : %s) cu_seqlens_kv(%%cu_seqlens_kv : %s)" % (cu, cu)
    if r.get("dropout"):
        operands += " seed(%seed) offset(%offset)"
    attrs = ["max_seqlen_q = %d : i64" % r["max_q"], "max_seqlen_kv = %d : i64" % r["max_kv"]]
    if r.get("causal"):
        attrs.append("causal = #tg<causal %s>" % r["causal"])
    for side in ("window_left", "window_right"):
        if side in r:
            attrs.append("%s = %d : i64" % (side, r[side]))
    if r.get("softcap"):
        attrs.append("softcap = %r : f64" % r["softcap"])
    if r.get("dropout"):
        attrs.append("dropout = %r : f64" % r["dropout"])
    results = [o]
    grad_attrs = list(attrs)
    if r.get("training") or r.get("train"):
        attrs.append("training")
        results.append(ttype([Tq, Hq, 1], "f32"))
    names = ["o", "lse"][:len(results)]
    body = ["  %s = tg.sdpa %%q, %%k, %%v%s {%s}" % (", ".join("%" + n for n in names), operands, ", ".join(attrs)),
            "      : %s, %s, %s -> %s" % (q, kv, kv, ", ".join(results))]
    if r.get("train"):
        # The backward of the same options (tg.sdpa_grad), dO an input.
        args.append('%%do: %s {tg.name = "do"}' % o)
        grads = ["dq", "dk", "dv"] + (["dbias"] if r.get("dbias") else [])
        dbias = " -> dbias %s" % ttype(r["bias"], "f32") if r.get("dbias") else ""
        body += ["  %s = tg.sdpa_grad %%q, %%k, %%v, %%o, %%do, %%lse%s {%s}"
                 % (", ".join("%" + n for n in grads), operands, ", ".join(grad_attrs)),
                 "      : %s, %s, %s, %s, %s, %s%s" % (q, kv, kv, o, o, results[1], dbias)]
        names += grads
        results += [q, kv, kv] + ([ttype(r["bias"], "f32")] if r.get("dbias") else [])
    ret = ", ".join('%s {tg.name = "%s"}' % (t, n) for t, n in zip(results, names))
    vals = ", ".join("%" + n for n in names)
    return "\n".join(["func.func @ragged(%s) -> (%s) {" % (", ".join(args), ret)] + body + [
        "  return %s : %s" % (vals, ", ".join(results)),
        "}", ""])


def write_inputs(c, workdir):
    """Explicit offsets (ragged_edge); the rest use tg-run's random ones."""
    import numpy as np
    out = []
    for side in ("q", "kv"):
        offsets = c["ragged"].get("cu_" + side)
        if offsets is None:
            continue
        path = os.path.join(workdir, "%s_cu_%s.npy" % (c["name"], side))
        np.save(path, np.array(offsets, np.int32))
        out.append("--input=cu_seqlens_%s=%s" % (side, path))
    return out


def ragged_configs():
    out = []

    def add(kind, name, Tq, Tkv, B, ragged, Hq=8, Hkv=8, D=128, dtype="bf16"):
        c = dict(kind=kind, name="%s_%s" % (kind, name), Tq=Tq, Tkv=Tkv, B=B, Hq=Hq, Hkv=Hkv, D=D,
                 dtype=dtype, ragged=ragged, Sq=ragged["max_q"], Skv=ragged["max_kv"])
        out.append(c)

    add("ragged_fwd", "plain_hd128", 900, 900, 5, dict(max_q=400, max_kv=400))
    add("ragged_fwd", "causal_top_left_training", 900, 900, 5,
        dict(max_q=400, max_kv=400, causal="top_left", training=True))
    add("ragged_fwd", "causal_bottom_right_gqa_q_neq_kv", 500, 1100, 4,
        dict(max_q=300, max_kv=600, causal="bottom_right", training=True), Hq=8, Hkv=2)
    add("ragged_fwd", "window_f16_hd64", 1000, 1000, 6,
        dict(max_q=350, max_kv=350, causal="bottom_right", window_left=64), D=64, dtype="f16")
    add("ragged_fwd", "softcap_bias_hd256", 600, 600, 3,
        dict(max_q=300, max_kv=300, softcap=30.0, bias=[1, 8, 300, 300]), D=256)
    add("ragged_fwd", "dropout_training_hd96", 700, 700, 4,
        dict(max_q=300, max_kv=300, dropout=0.1, training=True, causal="top_left"), D=96)
    add("ragged_fwd", "many_short_hd64", 1500, 1500, 40, dict(max_q=64, max_kv=64, causal="top_left"), D=64)
    add("ragged_fwd", "long_f16_gqa_hd128", 2600, 2600, 3,
        dict(max_q=1500, max_kv=1500, causal="bottom_right", training=True), Hq=16, Hkv=4, dtype="f16")
    # Training steps: tg.sdpa {training} + tg.sdpa_grad on the fused NVRTC
    # backward (dq, dk, dv, dbias against the reference).
    add("ragged_train", "causal_bottom_right_gqa_hd128", 700, 900, 4,
        dict(max_q=300, max_kv=400, causal="bottom_right", train=True), Hq=8, Hkv=2)
    add("ragged_train", "plain_f16_hd64", 800, 800, 5, dict(max_q=300, max_kv=300, train=True),
        D=64, dtype="f16")
    add("ragged_train", "window_dropout_softcap_hd96", 600, 600, 3,
        dict(max_q=300, max_kv=300, causal="top_left", window_left=48, dropout=0.1, softcap=20.0,
             train=True), D=96)
    add("ragged_train", "bias_dbias_hd64", 500, 500, 3,
        dict(max_q=250, max_kv=250, bias=[1, 4, 250, 250], dbias=True, train=True), Hq=4, Hkv=4, D=64)
    add("ragged_train", "many_short_hd128", 1200, 1200, 30,
        dict(max_q=64, max_kv=64, causal="top_left", train=True), Hq=4, Hkv=4)
    add("ragged_train", "edge_empty_and_no_keys", 400, 400, 4,
        dict(max_q=200, max_kv=200, causal="bottom_right", train=True,
             cu_q=[0, 0, 200, 330, 400], cu_kv=[0, 50, 250, 250, 400]))
    # Edge cases with explicit offsets.
    add("ragged_edge", "empty_and_full", 400, 400, 4,
        dict(max_q=200, max_kv=200, causal="bottom_right", training=True,
             cu_q=[0, 0, 200, 330, 400], cu_kv=[0, 50, 250, 250, 400]))
    add("ragged_edge", "malformed_offsets", 300, 300, 4,
        dict(max_q=300, max_kv=300, causal="top_left", training=True,
             # clamped (TGOps.td): q [0, 0), [0, 120), [120, 300), [300, 300);
             # kv [5, 5), [0, 140), [140, 140) (its 180 rows see no key:
             # zeros, -inf stats), [140, 300)
             cu_q=[-7, 0, 120, 300, 250], cu_kv=[5, 0, 140, 140, 999]))
    return out
