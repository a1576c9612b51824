#!/usr/bin/env python3
"""Benchmark (not a test): the attention forward with a score modifier
(softcap 30 causal, ALiBi, additive bias) in one process: tgc's generated
kernel (--backend=nvrtc) and tgc on cuDNN (--backend=cudnn) vs FlexAttention
(torch.compile'd flex_attention, forward only, no grad) with the same
score_mod, and torch SDPA cuDNN without the modifier as the plain ceiling.

tgc runs through libtgc's C API on torch tensors and torch's stream (the
graphs of test/gpu/attention_graphs.py: tg.sdpa with softcap / alibi / bias).
Each tgc output is poisoned with NaN first and compared with Flex's (error
relative to max |Flex|, 3e-2 to pass). TFLOP/s = 4*B*H*S^2*hd (x0.5 causal).

Usage (GPU machine): python3 bench/bench_forward_variants.py --lib .carry/tgc/lib/libtgc.so --out $OUT
Writes bench_forward_variants.json and .md under --out."""
import argparse, json, os, sys, time

import torch  # first: torch's CUDA context and stream
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "gpu"))
from bench_attention import bench  # noqa: E402
from bench_backward import TOL, Tgc, alibi_slopes, environment, flex_case, short  # noqa: E402
from bench_cudnn import backend_of, rel_err  # noqa: E402
import attention_graphs as ag  # noqa: E402

DEV = "cuda"
CASES = {  # name: the tg.sdpa options of tgc's graph
    "softcap30": dict(softcap=30.0, causal="top_left"),
    "alibi": dict(alibi=True),
    "bias": dict(bias=True, causal="top_left"),
}


def row_for(tgc, name, hd, S, args, stream, flex):
    H, B = 2048 // hd, max(1, 16384 // S)
    opts = CASES[name]
    causal = opts.get("causal") is not None
    flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
    row = {"case": name, "hd": hd, "S": S, "B": B, "H": H}
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, hd, device=DEV, dtype=torch.bfloat16) for _ in range(3))
    bias = torch.randn(1, H, S, S, device=DEV, dtype=torch.float32) if name == "bias" else None
    slopes = alibi_slopes(H)
    ref = None
    try:
        from torch.nn.attention.flex_attention import create_block_mask
        score_mod, _, flex_causal = flex_case(name, H, S, bias[0] if bias is not None else None, slopes, None)
        block_mask = (create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, S, S, device=DEV)
                      if flex_causal else None)
        with torch.no_grad():
            ref = flex(q, k, v, score_mod=score_mod, block_mask=block_mask)
            row["flex"] = round(flops / bench(lambda: flex(q, k, v, score_mod=score_mod, block_mask=block_mask),
                                              reps=args.reps, warm=args.warm) / 1e9, 1)
    except Exception as ex:  # noqa: BLE001
        row["flex_error"] = short(ex)
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            row["torch_cudnn_plain"] = round(flops / bench(
                lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), reps=args.reps,
                warm=args.warm) / 1e9, 1)
    except Exception as ex:  # noqa: BLE001
        row["torch_cudnn_error"] = short(ex)
    c = dict(B=B, Hq=H, Hkv=H, Sq=S, Skv=S, D=hd, dtype="bf16", **opts)
    for backend in ("nvrtc", "cudnn"):
        o = torch.full_like(q, float("nan"))
        tensors = {"q": q, "k": k, "v": v, "o": o}
        if bias is not None:
            tensors["bias"] = bias
        try:
            exe, arr, desc, _, _ = tgc.prepared(ag.sdpa_graph(c), tensors, args, stream, backend=backend)
            row["tgc_%s_ran" % backend] = backend_of(desc)
            if ref is not None:
                err = rel_err(o, ref)
                row["tgc_%s_err" % backend] = err
                row["tgc_%s_ok" % backend] = bool(err == err and err < TOL)
            row["tgc_" + backend] = round(flops / bench(lambda: tgc.run(exe, arr, stream), reps=args.reps,
                                                        warm=args.warm) / 1e9, 1)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            row["tgc_%s_error" % backend] = short(ex)
            row["tgc_%s_ok" % backend] = False
    for backend in ("nvrtc", "cudnn"):
        if row.get("tgc_" + backend) and row.get("flex"):
            row["%s_vs_flex" % backend] = round(row["tgc_" + backend] / row["flex"], 3)
    return row


def markdown(env, rows):
    lines = ["# Attention forward with a score modifier: tgc vs FlexAttention (%s, %s, commit %s)" % (
        env["gpu"], env["date"], env["commit"]), "",
        "torch %s, cuDNN %s, bf16, 16k tokens, H = 2048 / hd; TFLOP/s (causal counts half)." % (
            env["torch"], env["cudnn"]), "",
        "| case | hd | S | BxH | tgc NVRTC | tgc cuDNN | Flex | NVRTC/Flex | cuDNN/Flex | torch cuDNN plain | err | ran |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        err = r.get("tgc_nvrtc_err")
        lines.append("| %s | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["hd"], r["S"], r["B"], r["H"], r.get("tgc_nvrtc", r.get("tgc_nvrtc_error", "-")),
            r.get("tgc_cudnn", r.get("tgc_cudnn_error", "-")), r.get("flex", r.get("flex_error", "-")),
            r.get("nvrtc_vs_flex", "-"), r.get("cudnn_vs_flex", "-"), r.get("torch_cudnn_plain", "-"),
            ("%.1e" % err) if isinstance(err, float) else "-",
            "%s / %s" % (r.get("tgc_nvrtc_ran", "-"), r.get("tgc_cudnn_ran", "-"))))
    bad = [r for r in rows if r.get("tgc_nvrtc_ok") is False or r.get("tgc_cudnn_ok") is False]
    lines += ["", "tgc results outside %.0e of Flex (or failed): %s" % (
        TOL, ", ".join("%s hd%d S=%d" % (r["case"], r["hd"], r["S"]) for r in bad) or "none")]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--fast-math", action="store_true",
                    help="compile with --fast-math (approximate tanh/exp/log in score regions)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--hds", default="64,128")
    ap.add_argument("--seqlens", default="4096,8192")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warm", type=int, default=3)
    args = ap.parse_args()
    t_start = time.time()
    tgc = Tgc(args.lib)
    env = environment()
    stream = torch.cuda.current_stream().cuda_stream
    from torch.nn.attention.flex_attention import flex_attention
    flex = torch.compile(flex_attention)
    rows = []
    for hd in map(int, args.hds.split(",")):
        for S in map(int, args.seqlens.split(",")):
            for name in args.cases.split(","):
                row = row_for(tgc, name, hd, S, args, stream, flex)
                rows.append(row)
                print(json.dumps(row), flush=True)
                torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_forward_variants.json"), "w") as f:
        json.dump({"env": env, "rows": rows, "seconds": round(time.time() - t_start, 1)}, f, indent=1)
    text = markdown(env, rows)
    with open(os.path.join(args.out, "bench_forward_variants.md"), "w") as f:
        f.write(text)
    print(text)
    sys.exit(1 if any(r.get("tgc_nvrtc_ok") is False for r in rows) else 0)


if __name__ == "__main__":
    main()
