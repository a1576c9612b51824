"""Gather configurations of the GPU suite (`suite.py --set gather`).

Score regions that read tables at computed indices (tg.gather of table
captures, docs/dialect.md), on the NVRTC attention kernel, checked against
the CPU reference by `tg-run --check`:

  gather_relbias  s + table[h, q - kv + off]: in range, clamped past both
                  ends, fill 0 and fill -inf (a band mask written as a table)
  gather_t5       T5's bucketed relative positions (log buckets) and an
                  embedding lookup table[bucket, h]
  gather_doc      packed documents doc[b, q] == doc[b, kv] (+ causal): the
                  document mask the kernel narrows its key range with; 8
                  documents per sequence, uneven lengths, unsorted ids, ids
                  read past the table (clamped)
  gather_prefix   prefix-LM: kv < prefix[b] or kv <= q
  gather_index    an index tensor given as input with out-of-range values
                  (negative, past the end): the clamp on the GPU
  gather_train    training steps: tg.attention {training} + tg.attention_grad
                  of a relative bias on the fused backward, which reads the
                  table; the _grad rows also return the table's gradient
                  (scatter-added where each score read, clamped; nothing
                  for a fill read), one with a document mask
  gather_t5graph  T5's compute_bias written as graph ops (as HF writes it),
                  fused by tg-fuse-attention into region gathers

Inputs that need values of their own (document ids, prefix lengths, index
tensors) are written as .npy files by `write_inputs`; the rest are tg-run's
random inputs (tables: normal floats)."""
import math
import os

import attention_graphs as ag

ttype = ag.ttype


def _dims(c):
    return c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Skv"], c["D"], c["dtype"]


def _attention(c, captures, region, attrs="", training=False, name="attention"):
    """A function with q, k, v and `captures` [(name, shape, elem[,
    "element"])] as arguments (table captures unless marked "element") and
    one tg.attention whose score region body is `region`
    (lines using %s, %b, %h, %qi, %ki and %<capture name>, ending in a
    value %z)."""
    B, Hq, Hkv, Sq, Skv, D, dt = _dims(c)
    q, kv, o = ttype([B, Hq, Sq, D], dt), ttype([B, Hkv, Skv, D], dt), ttype([B, Hq, Sq, D], dt)
    stats = ttype([B, Hq, Sq, 1], "f32")
    args = ['%%q: %s {tg.name = "q"}' % q, '%%k: %s {tg.name = "k"}' % kv, '%%v: %s {tg.name = "v"}' % kv]
    args += ['%%%s: %s {tg.name = "%s"}' % (cap[0], ttype(cap[1], cap[2]), cap[0]) for cap in captures]
    cap_types = ", ".join(ttype(cap[1], cap[2]) for cap in captures)
    cap_text = " captures(%s : %s)" % (", ".join("%" + cap[0] for cap in captures), cap_types) if captures else ""

    def arg_type(cap):
        return "tensor<%s>" % cap[2] if len(cap) > 3 and cap[3] == "element" else ttype(cap[1], cap[2])
    block_args = ", ".join(["%s: tensor<f32>", "%b: tensor<i64>", "%h: tensor<i64>", "%qi: tensor<i64>",
                            "%ki: tensor<i64>"] + ["%%t_%s: %s" % (cap[0], arg_type(cap)) for cap in captures])
    attr_list = [a for a in [attrs, "training" if training else ""] if a]
    attr_text = " {%s}" % ", ".join(attr_list) if attr_list else ""
    results = [('o', o)] + ([('stats', stats)] if training else [])
    res_decl = ", ".join('%s {tg.name = "%s"}' % (t, n) for n, t in results)
    res_names = ", ".join("%" + n for n, _ in results)
    res_types = ", ".join(t for _, t in results)
    lines = ["func.func @%s(%s) -> (%s) {" % (name, ", ".join(args), res_decl),
             "  %s = tg.attention %%q, %%k, %%v%s%s : %s, %s, %s -> %s score {"
             % (res_names, cap_text, attr_text, q, kv, kv, res_types),
             "  ^bb0(%s):" % block_args]
    lines += ["    " + l for l in region]
    lines += ["    tg.yield %z : tensor<f32>", "  }", "  return %s : %s" % (res_names, res_types), "}"]
    return "\n".join(lines) + "\n"


