#!/usr/bin/env python3
"""Benchmark (not a test): FP8 attention forward, tgc's generated sm_90a
kernel (--backend=nvrtc) against tgc's cuDNN FP8 graph (--backend=cudnn,
the libcudnn torch loaded) and torch's bf16 attention (cuDNN, flash) on the
same inputs, in one process.

Grid: hd 128 and 256, S 4096 / 8192 / 16384, causal and not, B = 16384/S,
H = 2048/hd, e4m3 in and out (the FP8 graph of attention_graphs.py:
fp8_sdpa_graph, with amax results). Inputs: N(0,1) rounded to e4m3,
descales 1, scale_s 448 / descale_s 1/448, scale_o 16. Outputs are
poisoned (NaN) before each backend runs. Checks per row: each tgc output
against torch's bf16 SDPA on the same (exactly converted) inputs, the
NVRTC output against the cuDNN output, and both amax results; a row with a
NaN or an error above --tol is not ok.
TFLOP/s: 4*B*H*S^2*hd (x0.5 causal). The issue's goal: >= 1200 TFLOP/s at
hd 256, S 16k.

Usage (GPU machine): python3 bench/bench_fp8.py --lib .carry/tgc/lib/libtgc.so --out $OUT
--tiles sweeps other tiles of the NVRTC kernel (tg-compile --attention-tile).
Writes bench_fp8.json, bench_fp8.md and bench_fp8.png under --out."""
import argparse, json, os, sys, time

import torch  # first: its cuDNN is the one tgc must use
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "gpu"))
import bench_cudnn as bc  # noqa: E402
from bench_attention import bench  # noqa: E402
import attention_graphs as ag  # noqa: E402

GOAL_TFLOPS = 1200.0


def rel(got, ref):
    return bc.rel_err(got, ref)


def run_case(tgc, args, stream, hd, S, causal):
    B, H = max(1, 16384 // S), 2048 // hd
    flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
    row = dict(hd=hd, S=S, B=B, H=H, causal=causal)
    graph = ag.fp8_sdpa_graph(B, H, S, hd, causal)
    inputs, outputs = None, {}
    for backend in ("cudnn", "nvrtc"):
        try:
            t0 = time.time()
            exe = tgc.compile(graph, "--arch=%s --backend=%s" % (args.arch, backend))
            tensors = bc.make_buffers(tgc, exe, S)
            if inputs is None:
                inputs = {n: t for n, t in tensors.items() if n not in ("o", "amax_s", "amax_o")}
            tensors.update(inputs)  # the same q, k, v and scales for both backends
            arr = tgc.bindings(tensors)
            row[backend + "_ran"] = bc.backend_of(tgc.describe(exe, stream))
            tgc.run(exe, arr, stream)
            torch.cuda.synchronize()
            row[backend + "_setup_s"] = round(time.time() - t0, 2)
            outputs[backend] = {n: tensors[n].clone() for n in ("o", "amax_s", "amax_o")}
            ms = bench(lambda: tgc.run(exe, arr, stream), reps=args.reps, warm=args.warm)
            row[backend + "_ms"] = round(ms, 4)
            row[backend] = round(flops / ms / 1e9, 1)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            row[backend + "_error"] = str(ex)[:300]
    if inputs is None:
        return row
    q, k, v = (inputs[n].to(torch.bfloat16) for n in ("q", "k", "v"))
    scale_o = inputs["scale_o"].item()
    ref = None
    for name, kind in (("torch_cudnn_bf16", SDPBackend.CUDNN_ATTENTION), ("torch_flash_bf16", SDPBackend.FLASH_ATTENTION)):
        try:
            with sdpa_kernel([kind]):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                if ref is None:
                    ref = out.float()
                row[name] = round(flops / bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                               reps=args.reps, warm=args.warm) / 1e9, 1)
        except Exception as ex:  # noqa: BLE001
            row[name + "_error"] = str(ex)[:200]
    errs = []
    for backend, out in outputs.items():
        o = out["o"].float() / scale_o
        if ref is not None:
            row[backend + "_err_vs_bf16"] = rel(o, ref)
            errs.append(row[backend + "_err_vs_bf16"])
        row[backend + "_amax_s"] = out["amax_s"].item()
        row[backend + "_amax_o"] = out["amax_o"].item()
        if ref is not None:
            # amax_o is max |O| before scale_o: compare with the bf16 reference.
            row[backend + "_amax_o_vs_bf16"] = abs(out["amax_o"].item() - ref.abs().max().item()) / ref.abs().max().item()
            errs.append(row[backend + "_amax_o_vs_bf16"])
    if len(outputs) == 2:
        row["nvrtc_vs_cudnn_err"] = rel(outputs["nvrtc"]["o"].float(), outputs["cudnn"]["o"].float())
        a, b = outputs["nvrtc"]["amax_s"].item(), outputs["cudnn"]["amax_s"].item()
        row["amax_s_rel_diff"] = abs(a - b) / max(abs(b), 1e-30)
        errs += [row["nvrtc_vs_cudnn_err"], row["amax_s_rel_diff"]]
    if row.get("nvrtc") and row.get("cudnn"):
        row["nvrtc_over_cudnn"] = round(row["nvrtc"] / row["cudnn"], 3)
    # Tile sweep (--tiles): the NVRTC kernel with other tiles, each checked
    # against the cuDNN output.
    for tile in args.tile_map.get(hd, []):
        entry = row.setdefault("tiles", {}).setdefault(tile, {})
        try:
            exe = tgc.compile(graph, "--arch=%s --backend=nvrtc --attention-tile=%s" % (args.arch, tile))
            tensors = bc.make_buffers(tgc, exe, S)
            tensors.update(inputs)
            arr = tgc.bindings(tensors)
            tgc.run(exe, arr, stream)
            torch.cuda.synchronize()
            if "cudnn" in outputs:
                entry["err_vs_cudnn"] = rel(tensors["o"].float(), outputs["cudnn"]["o"].float())
            entry["tflops"] = round(flops / bench(lambda: tgc.run(exe, arr, stream), reps=args.reps,
                                                  warm=args.warm) / 1e9, 1)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            entry["error"] = str(ex)[:300]
    row["ok"] = bool(errs) and all(e == e and e < args.tol for e in errs) and "nvrtc_error" not in row
    return row


