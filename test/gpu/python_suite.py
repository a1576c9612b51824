#!/usr/bin/env python3
"""GPU suite of the Python package (the H200 machine: torch 2.11, transformers 5.17).

1. op: tgc.torch.attention vs torch SDPA (math backend in float32 on the same
   bf16 inputs) and FlexAttention, outputs and gradients of q, k, v, over
   the options: causal, GQA, [B,S,H,D] layouts, bool/float masks, softcap,
   ALiBi, relative bias, sliding window, padding, document masks, return_lse,
   dropout statistics (mask revealed through V = I, then backward checked
   against the same mask), torch.compile(fullgraph=True); gradients of learnable
   tensors (a float attn_mask that requires grad, [B,H,S,S] and [1,H,S,S]; a
   relative-position table and T5's bucketed table closed over by score_mod)
   against eager autograd in float32, with every output poisoned with NaN;
   the same for torch.compile(fullgraph=True) of modules with a learnable
   attn_mask bias and a learnable relative-position table (one graph).
2. hf: Llama (GQA), Mistral (sliding window), Gemma-2 (softcap + window),
   GPT-2 and BERT (padding) from small random configs, forward + backward with
   attn_implementation="tgc" vs "eager" (and "sdpa"); logits and parameter
   gradients within bf16 tolerances.
3. overhead: host time of a warm call (python + C) and of the C run alone.
One failing case never stops the rest; a summary table is printed last.

Usage: TGC_LIBRARY=.carry/lib/libtgc.so python3 test/gpu/python_suite.py [--out DIR] [--only SUBSTR] [--quick]"""
import argparse
import json
import math
import os
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("TGC_LIBRARY", os.path.join(ROOT, ".carry", "lib", "libtgc.so"))

import torch  # noqa: E402

import tgc  # noqa: E402
import tgc.torch as tt  # noqa: E402

DEV = "cuda"
RESULTS = []


def record(group, name, ok, detail="", seconds=0.0, **extra):
    row = dict(group=group, name=name, ok=bool(ok), detail=detail, seconds=round(seconds, 2), **extra)
    RESULTS.append(row)
    print("%-5s %-8s %-44s %s" % ("PASS" if ok else "FAIL", group, name, detail), flush=True)


def case(group, name):
    def deco(fn):
        fn._case = (group, name)
        return fn
    return deco


def rel_err(a, b):
    a, b = a.double(), b.double()
    if torch.isnan(a).any() or torch.isnan(b).any():
        return float("nan")
    return ((a - b).abs().max() / max(1e-6, b.abs().max().item())).item()


