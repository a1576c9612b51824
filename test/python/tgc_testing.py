"""Shared helpers of the Python tests: paths to the built tools and library,
a float64 torch reference of tgc.torch.attention, and running generated
graphs on tgc's CPU reference interpreter (tg-run --ref)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
BUILD = os.environ.get("TGC_BUILD_DIR", os.path.join(ROOT, "build"))
if not os.path.isabs(BUILD):
    BUILD = os.path.join(ROOT, BUILD)
BIN = os.environ.get("TGC_BIN", os.path.join(BUILD, "bin"))
os.environ.setdefault("TGC_LIBRARY", os.path.join(BUILD, "lib", "libtgc.so"))


def reference(q, k, v, score_mod=None, mask_mod=None, scale=None, attn_mask=None, is_causal=False):
    """tgc.torch.attention's definition in float64 torch: (o, lse [B,H,Sq])."""
    q, k, v = q.double(), k.double(), v.double()
    B, H, Sq, D = q.shape
    Hkv, Skv = k.shape[1], k.shape[2]
    if Hkv != H:
        k = k.repeat_interleave(H // Hkv, dim=1)
        v = v.repeat_interleave(H // Hkv, dim=1)
    scale = 1.0 / D ** 0.5 if scale is None else scale
    s = scale * (q @ k.transpose(-1, -2))
    b = torch.arange(B).view(B, 1, 1, 1)
    h = torch.arange(H).view(1, H, 1, 1)
    qi = torch.arange(Sq).view(1, 1, Sq, 1)
    ki = torch.arange(Skv).view(1, 1, 1, Skv)
    if score_mod is not None:
        s = score_mod(s, b, h, qi, ki).double()
    keep = torch.ones(B, H, Sq, Skv, dtype=torch.bool)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            keep = keep & attn_mask
        else:
            s = s + attn_mask.double()
    if mask_mod is not None:
        keep = keep & mask_mod(b, h, qi, ki)
    if is_causal:
        keep = keep & (ki <= qi)
    s = torch.where(keep, s, torch.tensor(float("-inf"), dtype=torch.float64))
    m = s.amax(-1, keepdim=True)
    full = m == float("-inf")
    e = torch.where(full, torch.zeros_like(s), torch.exp(s - torch.where(full, torch.zeros_like(m), m)))
    z = e.sum(-1, keepdim=True)
    p = torch.where(full, torch.zeros_like(e), e / torch.where(full, torch.ones_like(z), z))
    lse = torch.where(full, m, m + torch.log(torch.where(full, torch.ones_like(z), z)))
    return p @ v, lse.squeeze(-1)


def save_npy(path, t):
    t = t.detach()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    np.save(path, t.contiguous().numpy())


def operand_arrays(g, attn_mask=None):
    """The logical arrays of the graph's capture / sequence-length operands."""
    out = {}
    for op in g["operands"]:
        spec = op.spec
        t = attn_mask if op.from_mask else op.tensor
        if op.to_int32:
            t = t.to(torch.int32)
        out[op.name] = torch.as_strided(t, spec.shape, spec.strides)
    return out


def run_ref(text, inputs, outputs, entry=None):
    """Runs graph text on tg-run --ref with inputs {name: tensor}; returns {name: tensor}."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "g.mlir")
        with open(path, "w") as f:
            f.write(text)
        cmd = [os.path.join(BIN, "tg-run"), "--ref", path, "--output-dir=" + d]
        if entry:
            cmd.append("--entry=" + entry)
        for name, t in inputs.items():
            p = os.path.join(d, "in_%s.npy" % name)
            save_npy(p, t)
            cmd.append("--input=%s=%s" % (name, p))
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError("tg-run failed:\n%s\n%s\n%s" % (" ".join(cmd), r.stdout, r.stderr))
        return {n: torch.from_numpy(np.load(os.path.join(d, n + ".npy"))) for n in outputs}


def max_err(a, b):
    a, b = a.double(), b.double()
    both_inf = (a == b) & torch.isinf(a)
    d = torch.where(both_inf, torch.zeros_like(a), (a - b).abs())
    if torch.isnan(d).any():
        return float("nan")
    return d.max().item() if d.numel() else 0.0
