#!/usr/bin/env python3
"""Host time of a warm tgc.torch.attention call, without the C run call.

On any machine (CPU tensors): the front runs for real (cache key, plan lookup,
output/lse/workspace allocation through torch, binding pointers) and the one
C call that would enqueue the plan (Executable.run_array) is a no-op, as are
the two CUDA-only lookups (the device's arch, torch's current stream). What is
measured is therefore the Python-side overhead per warm call; the GPU suite
(test/gpu/python_suite.py, 'overhead') measures the same with the real run.
Goal: < 20 us. Usage: python3 bench/bench_host_overhead.py [--n 20000]"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TGC_LIBRARY", os.path.join(ROOT, os.environ.get("TGC_BUILD_DIR", "build"), "lib", "libtgc.so"))

import torch  # noqa: E402

import tgc  # noqa: E402
import tgc.torch as tt  # noqa: E402
from tgc.torch import front, runtime  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()
    front.REQUIRE_CUDA = False
    runtime.arch_for = lambda device: "sm_90a"
    runtime.current_stream = lambda device: 0
    tgc.Executable.run_array = lambda self, array, count, stream, ws=None, nbytes=None: None
    torch.set_num_threads(1)
    q = torch.randn(1, 16, 128, 64).transpose(1, 2).contiguous().transpose(1, 2)  # [B,S,H,D] memory
    k = torch.randn(1, 4, 128, 64)
    v = torch.randn(1, 4, 128, 64)
    slopes = torch.rand(16)
    cases = [
        ("plain", dict()),
        ("causal gqa", dict(is_causal=True, enable_gqa=True)),
        ("softcap score_mod + window mask_mod (new lambdas each call)", None),
        ("alibi capture", dict(score_mod=lambda s, b, h, qi, ki: s + slopes[h] * (ki - qi), enable_gqa=True)),
        ("dropout", dict(dropout_p=0.1, enable_gqa=True)),
    ]
    kk, vv = k.repeat_interleave(4, 1), v.repeat_interleave(4, 1)
    print("torch %s; per warm call, C run excluded:" % torch.__version__)
    for name, kw in cases:
        if kw is None:
            def call():
                return tt.attention(q, k, v, score_mod=lambda s, b, h, qi, ki: 30.0 * torch.tanh(s / 30.0),
                                    mask_mod=lambda b, h, qi, ki: (qi >= ki) & (qi - ki < 64), enable_gqa=True)
        else:
            kv = (k, v) if kw.get("enable_gqa") else (kk, vv)

            def call(kw=kw, kv=kv):
                return tt.attention(q, kv[0], kv[1], **kw)
        call()
        for _ in range(200):
            call()
        t0 = time.perf_counter()
        for _ in range(args.n):
            call()
        us = (time.perf_counter() - t0) / args.n * 1e6
        print("  %-62s %6.2f us" % (name, us))
    # The two floors inside every call: torch.empty of the output and one ctypes call.
    t0 = time.perf_counter()
    for _ in range(args.n):
        torch.empty_strided((1, 16, 128, 64), (131072, 64, 1024, 1))
    print("  %-62s %6.2f us" % ("(of which torch.empty_strided of the output)",
                                (time.perf_counter() - t0) / args.n * 1e6))


if __name__ == "__main__":
    main()