def ref_attention(q, k, v, score_mod=None, mask_mod=None, attn_mask=None, is_causal=False, scale=None, drop=None):
    """float32 math on the same inputs (the definition tgc implements)."""
    q32, k32, v32 = q.float(), k.float(), v.float()
    H, Hkv = q.shape[1], k.shape[1]
    if H != Hkv:
        k32 = k32.repeat_interleave(H // Hkv, 1)
        v32 = v32.repeat_interleave(H // Hkv, 1)
    B, _, Sq, D = q.shape
    Skv = k.shape[2]
    scale = 1 / math.sqrt(D) if scale is None else scale
    s = (q32 @ k32.transpose(-1, -2)) * scale
    b = torch.arange(B, device=DEV).view(B, 1, 1, 1)
    h = torch.arange(H, device=DEV).view(1, H, 1, 1)
    qi = torch.arange(Sq, device=DEV).view(1, 1, Sq, 1)
    ki = torch.arange(Skv, device=DEV).view(1, 1, 1, Skv)
    if score_mod is not None:
        s = score_mod(s, b, h, qi, ki)
    keep = torch.ones_like(s, dtype=torch.bool)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            keep = keep & attn_mask
        else:
            s = s + attn_mask.float()
    if mask_mod is not None:
        keep = keep & mask_mod(b, h, qi, ki)
    if is_causal:
        keep = keep & (ki <= qi)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    lse = torch.logsumexp(s, -1)
    if drop is not None:
        p = p * drop
    return p @ v32, lse


TOL = {torch.bfloat16: 2e-2, torch.float16: 5e-3}


def compare_fwd_bwd(name, q, k, v, tol=None, **kw):
    """tgc vs the float32 reference: output, lse, dq, dk, dv."""
    tol = tol or TOL[q.dtype]
    t0 = time.time()
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out, lse = tt.attention(qs, ks, vs, enable_gqa=q.shape[1] != k.shape[1], return_lse=True, **kw)
    do = torch.randn_like(out)
    out.backward(do)
    torch.cuda.synchronize()
    ref_kw = {n: kw[n] for n in ("score_mod", "mask_mod", "attn_mask", "is_causal", "scale") if n in kw}
    qr, kr, vr = (t.detach().float().requires_grad_() for t in (q, k, v))
    ro, rl = ref_attention(qr, kr, vr, **ref_kw)
    ro.backward(do.float())
    errs = {"o": rel_err(out, ro), "lse": rel_err(lse.masked_fill(torch.isinf(rl), 0), rl.masked_fill(torch.isinf(rl), 0)),
            "dq": rel_err(qs.grad, qr.grad), "dk": rel_err(ks.grad, kr.grad), "dv": rel_err(vs.grad, vr.grad)}
    ok = all(e == e and e < tol * (3 if n != "o" else 1) for n, e in errs.items())
    record("op", name, ok, " ".join("%s %.1e" % kv for kv in errs.items()), time.time() - t0, errors=errs)


class Poisoned:
    """Every floating tensor torch.empty / torch.empty_strided returns is NaN
    while tgc runs (its outputs and gradients come from there): an element tgc
    does not write, or a gradient it does not zero before adding, fails."""

    def __enter__(self):
        self.saved = (torch.empty, torch.empty_strided)
        empty, strided = self.saved

        def fill(t):
            return t.fill_(float("nan")) if t.is_floating_point() else t
        torch.empty = lambda *a, **k: fill(empty(*a, **k))
        torch.empty_strided = lambda *a, **k: fill(strided(*a, **k))
        return self

    def __exit__(self, *exc):
        torch.empty, torch.empty_strided = self.saved


CAPTURE_GRAD_TOL = 6e-2  # bf16 q/k/v: the dq/dk/dv tolerance of compare_fwd_bwd (3 x 2e-2 of the max)


def compare_capture_grads(name, q, k, v, learnable, make_kw, backend="auto"):
    """tgc vs eager float32 autograd on the same bf16 inputs: o, dq, dk, dv and
    the gradient of each learnable tensor. make_kw(tensors) gives the
    attention's keyword arguments over the learnable tensors (the same callable
    code for tgc and the reference)."""
    t0 = time.time()
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    mine = [t.detach().clone().requires_grad_() for t in learnable]
    do = torch.randn(q.shape[:3] + v.shape[3:], device=DEV, dtype=q.dtype)
    with Poisoned():
        out = tt.attention(qs, ks, vs, enable_gqa=q.shape[1] != k.shape[1], backend=backend, **make_kw(mine))
        out.backward(do)
    torch.cuda.synchronize()
    qr, kr, vr = (t.detach().float().requires_grad_() for t in (q, k, v))
    ref_leaves = [t.detach().float().requires_grad_() for t in learnable]
    ro, _ = ref_attention(qr, kr, vr, **make_kw(ref_leaves))
    ro.backward(do.float())
    errs = {"o": rel_err(out, ro), "dq": rel_err(qs.grad, qr.grad), "dk": rel_err(ks.grad, kr.grad),
            "dv": rel_err(vs.grad, vr.grad)}
    shapes_ok = True
    for i, (t, r) in enumerate(zip(mine, ref_leaves)):
        if t.grad is None or t.grad.shape != t.shape or t.grad.dtype != t.dtype:
            shapes_ok = False
            errs["d%s" % i] = float("nan")
        else:
            errs["d%s" % i] = rel_err(t.grad, r.grad)
    ok = shapes_ok and all(e == e and e < (TOL[q.dtype] if n == "o" else CAPTURE_GRAD_TOL) for n, e in errs.items())
    record("op", name, ok, " ".join("%s %.1e" % kv for kv in errs.items()), time.time() - t0, errors=errs)


def t5_bucket(r, num_buckets=32, max_distance=128):
    """T5's bidirectional relative-position bucket of r = kv_idx - q_idx."""
    half = num_buckets // 2
    exact = half // 2
    n = torch.abs(r)
    large = exact + (torch.log(n.float() / exact) / math.log(max_distance / exact) * (half - exact)).to(torch.int64)
    large = torch.where(large > half - 1, half - 1, large)
    return (r > 0).to(torch.int64) * half + torch.where(n < exact, n, large)


def capture_grad_cases():
    """Learnable tensors (the cuDNN lowering returns no capture gradients: these
    backwards run on the NVRTC kernels whatever the backend argument)."""
    H, S = 8, 256
    cases = [
        ("learnable attn_mask [B,H,S,S] bf16", [torch.randn(2, H, S, S, device=DEV, dtype=torch.bfloat16)],
         lambda t: dict(attn_mask=t[0]), "auto"),
        ("learnable attn_mask [B,H,S,S] gqa 8/2 cudnn", [torch.randn(2, H, S, S, device=DEV, dtype=torch.bfloat16)],
         lambda t: dict(attn_mask=t[0]), "cudnn"),
        ("learnable attn_mask [1,H,S,S] f32 + causal mask_mod", [torch.randn(1, H, S, S, device=DEV)],
         lambda t: dict(attn_mask=t[0], mask_mod=lambda b, h, qi, ki: qi >= ki), "auto"),
        ("learnable relative table [H,2S-1]", [torch.randn(H, 2 * S - 1, device=DEV)],
         lambda t: dict(score_mod=lambda s, b, h, qi, ki: s + t[0][h, qi - ki + S - 1]), "auto"),
        ("learnable T5 bucket table [32,H]", [torch.randn(32, H, device=DEV)],
         lambda t: dict(score_mod=lambda s, b, h, qi, ki: s + t[0][t5_bucket(ki - qi), h]), "auto"),
        ("learnable T5 table + causal + softcap", [torch.randn(32, H, device=DEV)],
         lambda t: dict(score_mod=lambda s, b, h, qi, ki: 30 * torch.tanh((s + t[0][t5_bucket(ki - qi), h]) / 30),
                        is_causal=True), "auto"),
    ]
    for name, learnable, make_kw, backend in cases:
        q, k, v = qkv(Hkv=2 if "gqa" in name else 8)
        yield ("op", name), (lambda name=name, learnable=learnable, make_kw=make_kw, backend=backend, q=q, k=k, v=v:
                             compare_capture_grads(name, q, k, v, learnable, make_kw, backend))


class LearnableBias(torch.nn.Module):
    """A learnable attn_mask bias [1, H, S, S] (float32) on bf16 q, k, v."""

    def __init__(self, H, S):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(1, H, S, S, device=DEV))

    def forward(self, q, k, v):
        return tt.attention(q, k, v, attn_mask=self.bias)

    @staticmethod
    def ref_kw(p, S):
        return dict(attn_mask=p)


class LearnableTable(torch.nn.Module):
    """A learnable relative-position table [H, 2S-1] closed over by the
    score_mod (made here, outside the compiled forward, as torch.compile
    needs)."""

    def __init__(self, H, S):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(H, 2 * S - 1, device=DEV))
        table = self.table
        self.score_mod = lambda s, b, h, qi, ki: s + table[h, qi - ki + S - 1]

    def forward(self, q, k, v):
        return tt.attention(q, k, v, score_mod=self.score_mod)

    @staticmethod
    def ref_kw(p, S):
        return dict(score_mod=lambda s, b, h, qi, ki: s + p[h, qi - ki + S - 1])


