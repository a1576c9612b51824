#!/usr/bin/env python3
"""Benchmark (not a test): tgc's fused NVRTC attention backward in one process
with PyTorch, through libtgc's C API on torch tensors and torch's stream.

1. Backward on the anchor grid (hd 64/128/256 x causal or not x S
   512..16384, B = 16384/S, H = 2048/hd, bf16): tgc's tg.sdpa_grad graph
   (--backend=nvrtc: the fused kernels; o and stats from tgc's own training
   forward) vs torch's cuDNN and flash backward timed alone
   (torch.autograd.grad(out, (q, k, v), do, retain_graph=True) on an output
   computed once). TFLOP/s: backward = 2.5 x forward flops, forward
   4*B*H*S^2*hd (x0.5 causal).
2. Training steps (forward + backward, tgc's graph with tg.sdpa (training)
   and tg.sdpa_grad, or tg.attention + tg.attention_grad for the document
   mask) vs FlexAttention (torch.compile'd flex_attention, forward and
   torch.autograd.grad): softcap 30, ALiBi, learnable bias (both compute
   dbias), sliding window 512, document mask; dropout 0.1 vs torch SDPA
   flash with dropout_p (Flex has no dropout).
   TFLOP/s: 3.5 x forward flops (causal counts half; the window and document
   masks are counted as causal).
Every tgc output is poisoned with NaN first and compared with torch's
(error relative to max |torch|, 3e-2 to pass; dropout uses a different
random mask than torch, so it is not compared). Device memory growth: free
device memory (cudaMemGetInfo) before tgc's compile minus after its first
run (workspace and modules); for torch the peak allocation above the inputs.

Usage (GPU machine): python3 bench/bench_backward.py --lib .carry/lib/libtgc.so --out $OUT
Caps: --budget-s (grid), --total-s (everything); later rows are listed as
skipped. Writes bench_backward.json, bench_backward.md, bench_backward.png."""
import argparse, json, os, sys, time

import torch  # first: torch's CUDA context and stream
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "gpu"))
from bench_attention import bench, pyplot_or_none  # noqa: E402
from bench_cudnn import TgcX, backend_of, rel_err  # noqa: E402
import attention_graphs as ag  # noqa: E402

DEV = "cuda"
TOL = 3e-2


def free_bytes():
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0]


def short(ex):
    text = str(ex).strip()
    return (text.splitlines()[0] if text else repr(ex))[:240]


class Tgc(TgcX):
    def prepared(self, text, tensors, args, stream, backend="nvrtc"):
        """Compiles, binds and runs once; (exe, bindings, steps, setup seconds,
        device memory growth in bytes)."""
        before = free_bytes()
        t0 = time.time()
        exe = self.compile(text, "--arch=%s --backend=%s%s" % (args.arch, backend,
                                                              " --fast-math" if args.fast_math else ""))
        arr = self.bindings(tensors)
        self.run(exe, arr, stream)
        torch.cuda.synchronize()
        growth = before - free_bytes()
        return exe, arr, self.describe(exe, stream), round(time.time() - t0, 2), growth


def environment():
    """The run's versions, GPU, commit and date (printed, and kept in the results)."""
    env = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
           "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "none",
           "commit": os.environ.get("TGC_COMMIT", "unknown"), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(env, flush=True)
    return env


def torch_backward(backend, q, k, v, do, causal, reps, warm):
    """(ms per backward, grads) of torch SDPA on `backend` (autograd.grad on
    an output computed once)."""
    qg, kg, vg = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    with sdpa_kernel([backend]):
        out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
        grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
        ms = bench(lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True), reps=reps, warm=warm)
    return ms, grads