def _relbias_region(c):
    g = c["gather"]
    fill = " fill(%s)" % g["fill"] if g.get("fill") else ""
    return ["%d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>",
            "%%off = tg.constant dense<%d> : tensor<i64>" % g["offset"],
            "%r = tg.add %d, %off : tensor<i64>, tensor<i64>",
            "%%e = tg.gather %%t_table[%%h, %%r]%s : %s[tensor<i64>, tensor<i64>]"
            % (fill, ttype(g["table"], g["elem"])),
            ("%%e32 = tg.cast %%e : tensor<%s> to tensor<f32>" % g["elem"]) if g["elem"] != "f32"
            else "%e32 = tg.add %e, %zero : tensor<f32>, tensor<f32>",
            "%z = tg.add %s, %e32 : tensor<f32>, tensor<f32>"]


def t5_bucket_ops(num_buckets, max_distance):
    """The region ops of HF T5's bidirectional _relative_position_bucket of
    kv_idx - q_idx, ending in %bucket (i64); bench/bench_gather.py uses them too."""
    half = num_buckets // 2
    exact = half // 2
    den = math.log(max_distance / exact)
    return ["%rel = tg.sub %ki, %qi : tensor<i64>, tensor<i64>",
            "%c0 = tg.constant dense<0> : tensor<i64>",
            "%pos = tg.cmp gt, %rel, %c0 : tensor<i64>, tensor<i64>",
            "%posl = tg.cast %pos : tensor<i1> to tensor<i64>",
            "%%half = tg.constant dense<%d> : tensor<i64>" % half,
            "%base = tg.mul %posl, %half : tensor<i64>, tensor<i64>",
            "%n = tg.abs %rel : tensor<i64>",
            "%%exact = tg.constant dense<%d> : tensor<i64>" % exact,
            "%small = tg.cmp lt, %n, %exact : tensor<i64>, tensor<i64>",
            "%nf = tg.cast %n : tensor<i64> to tensor<f32>",
            "%%exactf = tg.constant dense<%s> : tensor<f32>" % float(exact),
            "%ratio = tg.div %nf, %exactf : tensor<f32>, tensor<f32>",
            "%l = tg.log %ratio : tensor<f32>",
            "%%den = tg.constant dense<%.9g> : tensor<f32>" % den,
            "%l2 = tg.div %l, %den : tensor<f32>, tensor<f32>",
            "%%span = tg.constant dense<%s> : tensor<f32>" % float(half - exact),
            "%l3 = tg.mul %l2, %span : tensor<f32>, tensor<f32>",
            "%li = tg.cast %l3 : tensor<f32> to tensor<i64>",
            "%large = tg.add %exact, %li : tensor<i64>, tensor<i64>",
            "%%top = tg.constant dense<%d> : tensor<i64>" % (half - 1),
            "%largec = tg.min %large, %top : tensor<i64>, tensor<i64>",
            "%pick = tg.select %small, %n, %largec : tensor<i1>, tensor<i64>, tensor<i64>",
            "%bucket = tg.add %base, %pick : tensor<i64>, tensor<i64>"]


def _t5_region(c):
    g = c["gather"]
    return t5_bucket_ops(g["num_buckets"], g["max_distance"]) + [
        "%%e = tg.gather %%t_table[%%bucket, %%h] : %s[tensor<i64>, tensor<i64>]" % ttype(g["table"], g["elem"]),
        ("%%e32 = tg.cast %%e : tensor<%s> to tensor<f32>" % g["elem"]) if g["elem"] != "f32"
        else "%e32 = tg.add %e, %c0f : tensor<f32>, tensor<f32>",
        "%z = tg.add %s, %e32 : tensor<f32>, tensor<f32>"]