def compile_learnable_case(name, model_cls):
    """torch.compile(fullgraph=True) of a module with a learnable tensor: one
    Dynamo graph holding one tgc.attention_fwd (so no graph break, and the
    second call reuses it), o, dq, dk, dv and the parameter's gradient against
    eager float32 autograd, every output of the measured step poisoned."""
    from torch._inductor.compile_fx import compile_fx
    t0 = time.time()
    H, S = 8, 256
    q, k, v = qkv(H=H, Sq=S, Skv=S)
    model = model_cls(H, S)
    param = next(model.parameters())
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return compile_fx(gm, example_inputs)

    torch._dynamo.reset()
    g = torch.compile(model, fullgraph=True, backend=counting)
    do = torch.randn(q.shape[:3] + v.shape[3:], device=DEV, dtype=q.dtype)
    warm = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    g(*warm).backward(do)  # compiles the forward and backward graphs (not poisoned: Inductor allocates too)
    model.zero_grad(set_to_none=True)
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with Poisoned():
        out = g(qs, ks, vs)
        out.backward(do)
    torch.cuda.synchronize()
    qr, kr, vr = (t.detach().float().requires_grad_() for t in (q, k, v))
    pr = param.detach().float().requires_grad_()
    ro, _ = ref_attention(qr, kr, vr, **model_cls.ref_kw(pr, S))
    ro.backward(do.float())
    errs = {"o": rel_err(out, ro), "dq": rel_err(qs.grad, qr.grad), "dk": rel_err(ks.grad, kr.grad),
            "dv": rel_err(vs.grad, vr.grad)}
    grad_ok = param.grad is not None and param.grad.shape == param.shape and param.grad.dtype == param.dtype
    errs["dparam"] = rel_err(param.grad, pr.grad) if grad_ok else float("nan")
    n_ops = sum(str(gm.graph).count("tgc.attention_fwd") for gm in graphs)
    ok = (len(graphs) == 1 and n_ops == 1 and grad_ok
          and all(e == e and e < (TOL[q.dtype] if n == "o" else CAPTURE_GRAD_TOL) for n, e in errs.items()))
    record("op", name, ok, "graphs %d, tgc ops %d; %s" % (len(graphs), n_ops, " ".join("%s %.1e" % kv
                                                                                   for kv in errs.items())),
           time.time() - t0, errors=errs, graphs=len(graphs))


