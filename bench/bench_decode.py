#!/usr/bin/env python3
"""Benchmark (not a test): decode over a paged K/V cache, bf16, on an H200.

B sequences with a cached length L each (GQA Hq/Hkv, hd D), Sq new query
tokens per sequence (1 = decode, up to 16 = speculative decoding):

  tgc_paged_pN   tg.sdpa with page_table over [num_pages, N, Hkv, D] pages
                 (a shuffled page table: pages are not contiguous), seq_len_kv
  tgc_dense      the same cache as dense [B, Hkv, L, D] tensors
  tgc_dense_softcap30  the same with Gemma 2's softcap (a score region in
                 the decode kernel), checked against torch's f32 softcap
  tgc_cudnn_dense  the dense step planned on cuDNN (--backend=cudnn): what
                 the backend choice weighs the decode kernel against
  torch_sdpa     torch SDPA on the dense cache (enable_gqa; the default
                 backend torch picks for it)

Bandwidth: the bytes a decode step must read (K and V of every cached key,
q) and write (o) over the time, as a fraction of the H200's 4.8 TB/s (the
issue's goal: >= 85% at B >= 8, kv >= 8k, GQA 64/8, hd 128, pages 16-64).
The time is the GPU's per step with steps queued back to back (as a serving
loop or a CUDA graph runs them): `ms`; `ms_single` is one step timed alone,
which also counts the host's launch of it (tgc's ctypes call, torch's
dispatch) while the GPU waits. read_ceiling is torch reading the same bytes
(a sum over a tensor of K + V's size): what this GPU's HBM gives a plain
streaming read.
Every tgc output is poisoned with NaN first and compared with torch SDPA
on the gathered dense cache (bf16 tolerance 3e-2; NaN fails).

Usage (GPU machine): python3 bench/bench_decode.py --lib .carry/tgc/lib/libtgc.so --out $OUT
Writes bench_decode.json, bench_decode.md and the chart bench_decode.svg
(bench/plot_decode.py) under --out."""
import argparse, json, math, os, sys, time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import tgc  # noqa: E402
from bench_attention import bench  # noqa: E402


def bench_queued(fn, steps=50, reps=5):
    """GPU ms per call with `steps` calls queued back to back (median of reps)."""
    return bench(fn, reps=reps, warm=3, batch=steps)

HBM = 4.8e12  # bytes/s, H200


def ttype(shape, elem):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


def paged_graph(B, Hq, Hkv, Sq, D, pages, ps, maxp):
    q, kv = ttype([B, Hq, Sq, D], "bf16"), ttype([pages, ps, Hkv, D], "bf16")
    t, l = ttype([B, maxp], "i32"), ttype([B], "i32")
    return ('func.func @paged(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}, '
            '%%lens: %s {tg.name = "lens"}, %%table: %s {tg.name = "table"}) -> (%s {tg.name = "o"}) {\n'
            '  %%o = tg.sdpa %%q, %%k, %%v seq_len_kv(%%lens : %s) page_table(%%table : %s) '
            '{causal = #tg<causal bottom_right>} : %s, %s, %s -> %s\n'
            '  return %%o : %s\n}\n' % (q, kv, kv, l, t, q, l, t, q, kv, kv, q, q))


def dense_graph(B, Hq, Hkv, Sq, L, D, softcap=None):
    q, kv = ttype([B, Hq, Sq, D], "bf16"), ttype([B, Hkv, L, D], "bf16")
    attrs = "causal = #tg<causal bottom_right>" + (", softcap = %r : f64" % softcap if softcap else "")
    return ('func.func @dense(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"}) '
            '-> (%s {tg.name = "o"}) {\n'
            '  %%o = tg.sdpa %%q, %%k, %%v {%s} : %s, %s, %s -> %s\n'
            '  return %%o : %s\n}\n' % (q, kv, kv, q, attrs, q, kv, kv, q, q))


