#!/usr/bin/env python3
"""Benchmark (not a test): a transformer training step (forward + backward) with
attention by tgc vs PyTorch SDPA (cuDNN backend where it applies) vs
FlexAttention, on two models built from HF-style blocks in plain torch:

  llama:  8 layers, hidden 2048, GQA 16/4 heads (head dim 128), S = 4096, bf16, causal
  gemma2: the same sizes with attention soft-capping 50 and a 1024 sliding window
          (SDPA cannot fuse it: it gets an explicit mask and eager softcap math)

Per step time (median), the attention's share (the same step with attention
replaced by an identity of the same shapes), tokens/s. json/md/png to --out.
Caps: --layers/--seq/--steps keep it within ~3 minutes on an H200.

Usage: TGC_LIBRARY=.carry/lib/libtgc.so python3 bench/bench_models.py --out $OUT"""
import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TGC_LIBRARY", os.path.join(ROOT, ".carry", "lib", "libtgc.so"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tgc.torch as tt  # noqa: E402


class Block(nn.Module):
    def __init__(self, hidden, heads, kv_heads, attn):
        super().__init__()
        self.h, self.kv, self.d = heads, kv_heads, hidden // heads
        self.norm1, self.norm2 = nn.RMSNorm(hidden), nn.RMSNorm(hidden)
        self.qkv = nn.Linear(hidden, (heads + 2 * kv_heads) * self.d, bias=False)
        self.o = nn.Linear(heads * self.d, hidden, bias=False)
        self.up = nn.Linear(hidden, 2 * 4 * hidden, bias=False)
        self.down = nn.Linear(4 * hidden, hidden, bias=False)
        self.attn = attn

    def forward(self, x):
        B, S, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).split([self.h * self.d, self.kv * self.d, self.kv * self.d], -1)
        q = q.view(B, S, self.h, self.d).transpose(1, 2)   # [B,H,S,D] views of [B,S,H,D] memory
        k = k.view(B, S, self.kv, self.d).transpose(1, 2)
        v = v.view(B, S, self.kv, self.d).transpose(1, 2)
        a = self.attn(q, k, v).transpose(1, 2).reshape(B, S, -1)
        x = x + self.o(a)
        g, u = self.up(self.norm2(x)).chunk(2, -1)
        return x + self.down(F.silu(g) * u)


def attention_fns(kind, S, window, softcap):
    """name -> callable(q, k, v) -> [B,H,S,D]."""
    fns = {}
    if kind == "llama":
        fns["tgc"] = lambda q, k, v: tt.attention(q, k, v, is_causal=True, enable_gqa=True)

        def sdpa(q, k, v):
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        fns["sdpa"] = sdpa
        score_mod, mask_mod = None, (lambda b, h, qi, ki: qi >= ki)
    else:
        score_mod = lambda s, b, h, qi, ki: softcap * torch.tanh(s / softcap)  # noqa: E731
        mask_mod = lambda b, h, qi, ki: (qi >= ki) & (qi - ki < window)  # noqa: E731
        fns["tgc"] = lambda q, k, v: tt.attention(q, k, v, score_mod=score_mod, mask_mod=mask_mod, enable_gqa=True)
        idx = torch.arange(S, device="cuda")
        keep = (idx[:, None] >= idx[None, :]) & (idx[:, None] - idx[None, :] < window)

        def sdpa_eager_softcap(q, k, v):
            # What SDPA can do with a softcap: the scores by hand (no fused kernel).
            G = q.shape[1] // k.shape[1]
            s = (q @ k.repeat_interleave(G, 1).transpose(-1, -2)) / math.sqrt(q.shape[-1])
            s = softcap * torch.tanh(s.float() / softcap)
            s = s.masked_fill(~keep, float("-inf"))
            return torch.softmax(s, -1).to(q.dtype) @ v.repeat_interleave(G, 1)
        fns["sdpa"] = sdpa_eager_softcap
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        block_mask = create_block_mask(mask_mod, None, None, S, S, device="cuda")
        flex = torch.compile(flex_attention)
        fns["flex"] = lambda q, k, v: flex(q, k, v, score_mod=score_mod, block_mask=block_mask, enable_gqa=True)
    except Exception as ex:  # noqa: BLE001
        print("flex_attention unavailable:", ex)
    fns["identity"] = lambda q, k, v: q.clone()  # the step without attention (for its share)
    return fns