def compile_learnable_cases():
    for name, cls in (("torch.compile learnable attn_mask bias [1,H,S,S]", LearnableBias),
                      ("torch.compile learnable relative table [H,2S-1]", LearnableTable)):
        yield ("op", name), (lambda name=name, cls=cls: compile_learnable_case(name, cls))


def qkv(B=2, H=8, Hkv=8, Sq=256, Skv=256, D=64, dtype=torch.bfloat16, bshd=False):
    if bshd:
        q = torch.randn(B, Sq, H, D, device=DEV, dtype=dtype).transpose(1, 2)
        k = torch.randn(B, Skv, Hkv, D, device=DEV, dtype=dtype).transpose(1, 2)
        v = torch.randn(B, Skv, Hkv, D, device=DEV, dtype=dtype).transpose(1, 2)
        return q, k, v
    return (torch.randn(B, H, Sq, D, device=DEV, dtype=dtype), torch.randn(B, Hkv, Skv, D, device=DEV, dtype=dtype),
            torch.randn(B, Hkv, Skv, D, device=DEV, dtype=dtype))


def op_cases(quick):
    slopes = torch.tensor([2 ** (-8 * (i + 1) / 8) for i in range(8)], device=DEV)
    bias = torch.randn(8, 256, 256, device=DEV)
    lengths = torch.tensor([256, 100], device=DEV)
    doc = (torch.arange(256, device=DEV) // 64).expand(2, 256).contiguous()
    cases = [
        ("plain bf16", qkv(), {}),
        ("plain f16 hd128", qkv(dtype=torch.float16, D=128), {}),
        ("causal", qkv(), dict(is_causal=True)),
        ("causal bshd layout", qkv(bshd=True), dict(is_causal=True)),
        ("gqa 8/2 causal", qkv(Hkv=2), dict(is_causal=True)),
        ("sq != skv", qkv(Sq=128, Skv=384), {}),
        ("scale 0.3", qkv(), dict(scale=0.3)),
        ("bool attn_mask", qkv(), dict(attn_mask=torch.rand(2, 1, 256, 256, device=DEV) > 0.2)),
        ("float attn_mask", qkv(), dict(attn_mask=torch.randn(256, 256, device=DEV))),
        ("softcap 30", qkv(), dict(score_mod=lambda s, b, h, q, kv: 30 * torch.tanh(s / 30))),
        ("alibi", qkv(), dict(score_mod=lambda s, b, h, q, kv: s + slopes[h] * (kv - q))),
        ("relative bias table", qkv(), dict(score_mod=lambda s, b, h, q, kv: s + bias[h, q, kv])),
        ("sliding window 64", qkv(), dict(mask_mod=lambda b, h, q, kv: (q >= kv) & (q - kv < 64))),
        ("softcap + window + gqa", qkv(Hkv=2), dict(score_mod=lambda s, b, h, q, kv: 50 * torch.tanh(s / 50),
                                                     mask_mod=lambda b, h, q, kv: (q >= kv) & (q - kv < 64))),
        ("padding (seq_len_kv)", qkv(), dict(mask_mod=lambda b, h, q, kv: kv < lengths[b])),
        ("document mask", qkv(), dict(mask_mod=lambda b, h, q, kv: (doc[b, q] == doc[b, kv]) & (q >= kv))),
        ("hd 128 causal gqa bshd", qkv(D=128, Hkv=2, bshd=True), dict(is_causal=True)),
    ]
    if quick:
        cases = cases[::3]
    for name, (q, k, v), kw in cases:
        yield ("op", name), (lambda q=q, k=k, v=v, kw=kw, name=name: compare_fwd_bwd(name, q, k, v, **kw))
    for job in capture_grad_cases():
        yield job
    yield ("op", "vs FlexAttention"), flex_case
    yield ("op", "dropout statistics + backward"), dropout_case
    yield ("op", "errors"), error_cases
    yield ("op", "torch.compile fullgraph"), compile_case
    for job in compile_learnable_cases():
        yield job
    yield ("op", "side stream"), stream_case
    yield ("op", "new sequence length cost"), cold_cost_case


def flex_case():
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as ex:
        record("op", "vs FlexAttention", False, "no flex_attention: %s" % ex)
        return
    q, k, v = qkv(Hkv=2)
    sm = lambda s, b, h, qi, ki: 30 * torch.tanh(s / 30)  # noqa: E731
    mm = lambda b, h, qi, ki: (qi >= ki) & (qi - ki < 64)  # noqa: E731
    bm = create_block_mask(mm, 2, 1, 256, 256, device=DEV)
    ref = flex_attention(q, k, v, score_mod=sm, block_mask=bm, enable_gqa=True)
    out = tt.attention(q, k, v, score_mod=sm, mask_mod=bm, enable_gqa=True)
    e = rel_err(out, ref)
    record("op", "vs FlexAttention", e < 2e-2, "rel err %.1e (BlockMask's mask_mod taken)" % e)


def dropout_case():
    B, H, S = 2, 4, 128
    p = 0.2
    z = torch.zeros(B, H, S, S, device=DEV, dtype=torch.bfloat16)
    eye = torch.eye(S, device=DEV, dtype=torch.bfloat16).expand(B, H, S, S).contiguous()
    torch.manual_seed(123)
    o = tt.attention(z, z, eye, dropout_p=p)  # uniform P = 1/S: o * S reveals the keep mask * 1/(1-p)
    keep = (o.float() * S * (1 - p)).round()
    frac = 1 - keep.mean().item()
    binary = bool(((keep == 0) | (keep == 1)).all())
    q, k, v = qkv(B=B, H=H, Hkv=H, Sq=S, Skv=S, D=S)
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    torch.manual_seed(123)  # the same seed/offset draw: the same mask
    out = tt.attention(qs, ks, vs, dropout_p=p)
    do = torch.randn_like(out)
    out.backward(do)
    qr, kr, vr = (t.detach().float().requires_grad_() for t in (q, k, v))
    ro, _ = ref_attention(qr, kr, vr, drop=keep / (1 - p))
    ro.backward(do.float())
    errs = [rel_err(out, ro), rel_err(qs.grad, qr.grad), rel_err(ks.grad, kr.grad), rel_err(vs.grad, vr.grad)]
    ok = binary and abs(frac - p) < 0.01 and all(e == e and e < 6e-2 for e in errs)
    record("op", "dropout statistics + backward", ok,
           "dropped %.4f (p %.2f), mask binary %s, o/dq/dk/dv rel err %s" % (frac, p, binary,
                                                                           " ".join("%.1e" % e for e in errs)))


def error_cases():
    q, k, v = qkv()
    checks = []
    try:
        # Computed integer indices are gathers now; a float index stays an error.
        tt.attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s + torch.randn(64, device=DEV)[(ki - qi) * 0.5])
        checks.append(("float index", False))
    except tgc.TraceError as ex:
        checks.append(("float index", "float value" in str(ex)))
    bias = torch.zeros(1, 8, 1, 256, device=DEV, requires_grad=True)
    try:
        # A learnable bias broadcast with expand(): autograd wants a gradient per expanded element.
        tt.attention(q.requires_grad_(), k, v, attn_mask=bias.expand(2, 8, 256, 256))
        checks.append(("expanded learnable bias", False))
    except ValueError as ex:
        checks.append(("expanded learnable bias", "expand()ed dim 0" in str(ex)))
    q.requires_grad_(False)
    try:
        tt.attention(q[..., 1:], k[..., 1:], v[..., 1:])
        checks.append(("misaligned view", False))
    except tgc.TgcError:
        checks.append(("misaligned view", True))
    record("op", "errors", all(ok for _, ok in checks), ", ".join("%s %s" % (n, "ok" if ok else "NO") for n, ok in checks))


