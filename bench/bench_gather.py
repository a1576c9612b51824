#!/usr/bin/env python3
"""Benchmark (not a test): score regions that read tables at computed indices
(tg.gather of table captures) against FlexAttention with the same
score_mod / mask_mod, forward, bf16, on an H200:

  relbias   score + table[h, q_idx - kv_idx + S - 1]       (table [H, 2S-1], f32)
  t5        score + emb[bucket(kv_idx - q_idx), h]         (T5's log buckets, 32 buckets,
                                                            max distance 128; emb [32, H])
  document  doc[b, q_idx] == doc[b, kv_idx] and causal     (8 documents per 8k sequence,
                                                            uneven lengths)
  prefix    kv_idx < prefix[b] or kv_idx <= q_idx          (prefix-LM, prefix S/4: the kernels'
                                                            key bound skips the tiles past it)
  causal / dense: tgc without a score region, for the document mask's
            "dense time x visible fraction" yardstick
  train_relbias / train_relbias_dtable / train_t5: a training step (forward
            + backward) with the relative-bias table (T5's buckets) and
            causal; tgc runs tg.attention
            {training} + tg.attention_grad in one plan (the fused backward
            reads the table), FlexAttention runs flex_attention and
            autograd's backward; _dtable also returns the table's gradient
            (tgc: f32 atomics where each score read; flex: its captured
            buffer's gradient). Flops: 3.5x the causal forward's.

Each tgc output is compared with FlexAttention's (max abs error; the output is
poisoned with NaN first) so that a fast wrong kernel cannot pass unnoticed.
Memory: what each call needs beyond q, k, v and o: tgc's tables plus its plan
workspace (no [B, H, S, S] tensor exists); FlexAttention's peak allocation
during the call plus its BlockMask.

TFLOP/s: 4*B*H*S^2*D for relbias and t5; for the document and prefix masks
on the visible (q, kv) pairs (4*B*H*pairs*D, as FlexAttention counts sparse work)
and the ratio time / (dense time * visible fraction) (goal: <= 1.2).

Usage (GPU machine, ~2 minutes): python3 bench/bench_gather.py --lib build/lib/libtgc.so --out $OUT
Writes bench_gather.json and bench_gather.md under --out."""
import argparse, json, math, os, sys, time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test", "gpu"))
import tgc  # noqa: E402  (the package's C API wrapper: tgc.Library)
import gather_graphs as gg  # noqa: E402  (T5 bucket ops shared with the GPU suite)
from bench_attention import bench, pyplot_or_none  # noqa: E402  (median of CUDA-event timings)


def ttype(shape, elem):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


def attention_graph(B, H, S, D, captures, region, causal=False):
    """One tg.attention with table captures [(name, shape, elem)] and a score
    region (lines over %s, %b, %h, %qi, %ki, %t_<name>, ending in %z)."""
    t = ttype([B, H, S, D], "bf16")
    args = ['%%q: %s {tg.name = "q"}' % t, '%%k: %s {tg.name = "k"}' % t, '%%v: %s {tg.name = "v"}' % t]
    args += ['%%%s: %s {tg.name = "%s"}' % (n, ttype(s, e), n) for n, s, e in captures]
    caps = ""
    if captures:
        caps = " captures(%s : %s)" % (", ".join("%" + n for n, _, _ in captures),
                                       ", ".join(ttype(s, e) for _, s, e in captures))
    attrs = ["scale = %r : f64" % (1.0 / math.sqrt(D))]
    if causal:
        attrs.append("causal = #tg<causal top_left>")
    block = ", ".join(["%s: tensor<f32>", "%b: tensor<i64>", "%h: tensor<i64>", "%qi: tensor<i64>",
                       "%ki: tensor<i64>"] + ["%%t_%s: %s" % (n, ttype(s, e)) for n, s, e in captures])
    body = region if region else ["%z = tg.add %s, %zero : tensor<f32>, tensor<f32>"]
    lines = ['func.func @attention(%s) -> (%s {tg.name = "o"}) {' % (", ".join(args), t),
             "  %%o = tg.attention %%q, %%k, %%v%s {%s} : %s, %s, %s -> %s score {" % (caps, ", ".join(attrs), t, t, t, t),
             "  ^bb0(%s):" % block]
    if region:
        lines += ["    " + l for l in body] + ["    tg.yield %z : tensor<f32>"]
    else:
        lines += ["    tg.yield %s : tensor<f32>"]
    lines += ["  }", "  return %%o : %s" % t, "}"]
    return "\n".join(lines) + "\n"