def _doc_region(c):
    t = ttype(c["gather"]["table"], "i32")
    return ["%%dq = tg.gather %%t_doc[%%b, %%qi] : %s[tensor<i64>, tensor<i64>]" % t,
            "%%dk = tg.gather %%t_doc[%%b, %%ki] : %s[tensor<i64>, tensor<i64>]" % t,
            "%same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>",
            "%ninf = tg.constant dense<0xFF800000> : tensor<f32>",
            "%z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>"]


def _prefix_region(c):
    return ["%%len = tg.gather %%t_prefix[%%b] : tensor<%dxi64>[tensor<i64>]" % c["B"],
            "%inprefix = tg.cmp lt, %ki, %len : tensor<i64>, tensor<i64>",
            "%causal = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>",
            "%vis = tg.select %inprefix, %inprefix, %causal : tensor<i1>, tensor<i1>, tensor<i1>",
            "%ninf = tg.constant dense<0xFF800000> : tensor<f32>",
            "%z = tg.select %vis, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>"]


def _index_region(c):
    g = c["gather"]
    return ["%%e = tg.gather %%t_table[%%t_index, %%h] : %s[tensor<i64>, tensor<i64>]" % ttype(g["table"], "f32"),
            "%z = tg.add %s, %e : tensor<f32>, tensor<f32>"]


def _fix_zero(region):
    # f32 tables: "%e32 = e + 0" needs the zero constant.
    return ["%zero = tg.constant dense<0.0> : tensor<f32>", "%c0f = tg.constant dense<0.0> : tensor<f32>"] + region