def softcap_reference(q, k, v, cap, mask):
    """Softcapped attention (Gemma 2: cap * tanh(s / cap)) in f32 on the GPU."""
    group = q.shape[1] // k.shape[1]
    kk, vv = k.repeat_interleave(group, 1).float(), v.repeat_interleave(group, 1).float()
    s = q.float() @ kk.transpose(-1, -2) / math.sqrt(q.shape[-1])
    s = cap * torch.tanh(s / cap)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return (s.softmax(-1) @ vv).to(q.dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--batches", default="8,32")
    ap.add_argument("--kv", type=int, default=8192)
    ap.add_argument("--hq", type=int, default=64)
    ap.add_argument("--hkv", type=int, default=8)
    ap.add_argument("--D", type=int, default=128)
    ap.add_argument("--sq", default="1,4")
    ap.add_argument("--pages", default="16,64")
    ap.add_argument("--arch", default="sm_90a")
    args = ap.parse_args()
    lib = tgc.Library(args.lib)
    dev = "cuda"
    stream = torch.cuda.current_stream().cuda_stream
    env = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
           "commit": os.environ.get("TGC_COMMIT", "unknown"), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(env, flush=True)
    Hq, Hkv, D, L = args.hq, args.hkv, args.D, args.kv
    rows = []
    torch.manual_seed(0)
    for B in map(int, args.batches.split(",")):
        for Sq in map(int, args.sq.split(",")):
            k = torch.randn(B, Hkv, L, D, device=dev, dtype=torch.bfloat16)
            v = torch.randn(B, Hkv, L, D, device=dev, dtype=torch.bfloat16)
            q = torch.randn(B, Hq, Sq, D, device=dev, dtype=torch.bfloat16)
            nbytes = 2 * k.numel() * 2 + 2 * q.numel() * 2
            # Bottom-right causal over the cache: each new token sees the cache
            # and the new tokens before it; SDPA's is_causal is top-left, so an
            # explicit mask (Sq = 1: no mask).
            mask = None
            if Sq > 1:
                qi = torch.arange(Sq, device=dev)[:, None] + (L - Sq)
                mask = torch.arange(L, device=dev)[None, :] <= qi
            ref_fn = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
                q, k, v, attn_mask=mask, enable_gqa=True)
            ref = ref_fn()
            base = dict(B=B, Sq=Sq, L=L, Hq=Hq, Hkv=Hkv, D=D, bytes=nbytes)

            def record(case, fn, out=None, extra=None):
                ms = bench_queued(fn)
                r = dict(base, case=case, ms=round(ms, 4), ms_single=round(bench(fn), 4),
                         tb_s=round(nbytes / (ms * 1e-3) / 1e12, 3),
                         hbm_fraction=round(nbytes / (ms * 1e-3) / HBM, 3))
                if out is not None:
                    err = (out.float() - ref.float()).abs().max().item()
                    r["max_abs_err"] = err
                    r["ok"] = bool(err == err and err < 3e-2)
                r.update(extra or {})
                rows.append(r)
                print(r, flush=True)

            flat = torch.randn(nbytes // 2, device=dev, dtype=torch.bfloat16)
            record("read_ceiling", lambda: flat.sum())
            del flat
            record("torch_sdpa", ref_fn)
            # tgc on the dense cache.
            exe = lib.compile(dense_graph(B, Hq, Hkv, Sq, L, D), "--arch=%s --backend=nvrtc" % args.arch)
            o = torch.full_like(q, float("nan"))
            arr = tgc.BindingArray.from_dict(dict(q=q, k=k, v=v, o=o))
            exe.run(arr, stream)
            torch.cuda.synchronize()
            record("tgc_dense", lambda: exe.run(arr, stream), o)
            # The same graph on cuDNN, in the same process: the row the
            # backend choice is measured by. `ran` says what ran the step.
            try:
                cu = lib.compile(dense_graph(B, Hq, Hkv, Sq, L, D), "--arch=%s --backend=cudnn" % args.arch)
                o_cu = torch.full_like(q, float("nan"))
                arr_cu = tgc.BindingArray.from_dict(dict(q=q, k=k, v=v, o=o_cu))
                cu.run(arr_cu, stream)
                torch.cuda.synchronize()
                record("tgc_cudnn_dense", lambda: cu.run(arr_cu, stream), o_cu,
                       extra=dict(ran=cu.describe(stream).strip().replace("\n", "; ")))
                del cu, arr_cu
            except Exception as e:  # cuDNN refused the graph: say why, keep going
                print("tgc_cudnn_dense (B %d, Sq %d): %s" % (B, Sq, e), flush=True)
            # A score region in the decode kernel: Gemma 2's softcap of 30.
            sc = lib.compile(dense_graph(B, Hq, Hkv, Sq, L, D, softcap=30.0), "--arch=%s --backend=nvrtc" % args.arch)
            o_sc = torch.full_like(q, float("nan"))
            arr_sc = tgc.BindingArray.from_dict(dict(q=q, k=k, v=v, o=o_sc))
            sc.run(arr_sc, stream)
            torch.cuda.synchronize()
            plain_ref = ref
            ref = softcap_reference(q, k, v, 30.0, mask)
            record("tgc_dense_softcap30", lambda: sc.run(arr_sc, stream), o_sc)
            ref = plain_ref
            del sc, arr_sc
            for ps in map(int, args.pages.split(",")):
                maxp = L // ps
                pages = B * maxp
                # Scatter the cache into shuffled pages.
                perm = torch.randperm(pages, device=dev)
                table = perm.view(B, maxp).to(torch.int32)
                kp = torch.empty(pages, ps, Hkv, D, device=dev, dtype=torch.bfloat16)
                vp = torch.empty_like(kp)
                kp[perm.long()] = k.permute(0, 2, 1, 3).reshape(B * maxp, ps, Hkv, D)
                vp[perm.long()] = v.permute(0, 2, 1, 3).reshape(B * maxp, ps, Hkv, D)
                lens = torch.full((B,), L, device=dev, dtype=torch.int32)
                exe = lib.compile(paged_graph(B, Hq, Hkv, Sq, D, pages, ps, maxp),
                                  "--arch=%s --backend=nvrtc" % args.arch)
                o = torch.full_like(q, float("nan"))
                arr = tgc.BindingArray.from_dict(dict(q=q, k=kp, v=vp, lens=lens, table=table, o=o))
                exe.run(arr, stream)
                torch.cuda.synchronize()
                record("tgc_paged_p%d" % ps, lambda: exe.run(arr, stream), o)
                del kp, vp
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_decode.json"), "w") as f:
        json.dump(dict(env=env, rows=rows), f, indent=1)
    lines = ["# tgc paged decode (%s, %s, commit %s)" % (env["gpu"], env["date"], env["commit"]), "",
             "bf16, GQA %d/%d, hd %d, cached length %d, bottom-right causal; bandwidth = (K + V + q + o bytes) "
             "/ time, fraction of 4.8 TB/s (goal >= 0.85 at B >= 8). ms: GPU time per step with steps queued "
             "back to back; single: one step timed alone (with its host launch); read_ceiling: torch summing "
             "the same number of bytes." % (Hq, Hkv, D, L), "",
             "| B | Sq | case | ms | single ms | TB/s | HBM fraction | max abs err | ok |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %d | %d | %s | %.4f | %.4f | %.3f | %.3f | %s | %s |" % (
            r["B"], r["Sq"], r["case"], r["ms"], r["ms_single"], r["tb_s"], r["hbm_fraction"],
            "%.2e" % r["max_abs_err"] if "max_abs_err" in r else "-", r.get("ok", "-")))
    with open(os.path.join(args.out, "bench_decode.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    from plot_decode import main as plot  # noqa: E402  (an SVG chart, no plotting library)
    sys.argv = [sys.argv[0], os.path.join(args.out, "bench_decode.json")]
    plot()
    sys.exit(0 if all(r.get("ok", True) for r in rows) else 1)


if __name__ == "__main__":
    main()