def markdown(env, rows):
    L = ["# FP8 attention forward: tgc NVRTC (sm_90a) vs tgc cuDNN vs torch bf16", ""]
    L += ["- %s: %s" % kv for kv in env.items()]
    L += ["", "TFLOP/s (4·B·H·S²·hd, ×0.5 causal); e4m3 in and out; goal: NVRTC ≥ %.0f at hd 256, S 16k." % GOAL_TFLOPS,
          "Errors: max |o/scale_o − torch bf16 SDPA| / max |torch|; NVRTC vs cuDNN the same on the fp8 outputs.", "",
          "| hd | S | causal | tgc nvrtc | tgc cudnn | nvrtc/cudnn | torch cudnn bf16 | torch flash bf16 | nvrtc err | "
          "cudnn err | nvrtc vs cudnn | amax_s nvrtc / cudnn | amax_o nvrtc / cudnn | ok |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda v, s="%.1f": (s % v) if isinstance(v, (int, float)) else "-"  # noqa: E731
    for r in rows:
        L.append("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s |" % (
            r["hd"], r["S"], "yes" if r["causal"] else "no", f(r.get("nvrtc")), f(r.get("cudnn")),
            f(r.get("nvrtc_over_cudnn"), "%.3f"), f(r.get("torch_cudnn_bf16")), f(r.get("torch_flash_bf16")),
            f(r.get("nvrtc_err_vs_bf16"), "%.3g"), f(r.get("cudnn_err_vs_bf16"), "%.3g"),
            f(r.get("nvrtc_vs_cudnn_err"), "%.3g"), f(r.get("nvrtc_amax_s"), "%.4g"), f(r.get("cudnn_amax_s"), "%.4g"),
            f(r.get("nvrtc_amax_o"), "%.4g"), f(r.get("cudnn_amax_o"), "%.4g"), "yes" if r.get("ok") else "NO"))
        for key in ("nvrtc_error", "cudnn_error"):
            if key in r:
                L.append("|  |  |  | %s: %s |" % (key, r[key].replace("|", "/")[:200]))
    swept = [r for r in rows if r.get("tiles")]
    if swept:
        L += ["", "Tile sweep (tg-compile --attention-tile; TFLOP/s, error vs the cuDNN output):", "",
              "| hd | S | causal | default | tile | TFLOP/s | err vs cuDNN |", "|---|---|---|---|---|---|---|"]
        for r in swept:
            for tile, e in r["tiles"].items():
                L.append("| %d | %d | %s | %s | %s | %s | %s |" % (
                    r["hd"], r["S"], "yes" if r["causal"] else "no", f(r.get("nvrtc")), tile, f(e.get("tflops")),
                    f(e.get("err_vs_cudnn"), "%.3g") if "error" not in e else e["error"][:120].replace("|", "/")))
    return "\n".join(L) + "\n"


def chart(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    hds = sorted({r["hd"] for r in rows})
    fig, axes = plt.subplots(1, len(hds), figsize=(6 * len(hds), 4.5), squeeze=False)
    series = (("nvrtc", "tgc nvrtc fp8"), ("cudnn", "tgc cudnn fp8"), ("torch_cudnn_bf16", "torch cudnn bf16"))
    for col, hd in enumerate(hds):
        ax = axes[0][col]
        sub = [r for r in rows if r["hd"] == hd]
        x = list(range(len(sub)))
        w = 0.8 / len(series)
        for i, (key, name) in enumerate(series):
            ax.bar([xi + (i - 1) * w for xi in x], [r.get(key) or 0 for r in sub], w, label=name)
        ax.axhline(GOAL_TFLOPS, color="k", ls="--", lw=1, label="goal %.0f" % GOAL_TFLOPS)
        ax.set_xticks(x)
        ax.set_xticklabels(["%s%dk" % ("c" if r["causal"] else "", r["S"] // 1024) for r in sub])
        ax.set_title("FP8 forward, hd %d (TFLOP/s)" % hd)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--seqlens", default="4096,8192,16384")
    ap.add_argument("--hds", default="128,256")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warm", type=int, default=3)
    ap.add_argument("--tol", type=float, default=0.1, help="relative error for ok (fp8 outputs)")
    ap.add_argument("--budget-s", type=float, default=200, help="later cases are skipped")
    ap.add_argument("--tiles", default="", help="tile sweep: HD=TILE,TILE;HD=... (tg-compile --attention-tile "
                    "syntax), each also run and checked per case")
    args = ap.parse_args()
    args.tile_map = {}
    for part in filter(None, args.tiles.split(";")):
        hd, tiles = part.split("=", 1)
        args.tile_map[int(hd)] = tiles.split(",")
    cudnn_version, cudnn_path = bc.torch_cudnn()
    if cudnn_path:
        os.environ["TGC_CUDNN_LIBRARY"] = cudnn_path
    tgc = bc.TgcX(args.lib)
    stream = torch.cuda.current_stream().cuda_stream
    env = dict(commit=os.environ.get("TGC_COMMIT", "unknown"), date=time.strftime("%Y-%m-%d"),
               gpu=torch.cuda.get_device_name(), torch=torch.__version__, cudnn=cudnn_version,
               cudnn_library=cudnn_path or "?")
    deadline = time.time() + args.budget_s
    rows = []
    for hd in map(int, args.hds.split(",")):
        for S in map(int, args.seqlens.split(",")):
            for causal in (False, True):
                if time.time() > deadline:
                    rows.append(dict(hd=hd, S=S, causal=causal, skipped="time budget"))
                    continue
                row = run_case(tgc, args, stream, hd, S, causal)
                print("fp8", json.dumps(row), flush=True)
                rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_fp8.json"), "w") as f:
        json.dump(dict(env=env, rows=rows), f, indent=1)
    done = [r for r in rows if "skipped" not in r]
    with open(os.path.join(args.out, "bench_fp8.md"), "w") as f:
        f.write(markdown(env, done))
    try:
        chart(os.path.join(args.out, "bench_fp8.png"), done)
    except Exception as ex:  # noqa: BLE001
        print("chart failed:", ex, flush=True)
    print(markdown(env, done))


if __name__ == "__main__":
    main()