def train_graph(B, H, S, D, table_grad, t5=False):
    """tg.attention {training} + tg.attention_grad of the causal relative-bias
    score (score_grad empty: derived), returning o, dq, dk, dv (and the
    table's gradient dtable); with t5 the score reads T5's bucket embedding
    (%table is then emb [32, H])."""
    t = ttype([B, H, S, D], "bf16")
    tab = ttype([NUM_BUCKETS, H] if t5 else [H, 2 * S - 1], "f32")
    body = [l.replace("%t_emb", "%t_table") for l in t5_region(H)] if t5 else relbias_region(H, S)
    stats = ttype([B, H, S, 1], "f32")
    attrs = "scale = %r : f64, causal = #tg<causal top_left>" % (1.0 / math.sqrt(D))
    region = ["  ^bb0(%%s: tensor<f32>, %%b: tensor<i64>, %%h: tensor<i64>, %%qi: tensor<i64>, %%ki: tensor<i64>, "
              "%%t_table: %s):" % tab] + ["    " + l for l in body] + ["    tg.yield %z : tensor<f32>"]
    res = [("o", t), ("dq", t), ("dk", t), ("dv", t)] + ([("dtable", tab)] if table_grad else [])
    lines = ['func.func @train(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}, '
             '%%do: %s {tg.name = "do"}, %%table: %s {tg.name = "table"}) -> (%s) {'
             % (t, t, t, t, tab, ", ".join('%s {tg.name = "%s"}' % (ty, n) for n, ty in res)),
             "  %%o, %%stats = tg.attention %%q, %%k, %%v captures(%%table : %s) {%s, training} : %s, %s, %s -> %s, %s "
             "score {" % (tab, attrs, t, t, t, t, stats)] + region + ["  }"]
    lines += ["  %%dq, %%dk, %%dv%s = tg.attention_grad %%q, %%k, %%v, %%o, %%do, %%stats captures(%%table : %s) {%s%s} "
              ": %s, %s, %s, %s, %s, %s score {"
              % (", %dtable" if table_grad else "", tab, attrs,
                 ", grad_captures = array<i64: 0>" if table_grad else "", t, t, t, t, t, stats)]
    lines += region + ["  } score_grad {", "  }" + (" capture_grads(%s)" % tab if table_grad else "")]
    lines += ["  return %s : %s" % (", ".join("%" + n for n, _ in res), ", ".join(ty for _, ty in res)), "}"]
    return "\n".join(lines) + "\n"


def relbias_region(H, S):
    return ["%d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>",
            "%%c = tg.constant dense<%d> : tensor<i64>" % (S - 1),
            "%r = tg.add %d, %c : tensor<i64>, tensor<i64>",
            "%%e = tg.gather %%t_table[%%h, %%r] : %s[tensor<i64>, tensor<i64>]" % ttype([H, 2 * S - 1], "f32"),
            "%z = tg.add %s, %e : tensor<f32>, tensor<f32>"]


NUM_BUCKETS, MAX_DISTANCE = 32, 128


def t5_region(H):
    return gg.t5_bucket_ops(NUM_BUCKETS, MAX_DISTANCE) + [
        "%%e = tg.gather %%t_emb[%%bucket, %%h] : %s[tensor<i64>, tensor<i64>]" % ttype([NUM_BUCKETS, H], "f32"),
        "%z = tg.add %s, %e : tensor<f32>, tensor<f32>"]


