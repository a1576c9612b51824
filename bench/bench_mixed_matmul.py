#!/usr/bin/env python3
"""Benchmark (not a test): the two plans of a mixed-input matmul side by side
with PyTorch, in one process on the GPU, to fill the table that
tg-mixed-matmul-plan chooses from (compiler/lib/Transforms/MixedMatmulTable.inc;
bench/fill_mixed_matmul_table.py rewrites it from this script's json).

x bf16 [M,K] . w int8 [K,N] -> y bf16, plain (w converted) and scaled (w
times a per-output-channel bf16 scale [1,N], dequantised in prologue_b as
examples/mixed_attention_matmul.mlir does; with --group G, per group of G
rows, a [K/G, 1, N] scale applied to the weight viewed as [K/G, G, N], as
PyTorch code writes it), M = 1 ... 16384, K = N = 4096 and 8192. Per shape:
  - tgc fused    --mixed-matmul=fused: cuDNN's mixed-input matmul graph
  - tgc dequant  --mixed-matmul=dequant: NVRTC dequantise kernel into a bf16
                 workspace tensor, then a bf16 cuDNN matmul
  - tgc generated --mixed-matmul=generated: the generated NVRTC mixed-input
                 kernel (device/mixed_matmul.cuh: the weight converted in
                 registers)
  - tgc auto     --mixed-matmul=auto (backend auto): what the committed table chooses (and
                 which plan that was, from the runtime's step list)
  - torch dequant + matmul: x @ w.to(bf16) (x @ (w.to(bf16) * scale))
  - torch bf16 GEMM ceiling: x @ w_bf16 with the weight converted beforehand
TFLOP/s = 2*M*N*K / median time (CUDA events, bench_attention.bench; with
--batch B, B calls back to back between the events, for every column).
Every output (tgc's poisoned with NaN first) is checked against a float32
reference: x.float() @ w_deq.float() with TF32 off, where w_deq is the
dequantised weight rounded to bf16 as tg's prologue defines it; the error is
max |y - ref| / max |ref| and must be <= --tol (default 2e-2, the bf16
tolerance of tg-run --check: one bf16 rounding of y is 2^-9 relative, the
rest is f32 accumulation order).

tgc compiles with --backend=cudnn and the runtime's TGC_BACKEND left unset
(auto): a cuDNN step that cannot run falls back to NVRTC and the `ran`
column says so. Same libcudnn as torch (bench_cudnn.torch_cudnn).

Usage (GPU machine): python3 bench/bench_mixed_matmul.py --lib .carry/lib/libtgc.so --out $OUT
Writes bench_mixed_matmul.{json,md,png} under --out; about 3 minutes
(--total-s skips the shapes left after it)."""
import argparse, json, os, sys, tempfile, time

import torch  # first: its cuDNN is the one tgc must use

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
from bench_attention import bench  # noqa: E402
from bench_cudnn import TgcX, backend_of, torch_cudnn  # noqa: E402
import attention_graphs as ag  # noqa: E402