def _train_graph(c):
    """tg.attention {training} and its tg.attention_grad on a relative bias
    table (score_grad empty: the bias is additive); with `table_grad` the
    step also returns the table's gradient (grad_captures), with `docs` a
    document mask from an i32 id table is applied after the bias."""
    B, Hq, Hkv, Sq, Skv, D, dt = _dims(c)
    g = c["gather"]
    q, kv, o = ttype([B, Hq, Sq, D], dt), ttype([B, Hkv, Skv, D], dt), ttype([B, Hq, Sq, D], dt)
    stats = ttype([B, Hq, Sq, 1], "f32")
    elem = g.get("elem", "f32")
    table = ttype(g["table"], elem)
    docs = "docs" in g
    doc = ttype([B, Skv], "i32")
    fill = " fill(%s)" % g["fill"] if g.get("fill") else ""
    block_args = "%%s: tensor<f32>, %%b: tensor<i64>, %%h: tensor<i64>, %%qi: tensor<i64>, %%ki: tensor<i64>, %%t: %s" % table
    if docs:
        block_args += ", %%ids: %s" % doc
    region = ["^bb0(%s):" % block_args,
              "  %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>",
              "  %%off = tg.constant dense<%d> : tensor<i64>" % g["offset"],
              "  %r = tg.add %d, %off : tensor<i64>, tensor<i64>",
              "  %%e = tg.gather %%t[%%h, %%r]%s : %s[tensor<i64>, tensor<i64>]" % (fill, table)]
    biased = "%z0" if docs else "%z"
    if elem != "f32":
        region += ["  %%e32 = tg.cast %%e : tensor<%s> to tensor<f32>" % elem,
                   "  %s = tg.add %%s, %%e32 : tensor<f32>, tensor<f32>" % biased]
    else:
        region += ["  %s = tg.add %%s, %%e : tensor<f32>, tensor<f32>" % biased]
    if docs:
        region += ["  %%dq = tg.gather %%ids[%%b, %%qi] : %s[tensor<i64>, tensor<i64>]" % doc,
                   "  %%dk = tg.gather %%ids[%%b, %%ki] : %s[tensor<i64>, tensor<i64>]" % doc,
                   "  %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>",
                   "  %ninf = tg.constant dense<0xFF800000> : tensor<f32>",
                   "  %z = tg.select %same, %z0, %ninf : tensor<i1>, tensor<f32>, tensor<f32>"]
    region += ["  tg.yield %z : tensor<f32>"]
    # The usual 1/sqrt(D) scale. At scale 1 the scores of random inputs are
    # so large that dq and dk reach |24|: the forward's o (bf16) is one bf16
    # step off the reference's in places, delta = rowsum(dO * o) carries that
    # into every dS = P (dP - delta) of the row, and P.K multiplies it to
    # several bf16 steps of dq (measured on the H200: 156 of 65536 elements
    # beyond tolerance, the expanded graph matching the reference in the
    # interpreter). The same holds for any backward fed a bf16 o.
    scale = "scale = %s : f64" % repr(float(D) ** -0.5)
    attrs = ", ".join(a for a in ["causal = #tg<causal top_left>" if c.get("causal") else "", scale] if a)
    grad = bool(c.get("table_grad"))
    cap_names = "%table" + (", %doc" if docs else "")
    cap_types = table + (", " + doc if docs else "")
    args = ('%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}, %%do: %s {tg.name = "do"}, '
            '%%table: %s {tg.name = "table"}' % (q, kv, kv, o, table))
    if docs:
        args += ', %%doc: %s {tg.name = "doc"}' % doc
    res = [("o", o), ("stats", stats), ("dq", q), ("dk", kv), ("dv", kv)] + ([("dtable", table)] if grad else [])
    lines = ["func.func @attention_train(%s) -> (%s) {"
             % (args, ", ".join('%s {tg.name = "%s"}' % (t, n) for n, t in res)),
             "  %%o, %%stats = tg.attention %%q, %%k, %%v captures(%s : %s) {%s} : %s, %s, %s -> %s, %s score {"
             % (cap_names, cap_types, ", ".join(a for a in [attrs, "training"] if a), q, kv, kv, o, stats)]
    lines += ["  " + l for l in region] + ["  }"]
    grad_attrs = [a for a in [attrs, "grad_captures = array<i64: 0>" if grad else ""] if a]
    lines += ["  %%dq, %%dk, %%dv%s = tg.attention_grad %%q, %%k, %%v, %%o, %%do, %%stats captures(%s : %s)%s "
              ": %s, %s, %s, %s, %s, %s score {"
              % (", %dtable" if grad else "", cap_names, cap_types,
                 " {%s}" % ", ".join(grad_attrs) if grad_attrs else "", q, kv, kv, o, o, stats)]
    lines += ["  " + l for l in region] + ["  } score_grad {", "  }" + (" capture_grads(%s)" % table if grad else "")]
    lines += ["  return %s : %s" % (", ".join("%" + n for n, _ in res), ", ".join(t for _, t in res)), "}"]
    return "\n".join(lines) + "\n"