def document_region(B, S):
    t = ttype([B, S], "i32")
    return ["%%dq = tg.gather %%t_doc[%%b, %%qi] : %s[tensor<i64>, tensor<i64>]" % t,
            "%%dk = tg.gather %%t_doc[%%b, %%ki] : %s[tensor<i64>, tensor<i64>]" % t,
            "%same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>",
            "%ninf = tg.constant dense<0xFF800000> : tensor<f32>",
            "%z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>"]


def prefix_region(B):
    return ["%%len = tg.gather %%t_prefix[%%b] : tensor<%dxi64>[tensor<i64>]" % B,
            "%inprefix = tg.cmp lt, %ki, %len : tensor<i64>, tensor<i64>",
            "%causal = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>",
            "%true = tg.constant dense<true> : tensor<i1>",
            "%vis = tg.select %inprefix, %true, %causal : tensor<i1>, tensor<i1>, tensor<i1>",
            "%ninf = tg.constant dense<0xFF800000> : tensor<f32>",
            "%z = tg.select %vis, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>"]


def t5_bucket(rel):
    """HF's _relative_position_bucket (bidirectional), on tensors (flex traces it)."""
    half, exact = NUM_BUCKETS // 2, NUM_BUCKETS // 4
    ret = (rel > 0).to(torch.int64) * half
    n = torch.abs(rel)
    large = exact + (torch.log(n.float() / exact) / math.log(MAX_DISTANCE / exact) * (half - exact)).to(torch.int64)
    large = torch.where(large > half - 1, half - 1, large)
    return ret + torch.where(n < exact, n, large)