DEV = "cuda"
PLANS = ("fused", "dequant", "generated", "auto")
FP8_TORCH = {"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}
# The generated kernel runs on NVRTC (the plan pins the op there), and auto
# may choose it only when the backend request is auto (--backend=cudnn rules
# it out).
PLAN_BACKEND = {"generated": "auto", "auto": "auto"}


def max_rel_err(got, ref):
    """max |got - ref| / max |ref|; NaN anywhere (a poisoned element left
    unwritten) gives NaN."""
    got = got.float()
    if torch.isnan(got).any():
        return float("nan")
    return ((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def plan_of(describe_text):
    """Which plan a compiled graph runs: the generated kernel has no cuDNN
    step, the dequant plan a dequantise kernel step before its cuDNN matmul,
    the fused one a single cuDNN step."""
    steps = [l for l in describe_text.splitlines() if l.strip().startswith("step")]
    if not steps:
        return "?"
    if not any("cudnn" in l for l in steps):
        return "generated"
    return "dequant" if len(steps) > 1 else "fused"


def pack_i4(w):
    """int8 values in [-8, 7], [K, N] (N even) -> uint8 [K, N/2]: tg's i4
    storage, column 2j in the low nibble of byte j."""
    w16 = w.to(torch.int16) & 0xF
    return (w16[:, 0::2] | (w16[:, 1::2] << 4)).to(torch.uint8)


def unpack_i4(p):
    """The inverse of pack_i4 (int8 [K, N])."""
    p16 = p.to(torch.int16)
    lo, hi = ((p16 & 0xF) ^ 8) - 8, (((p16 >> 4) & 0xF) ^ 8) - 8
    return torch.stack((lo, hi), dim=-1).reshape(p.shape[0], -1).to(torch.int8)


def shape_row(tgc, M, KN, scaled, args, stream, weight="i8"):
    K = N = KN
    flops = 2.0 * M * N * K
    tflops = lambda ms: round(flops / ms / 1e9, 1)  # noqa: E731
    G = args.group if scaled else 0
    row = {"M": M, "K": K, "N": N, "weight": weight, "scaled": scaled}
    if G:
        row["group"] = G
    torch.manual_seed(0)
    x = torch.randn(M, K, device=DEV, dtype=torch.bfloat16)
    w_bound = None  # what tgc's w binding gets (default: w)
    if weight == "i8":
        w = torch.randint(-128, 128, (K, N), device=DEV, dtype=torch.int8)
    elif weight == "i4":  # values in int8, bound packed: two per byte, the low nibble first
        w = torch.randint(-8, 8, (K, N), device=DEV, dtype=torch.int8)
        w_packed = pack_i4(w)
        w_bound = w_packed.data_ptr()
    else:  # fp8: normal values of the format (torch rounds, saturating)
        w = (torch.randn(K, N, device=DEV) * 8).to(getattr(torch, FP8_TORCH[weight]))
    scale = (torch.rand(K // G if G else 1, 1 if G else N, *([N] if G else []), device=DEV) * 0.02
             + 0.001).to(torch.bfloat16)

    def dequantise(stored_w):
        """tg's prologue: cast to bf16 (exact), then a bf16 multiply (rounded);
        per group as PyTorch code writes it."""
        converted = stored_w.to(torch.bfloat16)
        if not scaled:
            return converted
        if G:
            return (converted.view(K // G, G, N) * scale).view(K, N)
        return converted * scale
    w_deq = dequantise(w)
    ref = x.float() @ w_deq.float()

    def check(name, y):
        err = max_rel_err(y, ref)
        row["err_" + name] = err
        if not err <= args.tol:
            row.setdefault("bad", []).append(name)

    # PyTorch's way: convert the stored weight, then a bf16 matmul (for i4
    # the stored weight is the packed one, unpacked first).
    stored = (lambda: unpack_i4(w_packed)) if weight == "i4" else (lambda: w)  # noqa: E731
    torch_dequant = lambda: x @ dequantise(stored())  # noqa: E731
    w_bf16 = w_deq.contiguous()
    ceiling = lambda: x @ w_bf16  # noqa: E731
    for name, fn in (("torch_dequant", torch_dequant), ("torch_bf16", ceiling)):
        check(name, fn())
        row[name] = tflops(bench(fn, reps=args.reps, warm=args.warm, batch=args.batch))

    graph = ag.mixed_matmul_graph(M, K, N, scaled, weight=weight, group=G)
    for plan in args.plans.split(","):
        key = "tgc_" + plan
        try:
            exe = tgc.compile(graph, "--arch=%s --backend=%s --mixed-matmul=%s" % (
                args.arch, PLAN_BACKEND.get(plan, "cudnn"), plan))
            y = torch.full((M, N), float("nan"), device=DEV, dtype=torch.bfloat16)
            bindings = {"x": x, "w": w if w_bound is None else w_bound, "y": y}
            if scaled:
                bindings["scale"] = scale
            arr = tgc.bindings(bindings)
            tgc.run(exe, arr, stream)
            torch.cuda.synchronize()
            text = tgc.describe(exe, stream)
            row["ran_" + plan] = backend_of(text)
            if plan == "auto":
                row["auto_plan"] = plan_of(text)
            check(key, y)
            row[key] = tflops(bench(lambda: tgc.run(exe, arr, stream), reps=args.reps, warm=args.warm, batch=args.batch))
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001 - recorded in the row
            row["error_" + plan] = str(ex)[:300]
            row.setdefault("bad", []).append(key)
    for plan in PLANS:
        if row.get("tgc_" + plan) and row.get("torch_dequant"):
            row["ratio_%s_vs_torch_dequant" % plan] = round(row["tgc_" + plan] / row["torch_dequant"], 3)
    if row.get("tgc_generated") and row.get("torch_bf16"):
        row["ratio_generated_vs_torch_bf16"] = round(row["tgc_generated"] / row["torch_bf16"], 3)
    del x, w, w_bf16, w_deq, ref
    torch.cuda.empty_cache()
    return row


def fmt(v, spec="%s"):
    return "-" if v is None else spec % v


def wname(r):
    if r.get("group"):
        return "%s group %d" % (r.get("weight", "i8"), r["group"])
    return "%s %s" % (r.get("weight", "i8"), "scaled" if r["scaled"] else "plain")


def markdown(env, rows, tol):
    L = ["# Mixed-input matmul plans vs PyTorch (%s, %s, commit %s)" % (env["gpu"], env["date"], env["commit"]), "",
         "x bf16 [M,K] · w int8 (or fp8, column w) [K,N] → y bf16; scaled: w × a per-output-channel bf16 scale [1,N]. One process; "
         "torch %s, cuDNN %s (`%s`, also tgc's). TFLOP/s = 2·M·N·K / median time (calls timed back to back per "
         "measurement: %d). tgc: `--backend=cudnn "
         "--mixed-matmul=fused|dequant`, `--mixed-matmul=generated` (NVRTC), `--mixed-matmul=auto` (backend auto); auto's column says which plan the committed table chose. torch "
         "dequant: `x @ w.to(bf16)` (`* scale`), conversion timed; torch bf16: `x @ w_bf16`, weight converted "
         "beforehand (the GEMM ceiling). Every output checked against a float32 reference (TF32 off) of the "
         "bf16-rounded dequantised weight: max err / max |ref| <= %.0e; a failed check or error is marked ✗." % (
             env["torch"], env["torch_cudnn"], env["cudnn_path"], env.get("batch", 1), tol), "",
         "| M | K=N | w | tgc fused | tgc dequant | tgc generated | tgc auto (plan) | torch dequant | torch bf16 | "
         "best tgc / torch dequant | generated / torch bf16 | ran fused / dequant / generated | max err |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("skipped"):
            L.append("| %d | %d | %s | skipped: %s | | | | | | | | | |" % (r["M"], r["K"], wname(r), r["skipped"]))
            continue
        best = max([r.get("tgc_fused") or 0, r.get("tgc_dequant") or 0, r.get("tgc_generated") or 0])
        errs = [r[k] for k in r if k.startswith("err_")]
        L.append("| %d | %d | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s / %s / %s | %s%s |" % (
            r["M"], r["K"], wname(r), fmt(r.get("tgc_fused")), fmt(r.get("tgc_dequant")),
            fmt(r.get("tgc_generated")),
            fmt(r.get("tgc_auto")), r.get("auto_plan", "-"), fmt(r.get("torch_dequant")), fmt(r.get("torch_bf16")),
            fmt(round(best / r["torch_dequant"], 3) if best and r.get("torch_dequant") else None),
            fmt(r.get("ratio_generated_vs_torch_bf16")),
            r.get("ran_fused", "-"), r.get("ran_dequant", "-"), r.get("ran_generated", "-"),
            fmt(max(errs) if errs and all(e == e for e in errs) else (float("nan") if errs else None), "%.1e"),
            " ✗ " + ",".join(r["bad"]) if r.get("bad") else ""))
    errors = [(r, k, r[k]) for r in rows for k in r if k.startswith("error_")]
    if errors:
        L += ["", "Errors:", ""] + ["- M=%d K=N=%d %s, %s: %s" % (r["M"], r["K"], "scaled" if r["scaled"] else "plain",
                                                                   k[6:], e) for r, k, e in errors]
    L += ["", "Fill the table: `python3 bench/fill_mixed_matmul_table.py bench_mixed_matmul.json`."]
    return "\n".join(L) + "\n"


def chart(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = sorted({(r.get("weight", "i8"), r["K"], r["scaled"]) for r in rows})
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 4.5), squeeze=False)
    for ax, (weight, KN, scaled) in zip(axes[0], groups):
        sub = sorted((r for r in rows if r.get("weight", "i8") == weight and r["K"] == KN and r["scaled"] == scaled),
                     key=lambda r: r["M"])
        for key, label in (("tgc_fused", "tgc fused"), ("tgc_dequant", "tgc dequant"),
                           ("tgc_generated", "tgc generated"), ("tgc_auto", "tgc auto"),
                           ("torch_dequant", "torch dequant+mm"), ("torch_bf16", "torch bf16 GEMM")):
            pts = [(r["M"], r[key]) for r in sub if r.get(key)]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=label, linestyle="--" if key == "tgc_auto" else "-")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("M")
        ax.set_title("K=N=%d %s %s (TFLOP/s)" % (KN, weight, "scaled" if scaled else "plain"))
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--ms", default="1,16,64,256,1024,4096,8192,16384")
    ap.add_argument("--kns", default="8192,4096",
                    help="K = N values; 8192 first: the provisional table's shapes, kept if --total-s runs out")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--tol", type=float, default=2e-2)
    ap.add_argument("--total-s", type=float, default=180, help="shapes after this are skipped")
    ap.add_argument("--plans", default=",".join(PLANS), help="tgc plans to time (default: all)")
    ap.add_argument("--batch", type=int, default=1,
                    help="calls timed back to back per measurement (every column alike; 1: one call, "
                         "host launch time included)")
    ap.add_argument("--weights", default="i8", help="weight types: i8, i4, f8E4M3FN, f8E5M2 (comma-separated)")
    ap.add_argument("--group", type=int, default=0,
                    help="scaled rows scale per group of G rows ([K/G, 1, N], written as PyTorch code "
                         "writes it: view, multiply, view back); plain rows are then left out")
    ap.add_argument("--scaled", default="plain,scaled", help="which of plain, scaled to run")
    args = ap.parse_args()
    t_start = time.time()
    torch.backends.cuda.matmul.allow_tf32 = False  # the float32 reference is exact f32
    version, path = torch_cudnn()
    if path:
        os.environ["TGC_CUDNN_LIBRARY"] = path
    log = tempfile.NamedTemporaryFile(prefix="tgc-log-", suffix=".txt", delete=False).name
    os.environ.setdefault("TGC_LOG", "info")
    os.environ.setdefault("TGC_LOG_FILE", log)
    tgc = TgcX(args.lib)
    env = {"torch": torch.__version__, "torch_cudnn": version, "cudnn_path": path, "gpu": torch.cuda.get_device_name(),
           "commit": os.environ.get("TGC_COMMIT", "unknown"), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
           "tol": args.tol, "batch": args.batch}
    print(env, flush=True)
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for weight in args.weights.split(","):
      for KN in map(int, args.kns.split(",")):
        for scaled in [s == "scaled" for s in args.scaled.split(",") if not (args.group and s == "plain")]:
            for M in map(int, args.ms.split(",")):
                if time.time() - t_start > args.total_s:
                    rows.append({"M": M, "K": KN, "N": KN, "weight": weight, "scaled": scaled,
                                 "group": args.group if scaled else 0, "skipped": "time budget"})
                    continue
                t0 = time.time()
                row = shape_row(tgc, M, KN, scaled, args, stream, weight)
                row["seconds"] = round(time.time() - t0, 1)
                rows.append(row)
                print("mixed", row, flush=True)
    env["seconds"] = round(time.time() - t_start, 1)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_mixed_matmul.json"), "w") as f:
        json.dump({"env": env, "rows": rows}, f, indent=1)
    md = markdown(env, rows, args.tol)
    with open(os.path.join(args.out, "bench_mixed_matmul.md"), "w") as f:
        f.write(md)
    print(md)
    try:
        chart(os.path.join(args.out, "bench_mixed_matmul.png"), [r for r in rows if not r.get("skipped")])
    except Exception as ex:  # noqa: BLE001
        print("chart failed:", ex)
    print("bench_mixed_matmul: %.0f s" % env["seconds"])
    sys.exit(1 if any(r.get("bad") for r in rows) else 0)


if __name__ == "__main__":
    main()