def _prefix_train_graph(c):
    """tg.attention {training} and its tg.attention_grad under the prefix-LM
    mask: the fused kernels end each query tile's keys (forward) and start
    each key tile's query rows (backward) at the region's key bound."""
    B, Hq, Hkv, Sq, Skv, D, dt = _dims(c)
    q, kv, o = ttype([B, Hq, Sq, D], dt), ttype([B, Hkv, Skv, D], dt), ttype([B, Hq, Sq, D], dt)
    stats, pre = ttype([B, Hq, Sq, 1], "f32"), ttype([B], "i64")
    region = ["^bb0(%%s: tensor<f32>, %%b: tensor<i64>, %%h: tensor<i64>, %%qi: tensor<i64>, %%ki: tensor<i64>, "
              "%%t_prefix: %s):" % pre] + ["  " + l for l in _prefix_region(c)] + ["  tg.yield %z : tensor<f32>"]
    attrs = "scale = %s : f64" % repr(float(D) ** -0.5)
    res = [("o", o), ("stats", stats), ("dq", q), ("dk", kv), ("dv", kv)]
    lines = ['func.func @attention_train(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}, '
             '%%do: %s {tg.name = "do"}, %%prefix: %s {tg.name = "prefix"}) -> (%s) {'
             % (q, kv, kv, o, pre, ", ".join('%s {tg.name = "%s"}' % (t, n) for n, t in res)),
             "  %%o, %%stats = tg.attention %%q, %%k, %%v captures(%%prefix : %s) {%s, training} : %s, %s, %s -> %s, %s "
             "score {" % (pre, attrs, q, kv, kv, o, stats)]
    lines += ["  " + l for l in region] + ["  }"]
    lines += ["  %%dq, %%dk, %%dv = tg.attention_grad %%q, %%k, %%v, %%o, %%do, %%stats captures(%%prefix : %s) {%s} "
              ": %s, %s, %s, %s, %s, %s score {" % (pre, attrs, q, kv, kv, o, o, stats)]
    lines += ["  " + l for l in region] + ["  } score_grad {", "  }"]
    lines += ["  return %s : %s" % (", ".join("%" + n for n, _ in res), ", ".join(t for _, t in res)), "}"]
    return "\n".join(lines) + "\n"


