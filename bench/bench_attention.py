#!/usr/bin/env python3
"""Benchmark (not a test): tgc forward attention side by side with PyTorch's
SDPA backends (flash = FlashAttention-2, cudnn) in one process, on the shape
grid of the anchors (hd 64/128/256, causal and not, S 512..16384, B*S = 16k
tokens, H = 2048/hd, bf16).

tgc is called through its C API (libtgc.so: tgc_compile_string, tgc_run; via
the Python package's tgc.Library) on torch tensors' device pointers, on torch's current stream. Each tgc output
is compared with flash's (max abs error) so that a fast wrong kernel cannot
pass unnoticed; the output is poisoned with NaN before tgc runs.

Usage (GPU machine): python3 bench/bench_attention.py --lib build/lib/libtgc.so --out $OUT
Writes bench.json, bench.md and bench.png under --out."""
import argparse, json, os, subprocess, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import tgc  # noqa: E402  (the package's C API wrapper: tgc.Library)


class Tgc:
    """The bits of tgc.Library this benchmark uses."""

    def __init__(self, path):
        self.library = tgc.Library(path)

    def compile(self, mlir, backend):
        return self.library.compile(mlir, "--arch=sm_90a --backend=" + backend)

    @staticmethod
    def ran(exe, stream):
        """What the runtime runs for each step ("nvrtc", "cudnn", "nvrtc
        (fallback)"), joined: the label of the tgc column."""
        kinds = []
        for line in exe.describe(stream).splitlines():
            if not line.startswith("step "):
                continue
            what = line.split(":", 2)[1].strip() if line.count(":") >= 2 else "?"
            if what != "cudnn" and "fallback" in line:
                what += " (fallback)"
            kinds.append(what)
        return "+".join(sorted(set(kinds))) or "?"

    def bindings(self, tensors):
        return tgc.BindingArray.from_dict(tensors)

    def run(self, exe, arr, stream):
        exe.run(arr, stream)


def graph(B, H, S, D, causal):
    t = "tensor<%dx%dx%dx%dxbf16>" % (B, H, S, D)
    attrs = "{causal = #tg<causal top_left>}" if causal else ""
    return ('func.func @attention(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"})'
            ' -> (%s {tg.name = "o"}) {\n  %%o = tg.sdpa %%q, %%k, %%v %s : %s, %s, %s -> %s\n  return %%o : %s\n}\n'
            % (t, t, t, t, attrs, t, t, t, t, t))


def pyplot_or_none():
    """matplotlib.pyplot with the file-only backend, or None (printed) where
    matplotlib is missing: a chart is skipped, never the benchmark."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except Exception as ex:  # noqa: BLE001
        print("chart skipped:", ex)
        return None


def bench(fn, reps=20, warm=3, batch=1):
    """Median ms of one call over `reps` samples; each sample times `batch`
    calls back to back between two events (batch 1 also counts the host's
    launch time of the call)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(batch):
            fn()
        e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / batch)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--seqlens", default="512,2048,8192,16384")
    ap.add_argument("--hds", default="64,128,256")
    ap.add_argument("--backend", default="nvrtc", choices=["nvrtc", "cudnn", "auto"],
                    help="tgc's backend (the column is labelled by what actually ran)")
    args = ap.parse_args()
    tgc = Tgc(args.lib)
    dev = "cuda"
    commit = os.environ.get("TGC_COMMIT", "unknown")
    env = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(),
           "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(env, flush=True)
    rows = []
    for hd in map(int, args.hds.split(",")):
        for causal in (False, True):
            for S in map(int, args.seqlens.split(",")):
                B = max(1, 16384 // S); H = 2048 // hd
                torch.manual_seed(0)
                q, k, v = (torch.randn(B, H, S, hd, device=dev, dtype=torch.bfloat16) for _ in range(3))
                o = torch.full_like(q, float("nan"))
                flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
                row = {"hd": hd, "causal": causal, "S": S, "B": B, "H": H}
                t0 = time.time()
                exe = tgc.compile(graph(B, H, S, hd, causal), args.backend)
                arr = tgc.bindings({"q": q, "k": k, "v": v, "o": o})
                stream = torch.cuda.current_stream().cuda_stream
                tgc.run(exe, arr, stream); torch.cuda.synchronize()
                row["tgc_ran"] = tgc.ran(exe, stream)
                row["tgc_compile_s"] = round(time.time() - t0, 2)
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                err = (o.float() - ref.float()).abs().max().item()
                row["tgc_max_abs_err_vs_flash"] = err
                row["tgc_ok"] = bool(err == err and err < 3e-2)  # NaN fails
                row["tgc_fwd"] = round(flops / bench(lambda: tgc.run(exe, arr, stream)) / 1e9, 1)
                for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                    try:
                        with sdpa_kernel([be]):
                            row[name + "_fwd"] = round(flops / bench(
                                lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)) / 1e9, 1)
                    except Exception as ex:
                        row[name + "_fwd"] = None; row[name + "_err"] = str(ex)[:100]
                for name in ("flash", "cudnn"):
                    if row.get(name + "_fwd"):
                        row["ratio_" + name] = round(row["tgc_fwd"] / row[name + "_fwd"], 3)
                rows.append(row)
                print(row, flush=True)
                exe.destroy()
                del q, k, v, o
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"env": env, "rows": rows}, f, indent=1)
    lines = ["# tgc forward attention vs PyTorch SDPA (%s, %s, commit %s)" % (env["gpu"], env["date"], commit), "",
             "tgc called through the C API (tgc_compile_string + tgc_run) on torch tensors; bf16; TFLOP/s = 4*B*H*S^2*hd (x0.5 causal) / median time.", "",
             "| hd | causal | S | BxH | tgc | tgc ran | flash (FA2) | cudnn | tgc/flash | tgc/cudnn | max abs err vs flash |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %d | %s | %d | %dx%d | %s | %s | %s | %s | %s | %s | %.2e |" % (
            r["hd"], "yes" if r["causal"] else "no", r["S"], r["B"], r["H"], r["tgc_fwd"], r["tgc_ran"], r.get("flash_fwd"),
            r.get("cudnn_fwd"), r.get("ratio_flash"), r.get("ratio_cudnn"), r["tgc_max_abs_err_vs_flash"]))
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 3, figsize=(15, 4), sharey=True)
        for ax, hd in zip(axes, sorted({r["hd"] for r in rows})):
            sub = [r for r in rows if r["hd"] == hd]
            labels = ["%s%d" % ("c" if r["causal"] else "", r["S"]) for r in sub]
            x = range(len(sub))
            ran = "/".join(sorted({r["tgc_ran"] for r in rows}))
            for i, (key, name) in enumerate((("tgc_fwd", "tgc (%s)" % ran), ("flash_fwd", "flash (FA2)"),
                                             ("cudnn_fwd", "cudnn"))):
                ax.bar([xi + (i - 1) * 0.27 for xi in x], [r.get(key) or 0 for r in sub], 0.27, label=name)
            ax.set_xticks(list(x)); ax.set_xticklabels(labels, rotation=45); ax.set_title("hd %d (bf16 fwd)" % hd)
        axes[0].set_ylabel("TFLOP/s"); axes[0].legend()
        fig.tight_layout(); fig.savefig(os.path.join(args.out, "bench.png"), dpi=90)
    except Exception as ex:
        print("chart failed:", ex)
    bad = [r for r in rows if not r["tgc_ok"]]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