SOFTCAP = lambda s, b, h, qi, ki: 30 * torch.tanh(s / 30)  # noqa: E731 - made outside the compiled function


def compile_case():
    """torch.compile(fullgraph=True): forward, then forward + backward (inputs that
    require grad recompile into the training graph), against eager tgc."""
    q, k, v = qkv(Hkv=2)

    def f(q, k, v):
        return tt.attention(q, k, v, is_causal=True, enable_gqa=True, score_mod=SOFTCAP) * 2

    try:
        g = torch.compile(f, fullgraph=True)
        e_fwd = rel_err(g(q, k, v), f(q, k, v))
        do = torch.randn(q.shape, device=DEV, dtype=q.dtype)
        grads = []
        for fn in (g, f):
            leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
            fn(*leaves).backward(do)
            grads.append([t.grad for t in leaves])
        e_bwd = [rel_err(a, b) for a, b in zip(*grads)]
        ok = e_fwd < 1e-3 and all(e == e and e < 1e-2 for e in e_bwd)  # atomics: a bf16 ulp
        record("op", "torch.compile fullgraph", ok, "rel err vs eager: o %.1e, dq/dk/dv %s" % (
            e_fwd, " ".join("%.1e" % e for e in e_bwd)))
    except Exception as ex:
        record("op", "torch.compile fullgraph", False, "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:200]))
        traceback.print_exc()


def stream_case():
    """A side stream: tgc runs on torch's current stream (no sync in between)."""
    from tgc.torch import runtime as R
    side = torch.cuda.Stream()
    q, k, v = qkv()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        same = R.current_stream(q.device) == side.cuda_stream
        q2 = q * 2  # produced on the side stream, consumed by tgc there
        out = tt.attention(q2, k, v, is_causal=True)
    side.synchronize()
    ref, _ = ref_attention(q2.float(), k.float(), v.float(), is_causal=True)
    e = rel_err(out, ref)
    record("op", "side stream", same and e < TOL[q.dtype], "current_stream is the side stream: %s, rel err %.1e"
           % (same, e))


def cold_cost_case():
    rows = []
    for s in (1000, 1536):
        q, k, v = qkv(Sq=s, Skv=s)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        tt.attention(q, k, v, is_causal=True)
        torch.cuda.synchronize()
        cold = time.perf_counter() - t0
        rows.append("S=%d cold %.2f s" % (s, cold))
    record("op", "new sequence length cost", True, "; ".join(rows) + " (MLIR compile + NVRTC, kernel cache warm or not)",
           compile_seconds=tt.cache_info()["compile_seconds"])


# --- HF models ---------------------------------------------------------------

def hf_cases(quick):
    try:
        import transformers
        import tgc.hf
        tgc.hf.register()
    except Exception as ex:
        yield ("hf", "register"), (lambda ex=ex: record("hf", "register", False, "%s: %s" % (type(ex).__name__, ex)))
        return
    from transformers import (AutoModel, AutoModelForCausalLM, BertConfig, Gemma2Config, GPT2Config, LlamaConfig,
                              MistralConfig)
    common = dict(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                  num_attention_heads=8, max_position_embeddings=512)
    models = [
        ("llama gqa", AutoModelForCausalLM, LlamaConfig(num_key_value_heads=2, **common), "sdpa", False),
        ("mistral sliding 64", AutoModelForCausalLM, MistralConfig(num_key_value_heads=2, sliding_window=64, **common),
         "eager", False),
        ("gemma2 softcap+window", AutoModelForCausalLM,
         Gemma2Config(num_key_value_heads=4, head_dim=32, sliding_window=64, attn_logit_softcapping=20.0,
                      final_logit_softcapping=None, query_pre_attn_scalar=32, **common), "eager", False),
        ("gpt2 padding", AutoModelForCausalLM, GPT2Config(vocab_size=512, n_embd=256, n_layer=2, n_head=8,
                                                          n_positions=512), "eager", True),
        ("bert padding", AutoModel, BertConfig(vocab_size=512, hidden_size=256, num_hidden_layers=2,
                                               num_attention_heads=8, intermediate_size=512), "eager", True),
        ("llama padding", AutoModelForCausalLM, LlamaConfig(num_key_value_heads=2, **common), "eager", True),
    ]
    for name, auto, cfg, ref_impl, padded in models:
        yield ("hf", name), (lambda n=name, a=auto, c=cfg, r=ref_impl, p=padded: hf_model(n, a, c, r, p, transformers))


def hf_model(name, auto, cfg, ref_impl, padded, transformers):
    t0 = time.time()
    torch.manual_seed(0)
    B, S = 2, 192
    ids = torch.randint(0, 512, (B, S), device=DEV)
    mask = torch.ones(B, S, dtype=torch.long, device=DEV)
    if padded:
        mask[1, 150:] = 0  # right padding on the second sequence
    outs = {}
    for impl in ("tgc", ref_impl):
        torch.manual_seed(0)
        model = auto.from_config(cfg, attn_implementation=impl).to(DEV, torch.bfloat16)
        model.eval()  # no dropout (outputs must be comparable); gradients still flow
        res = model(input_ids=ids, attention_mask=mask if padded else None)
        logits = res.logits if hasattr(res, "logits") else res.last_hidden_state
        valid = mask.bool()[..., None].expand_as(logits)
        # A fixed random projection of the outputs, not their squared norm:
        # BERT's last_hidden_state comes straight out of a LayerNorm, whose
        # output norm does not depend on its input, so mean(out^2) has a
        # gradient of zero in exact arithmetic and bf16 rounding noise in
        # practice (measured: tgc and eager agree on the outputs to 0.7%
        # and on that noise not at all).
        gen = torch.Generator(device=DEV).manual_seed(1)
        proj = torch.randn(logits.shape, generator=gen, device=DEV)
        loss = (logits.float() * valid * proj).sum() / valid.sum()
        loss.backward()
        grads = {n: p.grad.detach().float().clone() for n, p in model.named_parameters() if p.grad is not None}
        outs[impl] = (logits.detach().float() * valid, grads)
        del model
    lt, gt = outs["tgc"]
    lr, gr = outs[ref_impl]
    le = rel_err(lt, lr)
    worst, worst_name = 0.0, ""
    for n in gr:
        e = rel_err(gt[n], gr[n])
        if not (e <= worst):
            worst, worst_name = e, n
    ok = le < 3e-2 and worst < 8e-2 and len(gt) == len(gr)
    record("hf", name, ok, "logits rel %.1e, worst grad rel %.1e (%s) vs %s" % (le, worst, worst_name, ref_impl),
           time.time() - t0)


# --- overhead ----------------------------------------------------------------

def overhead_case():
    from tgc.torch import plan as P
    from tgc.torch import runtime as R
    q, k, v = qkv(B=1, H=4, Hkv=4, Sq=128, Skv=128)
    for _ in range(5):
        tt.attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        tt.attention(q, k, v, is_causal=True)
    total = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    # The C call alone, with the bindings the warm call builds for these arguments.
    plan = tt.front._plan(q, k, v, None, True, None, 0.0, False, None, None, False, False, "auto", None, None, ())
    o = torch.empty_strided(plan.o_shape, plan.o_strides, dtype=plan.dtype, device=DEV)
    ba, raw = plan.fwd_bindings.get()
    for i, t in enumerate((q, k, v, o)):
        raw[P._slot(i)] = t.data_ptr()
    ws = torch.empty(plan.fwd_ws, dtype=torch.uint8, device=DEV) if plan.fwd_ws else None
    ws_ptr = ws.data_ptr() if ws is not None else None
    stream = R.current_stream(q.device)
    lib = plan.fwd.library
    run = plan.fwd._lib.tgc_run_with_workspace
    t0 = time.perf_counter()
    for _ in range(n):
        status = run(plan.fwd.handle, ba.array, ba.count, ws_ptr, plan.fwd_ws, stream)
        if status != 0:
            lib.check(status, "tgc_run_with_workspace")
    c_run = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    ref, _ = ref_attention(q, k, v, is_causal=True)
    e = rel_err(o, ref)
    py = total - c_run
    # A measurement, not a timed test: the row checks the output; the times
    # are reported against issue 13's goal (< 20 us per warm call in all).
    record("overhead", "warm call host time", e < TOL[q.dtype],
           "total %.1f us (goal < 20: %s), C tgc_run %.1f us, python %.1f us; output rel err %.1e"
           % (total, "met" if total < 20.0 else "missed", c_run, py, e),
           total_us=total, c_run_us=c_run, python_us=py)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "out"))
    ap.add_argument("--only", default="")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print("torch %s, GPU %s, libtgc %s" % (torch.__version__, torch.cuda.get_device_name(), tgc.Library().path))
    jobs = list(op_cases(args.quick)) + list(hf_cases(args.quick)) + [(("overhead", "warm call host time"), overhead_case)]
    for (group, name), fn in jobs:
        if args.only and args.only not in "%s %s" % (group, name):
            continue
        try:
            fn()
        except Exception as ex:
            record(group, name, False, "%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:300] if str(ex) else ""))
            traceback.print_exc()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "python_suite.json"), "w") as f:
        json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "results": RESULTS}, f, indent=1)
    passed = sum(r["ok"] for r in RESULTS)
    print("\n| group | case | result | detail |\n|---|---|---|---|")
    for r in RESULTS:
        print("| %s | %s | %s | %s |" % (r["group"], r["name"], "PASS" if r["ok"] else "FAIL", r["detail"]))
    print("\npython suite: %d passed, %d failed" % (passed, len(RESULTS) - passed))
    return 0 if passed == len(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