def document_ids(B, S, docs, seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.zeros(B, S, dtype=torch.int32)
    for b in range(B):
        cuts = torch.sort(torch.randperm(S - 1, generator=g)[:docs - 1] + 1).values
        ids[b] = torch.searchsorted(cuts, torch.arange(S), right=True).to(torch.int32)
    return ids


def peak_extra(fn, baseline_tensors_bytes):
    """Peak bytes allocated by torch during fn beyond what was allocated before."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return max(0, torch.cuda.max_memory_allocated() - before - baseline_tensors_bytes)


def train_row(lib, flex, create_block_mask, name, q, k, v, table, args, stream):
    """One training step (forward + backward) of the causal relative bias (or
    T5 buckets, `table` then being emb): tgc's plan against flex_attention +
    autograd; every gradient compared."""
    B, H, S, D = args.B, args.H, args.S, args.D
    table_grad = name.endswith("_dtable")
    t5 = name == "train_t5"
    row = dict(case=name)
    do = torch.randn_like(q)
    t0 = time.time()
    exe = lib.compile(train_graph(B, H, S, D, table_grad, t5), "--arch=" + args.arch)
    outs = {n: torch.full_like(q, float("nan")) for n in ("o", "dq", "dk", "dv")}
    if table_grad:
        outs["dtable"] = torch.full_like(table, float("nan"))
    arr = tgc.BindingArray.from_dict(dict(q=q, k=k, v=v, do=do, table=table, **outs))
    exe.run(arr, stream); torch.cuda.synchronize()
    row["tgc_compile_s"] = round(time.time() - t0, 2)
    row["tgc_ms"] = round(bench(lambda: exe.run(arr, stream)), 3)
    row["tgc_extra_mib"] = round((table.numel() * 4 * (2 if table_grad else 1) + exe.workspace_size) / 2 ** 20, 2)
    # FlexAttention: the same score_mod, causal BlockMask, autograd.
    t0 = time.time()
    qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
    tg_ = table.detach().requires_grad_(table_grad)

    def grads(out):
        r = dict(o=out.detach(), dq=qg.grad, dk=kg.grad, dv=vg.grad)
        if table_grad:
            r["dtable"] = tg_.grad
        return r
    try:
        block_mask = create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, None, None, S, S,
                                       device="cuda")

        def step():
            for x in (qg, kg, vg, tg_):
                x.grad = None
            if t5:
                score_mod = lambda s, b, h, q_idx, kv_idx: s + tg_[t5_bucket(kv_idx - q_idx), h]  # noqa: E731
            else:
                score_mod = lambda s, b, h, q_idx, kv_idx: s + tg_[h, q_idx - kv_idx + S - 1]  # noqa: E731
            out = flex(qg, kg, vg, score_mod=score_mod, block_mask=block_mask, scale=1.0 / math.sqrt(D))
            out.backward(do)
            return out
        ref_o = step(); torch.cuda.synchronize()
        row["flex_compile_s"] = round(time.time() - t0, 2)
        row["flex_ms"] = round(bench(step), 3)
        mask_bytes = sum(t.numel() * t.element_size() for t in block_mask.as_tuple() if torch.is_tensor(t))
        row["flex_extra_mib"] = round((peak_extra(step, 4 * q.numel() * q.element_size()) + mask_bytes
                                       + table.numel() * 4) / 2 ** 20, 2)
        refs = grads(ref_o)
        row["reference"] = "flex_attention"
    except Exception as ex:  # noqa: BLE001 - Flex's own failure is a result
        row["flex_error"] = ("%s: %s" % (type(ex).__name__, ex)).splitlines()[-1][:300]
        # Then the gradients are checked against eager float32 math with
        # autograd (the [B, H, S, S] scores materialised).
        for x in (qg, kg, vg, tg_):
            x.grad = None
        idx = torch.arange(S, device=q.device)
        rel = idx[:, None] - idx[None, :] + S - 1
        bias = tg_.float()[t5_bucket(idx[None, :] - idx[:, None])].permute(2, 0, 1) if t5 else tg_.float()[:, rel]
        sc = (qg.float() @ kg.float().transpose(-1, -2)) / math.sqrt(D) + bias[None]
        sc = sc.masked_fill(rel < S - 1, float("-inf"))
        out = torch.softmax(sc, -1) @ vg.float()
        out.backward(do.float())
        del sc
        refs = grads(out)
        row["reference"] = "eager float32 (flex_attention failed)"
    errs = {}
    for n, ref in refs.items():
        scale = ref.float().abs().max().item()
        errs[n] = (outs[n].float() - ref.float()).abs().max().item() / max(scale, 1e-6)
    row["max_rel_err_vs_flex"] = {n: float("%.3g" % e) for n, e in errs.items()}
    row["max_abs_err_vs_flex"] = max(errs.values())
    row["ok"] = all(e == e and e < 3e-2 for e in errs.values())  # NaN fails
    flops = 3.5 * 0.5 * 4.0 * B * H * S * S * D
    row["tgc_tflops"] = round(flops / row["tgc_ms"] / 1e9, 1)
    if "flex_ms" in row:
        row["flex_tflops"] = round(flops / row["flex_ms"] / 1e9, 1)
        row["tgc_vs_flex"] = round(row["flex_ms"] / row["tgc_ms"], 3)
    exe.destroy()
    return row


def chart(rows, path):
    """ms per case, tgc beside FlexAttention (missing bars: Flex failed)."""
    plt = pyplot_or_none()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(9, 4))
    x = range(len(rows))
    ax.bar([i - 0.2 for i in x], [r["tgc_ms"] for r in rows], 0.4, label="tgc")
    ax.bar([i + 0.2 for i in x], [r.get("flex_ms") or 0 for r in rows], 0.4, label="flex_attention")
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["case"] for r in rows], rotation=30, fontsize=8)
    ax.set_ylabel("ms")
    ax.set_title("table gathers: tgc vs flex_attention (lower is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--B", type=int, default=1)
    ap.add_argument("--H", type=int, default=16)
    ap.add_argument("--S", type=int, default=8192)
    ap.add_argument("--D", type=int, default=128)
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--cases", default="dense,causal,relbias,t5,document,train_relbias,train_relbias_dtable")
    ap.add_argument("--arch", default="sm_90a")
    args = ap.parse_args()
    B, H, S, D = args.B, args.H, args.S, args.D
    lib = tgc.Library(args.lib)
    dev = "cuda"
    env = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "commit": os.environ.get("TGC_COMMIT", "unknown"),
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "B": B, "H": H, "S": S, "D": D, "docs": args.docs}
    print(env, flush=True)
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device=dev, dtype=torch.bfloat16) for _ in range(3))
    table = torch.randn(H, 2 * S - 1, device=dev, dtype=torch.float32)
    emb = torch.randn(NUM_BUCKETS, H, device=dev, dtype=torch.float32)
    doc = document_ids(B, S, args.docs).to(dev)
    stream = torch.cuda.current_stream().cuda_stream
    dense_flops = 4.0 * B * H * S * S * D
    qi = torch.arange(S, device=dev)
    same = doc[:, :, None] == doc[:, None, :]
    visible_pairs = float((same & (qi[None, :, None] >= qi[None, None, :])).sum().item()) * H
    del same
    prefix = torch.full((B,), S // 4, device=dev, dtype=torch.int64)
    # Row q sees max(prefix, q + 1) keys.
    prefix_pairs = float(torch.maximum(prefix[:, None], qi[None, :] + 1).sum().item()) * H

    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    flex = torch.compile(flex_attention)

    cases = {
        "dense": dict(captures=[], region=None, causal=False, tensors={}, score_mod=None, mask_mod=None),
        "causal": dict(captures=[], region=None, causal=True, tensors={}, score_mod=None,
                       mask_mod=lambda b, h, q_idx, kv_idx: q_idx >= kv_idx),
        "relbias": dict(captures=[("table", [H, 2 * S - 1], "f32")], region=relbias_region(H, S), causal=False,
                        tensors={"table": table},
                        score_mod=lambda s, b, h, q_idx, kv_idx: s + table[h, q_idx - kv_idx + S - 1], mask_mod=None),
        "t5": dict(captures=[("emb", [NUM_BUCKETS, H], "f32")], region=t5_region(H), causal=False,
                   tensors={"emb": emb},
                   score_mod=lambda s, b, h, q_idx, kv_idx: s + emb[t5_bucket(kv_idx - q_idx), h], mask_mod=None),
        "document": dict(captures=[("doc", [B, S], "i32")], region=document_region(B, S), causal=True,
                         tensors={"doc": doc}, score_mod=None,
                         mask_mod=lambda b, h, q_idx, kv_idx: (doc[b, q_idx] == doc[b, kv_idx]) & (q_idx >= kv_idx)),
        "prefix": dict(captures=[("prefix", [B], "i64")], region=prefix_region(B), causal=False,
                       tensors={"prefix": prefix}, score_mod=None,
                       mask_mod=lambda b, h, q_idx, kv_idx: (kv_idx < prefix[b]) | (q_idx >= kv_idx)),
    }
    rows = []
    qkvo_bytes = 4 * q.numel() * q.element_size()
    for name in args.cases.split(","):
        if name.startswith("train_"):
            row = train_row(lib, flex, create_block_mask, name, q, k, v, emb if name == "train_t5" else table,
                            args, stream)
            rows.append(row)
            print(row, flush=True)
            continue
        c = cases[name]
        row = dict(case=name)
        mlir = attention_graph(B, H, S, D, c["captures"], c["region"], causal=c["causal"])
        t0 = time.time()
        exe = lib.compile(mlir, "--arch=" + args.arch)
        o = torch.full_like(q, float("nan"))
        binds = dict(q=q, k=k, v=v, o=o, **c["tensors"])
        arr = tgc.BindingArray.from_dict(binds)
        exe.run(arr, stream); torch.cuda.synchronize()
        row["tgc_compile_s"] = round(time.time() - t0, 2)
        row["tgc_ms"] = round(bench(lambda: exe.run(arr, stream)), 3)
        table_bytes = sum(t.numel() * t.element_size() for t in c["tensors"].values())
        row["tgc_extra_mib"] = round((table_bytes + exe.workspace_size) / 2 ** 20, 2)
        # FlexAttention with the same score_mod / mask_mod.
        t0 = time.time()
        block_mask = None
        if c["mask_mod"] is not None:
            block_mask = create_block_mask(c["mask_mod"], B if name in ("document", "prefix") else None, None, S, S,
                                           device=dev)
        fn = lambda: flex(q, k, v, score_mod=c["score_mod"], block_mask=block_mask, scale=1.0 / math.sqrt(D))  # noqa: E731
        ref = fn(); torch.cuda.synchronize()
        row["flex_compile_s"] = round(time.time() - t0, 2)
        row["flex_ms"] = round(bench(fn), 3)
        mask_bytes = 0
        if block_mask is not None:
            mask_bytes = sum(t.numel() * t.element_size() for t in block_mask.as_tuple() if torch.is_tensor(t))
        row["flex_extra_mib"] = round((peak_extra(fn, q.numel() * q.element_size()) + mask_bytes + table_bytes)
                                      / 2 ** 20, 2)
        err = (o.float() - ref.float()).abs().max().item()
        row["max_abs_err_vs_flex"] = err
        row["ok"] = bool(err == err and err < 3e-2)  # NaN fails
        pairs = {"document": visible_pairs, "prefix": prefix_pairs}
        flops = pairs[name] * 4 * D if name in pairs else dense_flops * (0.5 if name == "causal" else 1.0)
        row["tgc_tflops"] = round(flops / row["tgc_ms"] / 1e9, 1)
        row["flex_tflops"] = round(flops / row["flex_ms"] / 1e9, 1)
        row["tgc_vs_flex"] = round(row["flex_ms"] / row["tgc_ms"], 3)
        rows.append(row)
        print(row, flush=True)
        exe.destroy()
        del o, ref
    by = {r["case"]: r for r in rows}
    summary = {}
    if "document" in by and "dense" in by:
        fraction = visible_pairs / (B * H * S * S)
        summary["visible_fraction"] = round(fraction, 4)
        summary["document_vs_dense_x_fraction"] = round(by["document"]["tgc_ms"] / (by["dense"]["tgc_ms"] * fraction), 3)
    print(summary, flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_gather.json"), "w") as f:
        json.dump({"env": env, "rows": rows, "summary": summary}, f, indent=1)
    lines = ["# tgc gathers vs FlexAttention (%s, %s, commit %s)" % (env["gpu"], env["date"], env["commit"]), "",
             "bf16, B=%d H=%d S=%d D=%d; forward except the train_ rows (forward + backward, goal flex/tgc >= 1.5; "
             "their error column is the largest max |err| / max |ref| over o, dq, dk, dv (, dtable)); times are "
             "medians of 20 runs; extra memory is what a call needs beyond q, k, v, o (tables, workspace, "
             "FlexAttention's BlockMask and temporaries)." % (B, H, S, D), "",
             "| case | tgc ms | flex ms | tgc TFLOP/s | flex TFLOP/s | flex/tgc | tgc extra MiB | flex extra MiB | max abs err | ok |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        flex_ms = r.get("flex_ms", "failed: " + r.get("flex_error", "?"))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %.2e | %s |" % (
            r["case"], r["tgc_ms"], flex_ms, r["tgc_tflops"], r.get("flex_tflops", "-"), r.get("tgc_vs_flex", "-"),
            r["tgc_extra_mib"], r.get("flex_extra_mib", "-"), r["max_abs_err_vs_flex"], r["ok"]))
    failed = [r for r in rows if "flex_error" in r]
    if failed:
        lines += ["", "Where flex_attention failed, tgc's outputs and gradients were checked against eager float32 "
                  "math with autograd instead (%s)." % ", ".join(r["case"] for r in failed)]
    if summary:
        lines += ["", "Document mask: visible fraction %.4f; time / (dense time x fraction) = %.3f (goal <= 1.2)."
                  % (summary["visible_fraction"], summary["document_vs_dense_x_fraction"])]
    with open(os.path.join(args.out, "bench_gather.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    chart(rows, os.path.join(args.out, "bench_gather.png"))
    print("\n".join(lines))
    sys.exit(0 if all(r["ok"] for r in rows) else 1)


if __name__ == "__main__":
    main()