def _t5_graph(c):
    """T5's compute_bias as HF writes it (gen_index arithmetic, an embedding
    tg.gather, permute, unsqueeze) added to the scores, bf16 attention with
    the softmax in f32; tg-fuse-attention moves it into the region."""
    B, Hq, Hkv, Sq, Skv, D, dt = _dims(c)
    g = c["gather"]
    nb, md = g["num_buckets"], g["max_distance"]
    half, exact = nb // 2, nb // 4
    import math
    S2 = ttype([Sq, Skv], "i64")
    S2f = ttype([Sq, Skv], "f32")
    emb = ttype([nb, Hq], "f32")
    q, k = ttype([B, Hq, Sq, D], dt), ttype([B, Hq, Skv, D], dt)
    kt = ttype([B, Hq, D, Skv], dt)
    s = ttype([B, Hq, Sq, Skv], dt)
    sf = ttype([B, Hq, Sq, Skv], "f32")
    lines = ['func.func @t5_compute_bias(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}, '
             '%%emb: %s {tg.name = "relative_attention_bias"}) -> (%s {tg.name = "o"}) {' % (q, k, k, emb, q),
             "  %%ctx = tg.gen_index axis = 0 : %s" % ttype([Sq, 1], "i64"),
             "  %%mem = tg.gen_index axis = 1 : %s" % ttype([1, Skv], "i64"),
             "  %%rel = tg.sub %%mem, %%ctx : %s, %s" % (ttype([1, Skv], "i64"), ttype([Sq, 1], "i64")),
             "  %zero = tg.constant dense<0> : tensor<i64>",
             "  %%pos = tg.cmp gt, %%rel, %%zero : %s, tensor<i64>" % S2,
             "  %%posl = tg.cast %%pos : %s to %s" % (ttype([Sq, Skv], "i1"), S2),
             "  %%half = tg.constant dense<%d> : tensor<i64>" % half,
             "  %%base = tg.mul %%posl, %%half : %s, tensor<i64>" % S2,
             "  %%n = tg.abs %%rel : %s" % S2,
             "  %%exact = tg.constant dense<%d> : tensor<i64>" % exact,
             "  %%small = tg.cmp lt, %%n, %%exact : %s, tensor<i64>" % S2,
             "  %%nf = tg.cast %%n : %s to %s" % (S2, S2f),
             "  %%exactf = tg.constant dense<%s> : tensor<f32>" % float(exact),
             "  %%ratio = tg.div %%nf, %%exactf : %s, tensor<f32>" % S2f,
             "  %%l = tg.log %%ratio : %s" % S2f,
             "  %%den = tg.constant dense<%.9g> : tensor<f32>" % math.log(md / exact),
             "  %%l2 = tg.div %%l, %%den : %s, tensor<f32>" % S2f,
             "  %%span = tg.constant dense<%s> : tensor<f32>" % float(half - exact),
             "  %%l3 = tg.mul %%l2, %%span : %s, tensor<f32>" % S2f,
             "  %%li = tg.cast %%l3 : %s to %s" % (S2f, S2),
             "  %%large = tg.add %%exact, %%li : tensor<i64>, %s" % S2,
             "  %%top = tg.constant dense<%d> : tensor<i64>" % (half - 1),
             "  %%largec = tg.min %%large, %%top : %s, tensor<i64>" % S2,
             "  %%pick = tg.select %%small, %%n, %%largec : %s, %s, %s" % (ttype([Sq, Skv], "i1"), S2, S2),
             "  %%bucket = tg.add %%base, %%pick : %s, %s" % (S2, S2),
             "  %%b3 = tg.reshape %%bucket : %s -> %s" % (S2, ttype([Sq, Skv, 1], "i64")),
             "  %%heads = tg.gen_index axis = 2 : %s" % ttype([1, 1, Hq], "i64"),
             "  %%values = tg.gather %%emb[%%b3, %%heads] : %s[%s, %s]"
             % (emb, ttype([Sq, Skv, 1], "i64"), ttype([1, 1, Hq], "i64")),
             "  %%vt = tg.transpose %%values perm = [2, 0, 1] : %s -> %s"
             % (ttype([Sq, Skv, Hq], "f32"), ttype([Hq, Sq, Skv], "f32")),
             "  %%bias = tg.reshape %%vt : %s -> %s" % (ttype([Hq, Sq, Skv], "f32"), ttype([1, Hq, Sq, Skv], "f32")),
             "  %%kt = tg.transpose %%k perm = [0, 1, 3, 2] : %s -> %s" % (k, kt),
             "  %%scores = tg.matmul %%q, %%kt : %s, %s -> %s" % (q, kt, s),
             "  %%sf = tg.cast %%scores : %s to %s" % (s, sf),
             "  %%z = tg.add %%sf, %%bias : %s, %s" % (sf, ttype([1, Hq, Sq, Skv], "f32")),
             "  %%p = tg.softmax %%z axis = 3 : %s" % sf,
             "  %%pb = tg.cast %%p : %s to %s" % (sf, s),
             "  %%o = tg.matmul %%pb, %%v : %s, %s -> %s" % (s, k, q),
             "  return %%o : %s" % q, "}"]
    return "\n".join(lines) + "\n"


def graph_text(c):
    g = c["gather"]
    kind = c["kind"]
    attrs = "causal = #tg<causal top_left>" if c.get("causal") else ""
    if kind == "gather_relbias":
        return _attention(c, [("table", g["table"], g["elem"])], _fix_zero(_relbias_region(c)), attrs)
    if kind == "gather_t5":
        return _attention(c, [("table", g["table"], g["elem"])], _fix_zero(_t5_region(c)), attrs)
    if kind == "gather_doc":
        return _attention(c, [("doc", g["table"], "i32")], _doc_region(c), attrs, training=c.get("training", False))
    if kind == "gather_prefix":
        if c.get("train"):
            return _prefix_train_graph(c)
        return _attention(c, [("prefix", [c["B"]], "i64")], _prefix_region(c), attrs)
    if kind == "gather_index":
        return _attention(c, [("table", g["table"], "f32"), ("index", [1, 1, c["Sq"], c["Skv"]], "i64", "element")],
                          _index_region(c), attrs)
    if kind == "gather_train":
        return _train_graph(c)
    if kind == "gather_t5graph":
        return _t5_graph(c)
    raise ValueError("unknown kind %r" % kind)