def grid_row(tgc, hd, causal, S, args, stream):
    B, H = max(1, 16384 // S), 2048 // hd
    flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
    row = {"part": "grid", "hd": hd, "causal": causal, "S": S, "B": B, "H": H}
    c = dict(B=B, Hq=H, Hkv=H, Sq=S, Skv=S, D=hd, dtype="bf16", causal="top_left" if causal else None)
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(B, H, S, hd, device=DEV, dtype=torch.bfloat16) for _ in range(4))
    ref = None
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        try:
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            ms, grads = torch_backward(backend, q, k, v, do, causal, args.reps, args.warm)
            row[name + "_bwd"] = round(2.5 * flops / ms / 1e9, 1)
            row[name + "_mem_gb"] = round((torch.cuda.max_memory_allocated() - before) / 1e9, 3)
            if ref is None or name == "flash":
                ref = grads
        except Exception as ex:  # noqa: BLE001
            row[name + "_error"] = short(ex)
    # tgc: its own training forward (o, stats), then the backward alone.
    o = torch.full_like(q, float("nan"))
    stats = torch.full((B, H, S, 1), float("nan"), device=DEV, dtype=torch.float32)
    try:
        fwd, farr, _, _, _ = tgc.prepared(ag.sdpa_graph(dict(c, training=True)), {"q": q, "k": k, "v": v, "o": o,
                                                                                 "stats": stats}, args, stream)
        tgc.lib.tgc_executable_destroy(fwd)
        dq, dk, dv = (torch.full_like(t, float("nan")) for t in (q, k, v))
        exe, arr, desc, secs, growth = tgc.prepared(
            ag.sdpa_grad_graph(c), {"q": q, "k": k, "v": v, "o": o, "do": do, "stats": stats, "dq": dq, "dk": dk,
                                    "dv": dv}, args, stream)
        row["tgc_ran"] = backend_of(desc)
        row["tgc_setup_s"] = secs
        row["tgc_mem_gb"] = round(growth / 1e9, 3)
        if ref is not None:
            row["tgc_err"] = max(rel_err(g, r) for g, r in zip((dq, dk, dv), ref))
            row["tgc_ok"] = bool(row["tgc_err"] == row["tgc_err"] and row["tgc_err"] < TOL)
        row["tgc_bwd"] = round(2.5 * flops / bench(lambda: tgc.run(exe, arr, stream), reps=args.reps,
                                                   warm=args.warm) / 1e9, 1)
        tgc.lib.tgc_executable_destroy(exe)
    except Exception as ex:  # noqa: BLE001
        row["tgc_error"] = short(ex)
        row["tgc_ok"] = False
    for name in ("cudnn", "flash"):
        if row.get("tgc_bwd") and row.get(name + "_bwd"):
            row["ratio_" + name] = round(row["tgc_bwd"] / row[name + "_bwd"], 3)
    return row


def alibi_slopes(H):
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)], device=DEV, dtype=torch.float32)


def flex_case(name, H, S, bias, slopes, doc):
    """(score_mod, mask_mod or None, causal) for FlexAttention."""
    if name == "softcap30":
        return (lambda s, b, h, qi, ki: 30.0 * torch.tanh(s / 30.0)), None, True
    if name == "alibi":
        return (lambda s, b, h, qi, ki: s + slopes[h] * (ki - qi)), None, False
    if name == "bias":
        return (lambda s, b, h, qi, ki: s + bias[h, qi, ki]), None, True
    if name == "window512":
        return None, (lambda b, h, qi, ki: (qi >= ki) & (qi - ki <= 512)), False
    if name == "document":
        return None, (lambda b, h, qi, ki: (qi >= ki) & (doc[b, qi] == doc[b, ki])), False
    raise ValueError(name)


TRAIN_CASES = {
    # name: the tg.sdpa options of tgc's graph
    "softcap30": dict(softcap=30.0, causal="top_left"),
    "alibi": dict(alibi=True),
    "bias": dict(bias=True, bias_grad=True, causal="top_left"),
    "window512": dict(causal="top_left", window=(512, 0)),
    "dropout0.1": dict(dropout=0.1, causal="top_left"),
    "document": dict(causal="top_left", document=True),
}