def step_time(model, x, steps, warmup=2):
    opt = torch.optim.SGD(model.parameters(), lr=1e-6)
    times = []
    for i in range(warmup + steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = model(x).float().square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--window", type=int, default=1024)
    ap.add_argument("--softcap", type=float, default=50.0)
    ap.add_argument("--models", default="llama,gemma2")
    ap.add_argument("--budget", type=float, default=170.0, help="seconds; later runs are skipped past it")
    args = ap.parse_args()
    t_start = time.time()
    env = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "commit": os.environ.get("TGC_COMMIT", "?"),
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "args": vars(args)}
    print(env, flush=True)
    rows = []
    for kind in args.models.split(","):
        fns = attention_fns(kind, args.seq, args.window, args.softcap)
        for name, fn in fns.items():
            row = {"model": kind, "attention": name}
            if time.time() - t_start > args.budget:
                row["error"] = "skipped: time budget"
                rows.append(row)
                continue
            try:
                torch.manual_seed(0)
                model = nn.Sequential(*[Block(args.hidden, args.heads, args.kv_heads, fn)
                                        for _ in range(args.layers)]).cuda().bfloat16()
                x = torch.randn(args.batch, args.seq, args.hidden, device="cuda", dtype=torch.bfloat16)
                t0 = time.time()
                row["step_ms"] = round(step_time(model, x, args.steps) * 1e3, 2)
                row["wall_s"] = round(time.time() - t0, 1)
                row["tokens_per_s"] = round(args.batch * args.seq / row["step_ms"] * 1e3)
                del model
            except Exception as ex:  # noqa: BLE001 - one failure must not stop the rest
                row["error"] = "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:200] if str(ex) else "")
            torch.cuda.empty_cache()
            rows.append(row)
            print(row, flush=True)
    for r in rows:
        base = next((x for x in rows if x["model"] == r["model"] and x["attention"] == "identity"), None)
        if base and "step_ms" in r and "step_ms" in base and r["attention"] != "identity":
            r["attention_ms"] = round(r["step_ms"] - base["step_ms"], 2)
            r["attention_share"] = round(r["attention_ms"] / r["step_ms"], 3)
        tg = next((x for x in rows if x["model"] == r["model"] and x["attention"] == "tgc"), None)
        if tg and "step_ms" in tg and "step_ms" in r and r["attention"] not in ("tgc", "identity"):
            r["tgc_speedup"] = round(r["step_ms"] / tg["step_ms"], 3)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench_models.json"), "w") as f:
        json.dump({"env": env, "rows": rows}, f, indent=1)
    lines = ["# Training step: tgc vs SDPA vs FlexAttention (%s, %s)" % (env["gpu"], env["date"]), "",
             "%d layers, hidden %d, %d/%d heads, S %d, batch %d, bf16; llama causal; gemma2 softcap %.0f + window %d."
             % (args.layers, args.hidden, args.heads, args.kv_heads, args.seq, args.batch, args.softcap, args.window),
             "attention share = (step - step with identity attention) / step.", "",
             "| model | attention | step ms | attention ms | share | tokens/s | step(x)/step(tgc) | error |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["attention"], r.get("step_ms", "-"), r.get("attention_ms", "-"), r.get("attention_share", "-"),
            r.get("tokens_per_s", "-"), r.get("tgc_speedup", "-"), r.get("error", "")))
    text = "\n".join(lines)
    with open(os.path.join(args.out, "bench_models.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4))
        labels = ["%s\n%s" % (r["model"], r["attention"]) for r in rows if "step_ms" in r]
        ax.bar(labels, [r["step_ms"] for r in rows if "step_ms" in r])
        ax.set_ylabel("training step (ms)")
        ax.set_title("tgc vs SDPA vs FlexAttention")
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "bench_models.png"), dpi=90)
    except Exception as ex:  # noqa: BLE001
        print("chart failed:", ex)


if __name__ == "__main__":
    main()