def document_ids(c):
    """[B, S] int32 document ids: `docs` documents of uneven lengths per row
    (sorted), or interleaved blocks (unsorted)."""
    import numpy as np
    g = c["gather"]
    B, S = (c["B"], c["Skv"]) if c["kind"] == "gather_train" else g["table"]
    rng = np.random.default_rng(7)
    ids = np.zeros((B, S), np.int32)
    for b in range(B):
        cuts = np.sort(rng.choice(np.arange(1, min(S, c["Sq"], c["Skv"])), g["docs"] - 1, replace=False))
        row = np.searchsorted(cuts, np.arange(S), side="right").astype(np.int32)
        if g.get("unsorted"):
            row = (row * 5 + 3) % g["docs"]  # the same documents, ids out of order
            row[np.arange(S) % 97 == 13] = g["docs"] + 1  # scattered tokens of another one
        ids[b] = row + 100 * b
    return ids


def write_inputs(c, workdir):
    import numpy as np
    g = c["gather"]
    out = []
    if c["kind"] == "gather_doc" or (c["kind"] == "gather_train" and "docs" in g):
        path = os.path.join(workdir, c["name"] + "_doc.npy")
        np.save(path, document_ids(c))
        out.append("--input=doc=" + path)
    if c["kind"] == "gather_prefix":
        path = os.path.join(workdir, c["name"] + "_prefix.npy")
        np.save(path, np.array(g["prefix"], np.int64))
        out.append("--input=prefix=" + path)
    if c["kind"] == "gather_index":
        rng = np.random.default_rng(11)
        rows = g["table"][0]
        # In range, negative and past the end (clamped to 0 and rows - 1).
        index = rng.integers(-rows, 2 * rows, size=(1, 1, c["Sq"], c["Skv"])).astype(np.int64)
        path = os.path.join(workdir, c["name"] + "_index.npy")
        np.save(path, index)
        out.append("--input=index=" + path)
    return out