def train_row(tgc, name, S, args, stream, flex_compiled):
    hd, H = args.train_hd, 2048 // args.train_hd
    B = max(1, 16384 // S)
    opts = TRAIN_CASES[name]
    causal = opts.get("causal") is not None
    flops = 3.5 * 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
    row = {"part": "train", "case": name, "hd": hd, "S": S, "B": B, "H": H}
    c = dict(B=B, Hq=H, Hkv=H, Sq=S, Skv=S, D=hd, dtype="bf16", **{k: v for k, v in opts.items() if k != "document"})
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(B, H, S, hd, device=DEV, dtype=torch.bfloat16) for _ in range(4))
    bias = torch.randn(1, H, S, S, device=DEV, dtype=torch.float32) if name == "bias" else None
    slopes = alibi_slopes(H)
    doc = None
    if name == "document":  # packed documents of 1 .. S/4 tokens
        gen = torch.Generator().manual_seed(1)
        rows_ids = []
        for _ in range(B):
            ids, d = [], 0
            while len(ids) < S:
                ids += [d] * int(torch.randint(1, max(2, S // 4), (1,), generator=gen))
                d += 1
            rows_ids.append(ids[:S])
        doc = torch.tensor(rows_ids, device=DEV, dtype=torch.int32)

    # The comparison: FlexAttention (compiled), or torch SDPA flash for dropout.
    ref = None
    try:
        qg, kg, vg = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        if name == "dropout0.1":
            row["baseline"] = "torch sdpa flash, dropout_p=0.1"

            def step():
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    out = F.scaled_dot_product_attention(qg, kg, vg, dropout_p=0.1, is_causal=True)
                return (out,) + torch.autograd.grad(out, (qg, kg, vg), do)
        else:
            from torch.nn.attention.flex_attention import create_block_mask
            row["baseline"] = "flex_attention (torch.compile)"
            bias_g = bias[0].clone().requires_grad_(True) if bias is not None else None
            score_mod, mask_mod, flex_causal = flex_case(name, H, S, bias_g, slopes, doc)
            if flex_causal and mask_mod is None:
                mask_mod = lambda b, h, qi, ki: qi >= ki  # noqa: E731
            block_mask = (create_block_mask(mask_mod, B if doc is not None else None, None, S, S, device=DEV)
                          if mask_mod else None)
            inputs = (qg, kg, vg) + ((bias_g,) if bias_g is not None else ())

            def step():
                out = flex_compiled(qg, kg, vg, score_mod=score_mod, block_mask=block_mask)
                return (out,) + torch.autograd.grad(out, inputs, do)
        t0 = time.time()
        ref = step()
        torch.cuda.synchronize()
        row["baseline_setup_s"] = round(time.time() - t0, 1)
        ms = bench(step, reps=args.train_reps, warm=args.warm)
        row["baseline_ms"] = round(ms, 3)
        row["baseline_tflops"] = round(flops / ms / 1e9, 1)
        row["baseline_mem_gb"] = round((torch.cuda.max_memory_allocated() - before) / 1e9, 3)
    except Exception as ex:  # noqa: BLE001
        row["baseline_error"] = short(ex)

    # tgc: one graph (forward with stats, then its backward).
    outs = {n: torch.full_like(t, float("nan")) for n, t in (("o", q), ("dq", q), ("dk", k), ("dv", v))}
    if name == "bias":
        outs["dbias"] = torch.full_like(bias, float("nan"))
    tensors = {"q": q, "k": k, "v": v, "do": do}
    if name == "document":
        text = ag.document_step_graph(c)
        tensors.update(doc_q=doc.view(B, 1, S, 1).contiguous(), doc_kv=doc.view(B, 1, 1, S).contiguous())
    else:
        text = ag.sdpa_fwd_bwd_graph(c)
        outs["stats"] = torch.full((B, H, S, 1), float("nan"), device=DEV, dtype=torch.float32)
        if name == "bias":
            tensors["bias"] = bias
        if name == "dropout0.1":
            tensors["seed"] = torch.tensor(1234, device=DEV, dtype=torch.int64)
            tensors["offset"] = torch.tensor(0, device=DEV, dtype=torch.int64)
        if name == "alibi":
            row["note"] = "tg ALiBi: slope_h * (kv - q), slope_h = 2^(-8 (h+1) / H)"
    if name == "bias":
        row["note"] = "dbias [1,H,S,S] f32 from both"
    tensors.update(outs)
    try:
        exe, arr, desc, secs, growth = tgc.prepared(text, tensors, args, stream)
        row["tgc_ran"] = backend_of(desc)
        row["tgc_setup_s"] = secs
        row["tgc_mem_gb"] = round(growth / 1e9, 3)
        if ref is not None and name != "dropout0.1":
            names = ("o", "dq", "dk", "dv") + (("dbias",) if name == "bias" else ())
            row["tgc_err"] = max(rel_err(outs[n], r.view_as(outs[n])) for n, r in zip(names, ref))
            row["tgc_ok"] = bool(row["tgc_err"] == row["tgc_err"] and row["tgc_err"] < TOL)
        elif name == "dropout0.1":
            finite = all(torch.isfinite(outs[n]).all().item() for n in ("o", "dq", "dk", "dv"))
            row["tgc_ok"] = bool(finite)
            row["tgc_err"] = "not compared (different dropout masks); all finite: %s" % finite
        ms = bench(lambda: tgc.run(exe, arr, stream), reps=args.train_reps, warm=args.warm)
        row["tgc_ms"] = round(ms, 3)
        row["tgc_tflops"] = round(flops / ms / 1e9, 1)
        tgc.lib.tgc_executable_destroy(exe)
    except Exception as ex:  # noqa: BLE001
        row["tgc_error"] = short(ex)
        row["tgc_ok"] = False
    if row.get("tgc_ms") and row.get("baseline_ms"):
        row["speedup"] = round(row["baseline_ms"] / row["tgc_ms"], 3)
    return row


def markdown(env, rows, skipped):
    grid = [r for r in rows if r["part"] == "grid"]
    train = [r for r in rows if r["part"] == "train"]
    lines = ["# tgc fused attention backward (NVRTC) vs PyTorch (%s, %s, commit %s)" % (
        env["gpu"], env["date"], env["commit"]), "",
        "torch %s, cuDNN %s. tgc through the C API on torch tensors; bf16." % (env["torch"], env["cudnn"]), "",
        "## Backward (TFLOP/s = 2.5 x 4*B*H*S^2*hd, x0.5 causal)", "",
        "| hd | causal | S | BxH | tgc | cuDNN | flash | tgc/cuDNN | tgc/flash | tgc mem GB | cuDNN mem GB | err | ran |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in grid:
        lines.append("| %d | %s | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["hd"], "yes" if r["causal"] else "no", r["S"], r["B"], r["H"], r.get("tgc_bwd", r.get("tgc_error", "-")),
            r.get("cudnn_bwd", "-"), r.get("flash_bwd", "-"), r.get("ratio_cudnn", "-"), r.get("ratio_flash", "-"),
            r.get("tgc_mem_gb", "-"), r.get("cudnn_mem_gb", "-"),
            ("%.1e" % r["tgc_err"]) if isinstance(r.get("tgc_err"), float) else "-", r.get("tgc_ran", "-")))
    lines += ["", "## Training steps (forward + backward; TFLOP/s = 3.5 x forward flops)", "",
              "| case | hd | S | BxH | tgc ms | baseline ms | speedup | tgc TFLOP/s | baseline | tgc mem GB | "
              "baseline mem GB | err | note |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in train:
        err = r.get("tgc_err", "-")
        lines.append("| %s | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["hd"], r["S"], r["B"], r["H"], r.get("tgc_ms", r.get("tgc_error", "-")),
            r.get("baseline_ms", r.get("baseline_error", "-")), r.get("speedup", "-"), r.get("tgc_tflops", "-"),
            r.get("baseline", "-"), r.get("tgc_mem_gb", "-"), r.get("baseline_mem_gb", "-"),
            ("%.1e" % err) if isinstance(err, float) else err, r.get("note", "")))
    if skipped:
        lines += ["", "Skipped (budget): " + ", ".join(skipped)]
    bad = [r for r in rows if r.get("tgc_ok") is False]
    lines += ["", "tgc results outside %.0e of torch (or failed): %s" % (TOL, ", ".join(
        "%s %s S=%d" % (r.get("case", "hd%d%s" % (r["hd"], "c" if r.get("causal") else "")), r["part"], r["S"])
        for r in bad) or "none")]
    return "\n".join(lines) + "\n"


def chart(rows, path):
    plt = pyplot_or_none()
    if plt is None:
        return
    grid = [r for r in rows if r["part"] == "grid"]
    train = [r for r in rows if r["part"] == "train"]
    fig, axes = plt.subplots(1, 4, figsize=(20, 4))
    for ax, hd in zip(axes[:3], (64, 128, 256)):
        sub = [r for r in grid if r["hd"] == hd]
        x = range(len(sub))
        for i, (key, label) in enumerate((("tgc_bwd", "tgc"), ("cudnn_bwd", "cuDNN"), ("flash_bwd", "flash"))):
            ax.bar([xi + (i - 1) * 0.27 for xi in x], [r.get(key) or 0 for r in sub], 0.27, label=label)
        ax.set_xticks(list(x))
        ax.set_xticklabels(["%s%d" % ("c" if r["causal"] else "", r["S"]) for r in sub], rotation=45)
        ax.set_title("backward hd %d (TFLOP/s)" % hd)
    axes[0].legend()
    ax = axes[3]
    x = range(len(train))
    ax.bar([xi - 0.2 for xi in x], [r.get("tgc_ms") or 0 for r in train], 0.4, label="tgc")
    ax.bar([xi + 0.2 for xi in x], [r.get("baseline_ms") or 0 for r in train], 0.4, label="Flex / torch")
    ax.set_xticks(list(x))
    ax.set_xticklabels(["%s %d" % (r["case"], r["S"]) for r in train], rotation=60, fontsize=7)
    ax.set_title("training step (ms)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--fast-math", action="store_true",
                    help="compile with --fast-math (approximate tanh/exp/log in score regions)")
    ap.add_argument("--hds", default="64,128,256")
    ap.add_argument("--seqlens", default="512,2048,8192,16384")
    ap.add_argument("--train-cases", default=",".join(TRAIN_CASES))
    ap.add_argument("--train-seqlens", default="4096,8192")
    ap.add_argument("--train-hd", type=int, default=128)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--train-reps", type=int, default=5)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--budget-s", type=float, default=130, help="stop the grid after this many seconds")
    ap.add_argument("--total-s", type=float, default=230, help="stop everything after this many seconds")
    ap.add_argument("--no-grid", action="store_true")
    ap.add_argument("--no-train", action="store_true")
    args = ap.parse_args()
    t_start = time.time()
    tgc = Tgc(args.lib)
    env = environment()
    stream = torch.cuda.current_stream().cuda_stream
    rows, skipped = [], []
    if not args.no_grid:
        for hd in map(int, args.hds.split(",")):
            for causal in (False, True):
                for S in map(int, args.seqlens.split(",")):
                    label = "grid hd%d %s S=%d" % (hd, "causal" if causal else "full", S)
                    if time.time() - t_start > args.budget_s:
                        skipped.append(label)
                        continue
                    row = grid_row(tgc, hd, causal, S, args, stream)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    torch.cuda.empty_cache()
    if not args.no_train:
        flex_compiled = None
        try:
            from torch.nn.attention.flex_attention import flex_attention
            flex_compiled = torch.compile(flex_attention)
        except Exception as ex:  # noqa: BLE001
            print("FlexAttention unavailable:", short(ex), flush=True)
        for S in map(int, args.train_seqlens.split(",")):
            for name in args.train_cases.split(","):
                label = "train %s S=%d" % (name, S)
                if time.time() - t_start > args.total_s:
                    skipped.append(label)
                    continue
                row = train_row(tgc, name, S, args, stream, flex_compiled)
                rows.append(row)
                print(json.dumps(row), flush=True)
                torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_backward.json"), "w") as f:
        json.dump({"env": env, "rows": rows, "skipped": skipped, "seconds": round(time.time() - t_start, 1)}, f,
                  indent=1)
    text = markdown(env, rows, skipped)
    with open(os.path.join(args.out, "bench_backward.md"), "w") as f:
        f.write(text)
    print(text)
    chart(rows, os.path.join(args.out, "bench_backward.png"))
    print("bench_backward: %.0f s" % (time.time() - t_start))
    sys.exit(1 if any(r.get("tgc_ok") is False for r in rows) else 0)


if __name__ == "__main__":
    main()