def gather_configs():
    out = []
    base = dict(B=2, Hq=8, Hkv=4, Sq=300, Skv=300, D=64, dtype="bf16")

    def add(kind, name, gather, **kw):
        c = dict(base, kind=kind, gather=gather)
        c.update(kw)
        c["name"] = "%s_%s" % (kind, name)
        out.append(c)

    S = base["Sq"]
    # Relative bias tables [H, 2S-1] read at q - kv + S - 1, and windows of it.
    add("gather_relbias", "full_f32", dict(table=[8, 2 * S - 1], elem="f32", offset=S - 1))
    add("gather_relbias", "full_bf16_causal", dict(table=[8, 2 * S - 1], elem="bf16", offset=S - 1), causal=True)
    add("gather_relbias", "clamp_both_ends", dict(table=[8, 129], elem="f32", offset=64))
    add("gather_relbias", "fill0", dict(table=[8, 129], elem="f32", offset=64, fill="0.0"))
    add("gather_relbias", "fill_ninf_band", dict(table=[8, 65], elem="f32", offset=32, fill="-inf"))
    add("gather_relbias", "f16_d128_gqa8", dict(table=[16, 2 * 513 - 1], elem="f16", offset=512),
        dtype="f16", Hq=16, Hkv=2, Sq=513, Skv=513, D=128)
    add("gather_relbias", "sq_ne_skv", dict(table=[8, 700], elem="f32", offset=400), Sq=257, Skv=400)
    # T5 buckets.
    # max_distance 100, not T5's 128: with 128, n = 16, 32, 64 sit exactly on
    # bucket boundaries (log(2^k) / log(16) * 8 = 2k), where one ulp of logf
    # against the reference's correctly rounded log may pick the other bucket.
    add("gather_t5", "bidirectional_32_100", dict(table=[32, 8], elem="f32", num_buckets=32, max_distance=100))
    add("gather_t5", "bf16_table_causal_d128", dict(table=[32, 8], elem="bf16", num_buckets=32, max_distance=100),
        causal=True, D=128, Sq=1000, Skv=1000, B=1)
    # Document masks (the kernel's key-range narrowing).
    add("gather_doc", "8docs_causal", dict(table=[2, S], docs=8), causal=True)
    add("gather_doc", "8docs_noncausal", dict(table=[2, S], docs=8))
    add("gather_doc", "3docs_training_d128", dict(table=[2, S], docs=3), causal=True, training=True, D=128)
    add("gather_doc", "unsorted_ids", dict(table=[2, S], docs=6, unsorted=True), causal=True)
    add("gather_doc", "short_table_clamped", dict(table=[2, 200], docs=4))
    add("gather_doc", "8docs_2048", dict(table=[1, 2048], docs=8), causal=True, B=1, Sq=2048, Skv=2048)
    # Training steps: the fused backward narrows each CTA's query rows too.
    add("gather_doc", "8docs_training_noncausal_gqa", dict(table=[2, S], docs=8), training=True, Hq=4, Hkv=2)
    add("gather_doc", "unsorted_training_1000", dict(table=[1, 1000], docs=7, unsorted=True), causal=True,
        training=True, B=1, Sq=1000, Skv=1000)
    # Prefix-LM: each query tile's keys end at its key bound max(prefix[b],
    # last row + 1), each key tile's query rows start at the first row that
    # may see it (prefixes past a tile's start, inside one, none).
    add("gather_prefix", "prefix", dict(prefix=[100, 0]))
    add("gather_prefix", "prefix_1000_gqa4_d128", dict(prefix=[300, 0]), Sq=1000, Skv=1000, Hq=8, Hkv=2, D=128)
    add("gather_prefix", "train_prefix_d128", dict(prefix=[257, 40]), train=True, Sq=700, Skv=700, D=128)
    add("gather_prefix", "train_prefix_deterministic", dict(prefix=[300, 1]), train=True, deterministic=True,
        Sq=500, Skv=500)
    # Out-of-range index tensors (the clamp).
    add("gather_index", "oob_clamp", dict(table=[40, 8]))
    # A training step through the expanded backward.
    add("gather_train", "relbias_causal", dict(table=[8, 2 * 128 - 1], offset=127), causal=True,
        Sq=128, Skv=128, Hq=4, Hkv=4)
    # Training steps on the fused backward that return the table's gradient
    # (scatter-added with f32 atomics, rounded to the table's type): a bf16
    # table, GQA, with a document mask; a short f32 table whose reads clamp
    # past both ends (the end columns collect every clamped score); a fill
    # read (out of range adds nothing).
    add("gather_train", "relbias_grad_bf16_docs_gqa", dict(table=[8, 2 * S - 1], elem="bf16", offset=S - 1,
                                                           docs=4), causal=True, table_grad=True)
    add("gather_train", "relbias_grad_clamped_f32", dict(table=[8, 101], offset=50), table_grad=True,
        Sq=200, Skv=200, D=128)
    add("gather_train", "relbias_grad_fill_f16", dict(table=[4, 129], elem="f16", offset=64, fill="0.0"),
        table_grad=True, dtype="f16", Hq=4, Hkv=2, Sq=160, Skv=240)
    # --deterministic with a document mask: the backward's query tiles stay
    # the masks' (the dQ turns count every kv tile that may see one; narrowed
    # to the documents, a turn waited for kv tiles that never came: a hang);
    # repeated runs bitwise identical.
    add("gather_train", "deterministic_relbias_docs", dict(table=[8, 1199], offset=599, docs=6), causal=True,
        deterministic=True, Sq=600, Skv=600)
    # T5's compute_bias in graph form, fused.
    add("gather_t5graph", "fused", dict(num_buckets=32, max_distance=100), Hq=8, Hkv=8, Sq=257, Skv=257)
    return out
