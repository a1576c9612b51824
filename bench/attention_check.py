#!/usr/bin/env python3
"""GPU validation and benchmark of tgc's generated attention forward kernel.

Kernels come from tools/tg-gen-attention, are compiled with NVRTC and launched
through the CUDA driver API (both via ctypes, no extension build), on torch
tensors. Modes:

  check    every supported configuration on small shapes against a float64
           reference (torch on the GPU); outputs poisoned with NaN first;
           dropout keep masks compared bit-exactly with a numpy Philox.
  bench    the anchor grid (hd 64/128/256, causal and not, S 512..16384,
           16k tokens, H = 2048/hd): tgc tile variants side by side with SDPA
           flash (FA2) and cudnn, TFLOP/s and ratios, outputs compared with flash.
  compile  generate and NVRTC-compile every kernel of both modes (no GPU, no
           torch): run this on the CPU machine before using device time.

Writes JSON and markdown under --out (default $OUT or bench/results).
"""
import argparse
import ctypes
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC_SM = 90  # --sm: the tile table's target (90: wgmma kernels, sm_90a only)

# ---------------------------------------------------------------------------
# Kernel generation and NVRTC compilation
# ---------------------------------------------------------------------------


def find_library(names, dirs):
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.path.exists(p):
                return p
    return names[0]  # let the loader search


class Nvrtc:
    def __init__(self):
        cuda_lib = os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/lib64"
        self.lib = ctypes.CDLL(find_library(["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"], [cuda_lib]))
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def version(self):
        a, b = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(a), ctypes.byref(b))
        return f"{a.value}.{b.value}"

    def compile(self, source, arch, extra=()):
        """Returns (binary or None, log). arch: sm_90a (cubin) or compute_80 (PTX)."""
        prog = ctypes.c_void_p()
        src = source.encode()
        r = self.lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"attention.cu", 0, None, None)
        if r != 0:
            return None, "nvrtcCreateProgram failed"
        opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17"] + [e.encode() for e in extra]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        r = self.lib.nvrtcCompileProgram(prog, len(opts), arr)
        n = ctypes.c_size_t()
        self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        logbuf = ctypes.create_string_buffer(n.value)
        self.lib.nvrtcGetProgramLog(prog, logbuf)
        log = logbuf.value.decode(errors="replace")
        binary = None
        if r == 0:
            cubin = arch.startswith("sm_")
            get_size = self.lib.nvrtcGetCUBINSize if cubin else self.lib.nvrtcGetPTXSize
            get = self.lib.nvrtcGetCUBIN if cubin else self.lib.nvrtcGetPTX
            get_size(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            get(prog, buf)
            binary = buf.raw
        self.lib.nvrtcDestroyProgram(ctypes.byref(prog))
        return binary, log


def spec_flags(spec):
    """tg-gen-attention flags for a spec dict."""
    f = [f"--dtype={spec.get('dtype', 'bf16')}",
         f"--head-dim-qk={spec['dqk']}", f"--head-dim-v={spec.get('dv', spec['dqk'])}",
         f"--heads-q={spec.get('hq', 1)}", f"--heads-kv={spec.get('hkv', spec.get('hq', 1))}",
         f"--causal={spec.get('causal', 'none')}"]
    sm = spec.get("sm", SPEC_SM)
    # sm_90a: the wgmma kernels where the tile table has them.
    f.append(f"--arch=sm_{sm}a" if sm >= 90 else f"--arch=sm_{sm}")
    if spec.get("wl") is not None:
        f.append(f"--window-left={spec['wl']}")
    if spec.get("wr") is not None:
        f.append(f"--window-right={spec['wr']}")
    if spec.get("pad_q"):
        f.append("--seq-len-q")
    if spec.get("pad_kv"):
        f.append("--seq-len-kv")
    if spec.get("dropout", 0) > 0:
        f.append(f"--dropout={spec['dropout']!r}")
    if spec.get("training"):
        f.append("--training")
    if "scale" in spec:
        f.append(f"--scale={spec['scale']!r}")
    if spec.get("modifier"):
        f.append("--score=" + MODIFIERS[spec["modifier"]]["code"])
        for name, ctype in MODIFIERS[spec["modifier"]]["captures"]:
            f.append(f"--capture={name}:{ctype}")
    if spec.get("tile"):
        f.append(f"--tile={spec['tile']}")
    return f


class Kernel:
    def __init__(self, spec, gen, nvrtc, arch):
        self.spec = spec
        with tempfile.TemporaryDirectory() as d:
            cmd = [gen] + spec_flags(spec) + ["-o", f"{d}/k.cu", f"--meta={d}/k.json"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"tg-gen-attention failed: {p.stderr.strip()}")
            self.source = open(f"{d}/k.cu").read()
            self.meta = json.load(open(f"{d}/k.json"))
        t0 = time.time()
        extra = ["--ptxas-options=-v"] if arch.startswith("sm_") else []
        self.binary, self.log = nvrtc.compile(self.source, arch, extra)
        self.compile_s = time.time() - t0
        if self.binary is None:
            raise RuntimeError(f"NVRTC failed for {spec}:\n{self.log}")
        self.spills = None
        for line in self.log.splitlines():
            if "spill stores" in line:
                self.spills = int(line.split("bytes spill stores")[0].split(",")[-1].strip())
            if "Used" in line and "registers" in line:
                self.registers = int(line.split("Used")[1].split("registers")[0])
        self.function = None


def build_kernels(specs, gen, arch, jobs):
    nvrtc = Nvrtc()
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(lambda s: Kernel(s, gen, nvrtc, arch), specs))


# ---------------------------------------------------------------------------
# Score modifiers: C++ snippet, captures, and the same function in torch
# ---------------------------------------------------------------------------

MODIFIERS = {
    "softcap": {"code": "s = 20.0f * tanhf(s / 20.0f);", "captures": []},
    "bias": {"code": "s += bias;", "captures": [("bias", "bf16")]},
    "alibi_softcap": {"code": "s = 30.0f * tanhf(s / 30.0f);\ns += slope * static_cast<float>(kv_idx - q_idx);",
                      "captures": [("slope", "f32")]},
    "custom_mask": {"code": "if (!allowed) s = neg_inf();\ns += 0.01f * static_cast<float>(rel);",
                    "captures": [("allowed", "i1"), ("rel", "i32")]},
}


def make_captures(torch, name, B, Hq, Sq, Skv, dev):
    """Capture tensors (broadcast views) for a modifier, and the torch function."""
    g = torch.Generator(device=dev).manual_seed(1234)
    if name == "softcap":
        return [], lambda s, bi, hi, qi, ki, c: 20.0 * torch.tanh(s / 20.0)
    if name == "bias":
        bias = torch.randn(1, Hq, Sq, Skv, device=dev, generator=g).to(torch.bfloat16)
        return [bias.expand(B, Hq, Sq, Skv)], lambda s, bi, hi, qi, ki, c: s + c[0].double()
    if name == "alibi_softcap":
        slope = (2.0 ** (-8.0 * (torch.arange(Hq, device=dev) + 1) / Hq)).float().reshape(1, Hq, 1, 1)
        return [slope.expand(B, Hq, Sq, Skv)], \
            lambda s, bi, hi, qi, ki, c: 30.0 * torch.tanh(s / 30.0) + c[0].double() * (ki - qi).double()
    if name == "custom_mask":
        allowed = torch.rand(B, 1, Sq, Skv, device=dev, generator=g) > 0.3
        rel = torch.randint(-50, 50, (1, 1, 1, Skv), device=dev, generator=g, dtype=torch.int32)
        return [allowed.expand(B, Hq, Sq, Skv), rel.expand(B, Hq, Sq, Skv)], \
            lambda s, bi, hi, qi, ki, c: torch.where(c[0], s, -math.inf) + 0.01 * c[1].double()
    raise KeyError(name)


# ---------------------------------------------------------------------------
# Philox (vectorised numpy) for the dropout keep masks
# ---------------------------------------------------------------------------

def philox_keep(seed, offset, n, p):
    import numpy as np
    M = np.uint64(0xFFFFFFFF)
    groups = (n + 3) // 4
    g = np.arange(groups, dtype=np.uint64)
    c0, c1 = g & M, g >> np.uint64(32)
    c2 = np.full(groups, offset & 0xFFFFFFFF, dtype=np.uint64)
    c3 = np.full(groups, (offset >> 32) & 0xFFFFFFFF, dtype=np.uint64)
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)) & M, p1 & M, \
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)) & M, p0 & M
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    words = np.stack([c0, c1, c2, c3], axis=1).reshape(-1)[:n]
    return words >= np.uint64(math.floor(p * 2.0 ** 32))


def philox_self_test():
    """Random123 known answer (counter 0, key 0) through the same code path."""
    import numpy as np
    M = np.uint64(0xFFFFFFFF)
    c0 = c1 = c2 = c3 = np.zeros(1, dtype=np.uint64)
    k0 = k1 = 0
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)) & M, p1 & M, \
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)) & M, p0 & M
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    got = [int(x[0]) for x in (c0, c1, c2, c3)]
    assert got == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8], [hex(x) for x in got]


# ---------------------------------------------------------------------------
# Driver API launch
# ---------------------------------------------------------------------------

class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")

    def check(self, r, what):
        if r != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(r, ctypes.byref(s))
            raise RuntimeError(f"{what}: CUDA error {r} {s.value.decode() if s.value else ''}")

    def load(self, kernel):
        mod = ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(kernel.binary)), "cuModuleLoadData")
        fn = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, kernel.meta["entry"].encode()),
                   "cuModuleGetFunction")
        # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
        self.check(self.lib.cuFuncSetAttribute(fn, 8, kernel.meta["shared_bytes"]), "cuFuncSetAttribute")
        kernel.function = fn
        kernel.module = mod

    def launch(self, kernel, grid, args, stream):
        self.prepare(kernel, grid, args, stream)()

    def prepare(self, kernel, grid, args, stream):
        """A callable that launches with pre-built parameters (cheap to repeat)."""
        values = []
        for a in args:
            if isinstance(a, ctypes._SimpleCData):
                values.append(a)
            else:
                values.append(ctypes.c_void_p(a))
        ptrs = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
        m = kernel.meta
        fn, launch_kernel, st = kernel.function, self.lib.cuLaunchKernel, ctypes.c_void_p(stream)

        def go():
            r = launch_kernel(fn, grid[0], grid[1], grid[2], m["threads"], 1, 1, m["shared_bytes"], st, ptrs, None)
            if r != 0:
                self.check(r, "cuLaunchKernel")
        go.keep = (values, ptrs)
        return go


def kernel_args(torch, kernel, q, k, v, o, lse=None, seq_q=None, seq_kv=None, seed=None, offset=None,
                captures=()):
    """Arguments in the kernel's parameter order (AttentionKernel.h)."""
    B, Hq, Sq, _ = q.shape
    Skv = k.shape[2]
    L = ctypes.c_longlong
    args = [q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
            lse.data_ptr() if lse is not None else 0,
            seq_q.data_ptr() if seq_q is not None else 0,
            seq_kv.data_ptr() if seq_kv is not None else 0,
            seed.data_ptr() if seed is not None else 0,
            offset.data_ptr() if offset is not None else 0,
            L(B), L(Hq), L(Sq), L(Skv)]
    for t in (q, k, v, o):
        assert t.stride(3) == 1
        args += [L(t.stride(0)), L(t.stride(1)), L(t.stride(2))]
    for c in captures:
        args += [c.data_ptr()] + [L(x) for x in c.stride()]
    grid = (math.ceil(Sq / kernel.meta["block_m"]), Hq, B)
    return grid, args


# ---------------------------------------------------------------------------
# Reference (float64)
# ---------------------------------------------------------------------------

def reference(torch, spec, q, k, v, seq_q, seq_kv, captures, modifier_fn, seed, offset):
    B, Hq, Sq, _ = q.shape
    Hkv, Skv = k.shape[1], k.shape[2]
    dev = q.device
    group = Hq // Hkv
    qd = q.double()
    kd = k.double().repeat_interleave(group, dim=1)
    vd = v.double().repeat_interleave(group, dim=1)
    scale = spec.get("scale", 1.0 / math.sqrt(spec["dqk"]))
    s = scale * (qd @ kd.transpose(-1, -2))
    bi = torch.arange(B, device=dev).reshape(B, 1, 1, 1)
    hi = torch.arange(Hq, device=dev).reshape(1, Hq, 1, 1)
    qi = torch.arange(Sq, device=dev).reshape(1, 1, Sq, 1)
    ki = torch.arange(Skv, device=dev).reshape(1, 1, 1, Skv)
    if modifier_fn is not None:
        s = modifier_fn(s, bi, hi, qi, ki, captures)
    lq = seq_q.long().reshape(B, 1, 1, 1) if spec.get("pad_q") else torch.full((B, 1, 1, 1), Sq, device=dev)
    lkv = seq_kv.long().reshape(B, 1, 1, 1) if spec.get("pad_kv") else torch.full((B, 1, 1, 1), Skv, device=dev)
    diag = qi + (lkv - lq) if spec.get("causal") == "bottom_right" else qi.expand(B, 1, Sq, 1)
    keep = torch.ones(B, Hq, Sq, Skv, dtype=torch.bool, device=dev)
    if spec.get("causal", "none") != "none":
        keep &= ki <= diag
    if spec.get("wl") is not None:
        keep &= ki >= diag - spec["wl"]
    if spec.get("wr") is not None:
        keep &= ki <= diag + spec["wr"]
    if spec.get("pad_q"):
        keep &= qi < lq
    if spec.get("pad_kv"):
        keep &= ki < lkv
    s = torch.where(keep, s, -math.inf)
    m = s.amax(dim=-1, keepdim=True)
    m_safe = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(s - m_safe)
    l = e.sum(dim=-1, keepdim=True)
    p = torch.where(l > 0, e / l, torch.zeros_like(e))
    lse = torch.where(l > 0, torch.log(l) + m_safe, torch.full_like(l, -math.inf)).squeeze(-1)
    if spec.get("dropout", 0) > 0:
        import numpy as np
        pd = spec["dropout"]
        mask = philox_keep(seed, offset, B * Hq * Sq * Skv, pd).reshape(B, Hq, Sq, Skv)
        p = p * torch.from_numpy(mask).to(dev).double() / (1.0 - pd)
    return p @ vd, lse


# ---------------------------------------------------------------------------
# Check mode
# ---------------------------------------------------------------------------

def check_cases():
    """(spec, shape) pairs. shape: B, Sq, Skv, layout (bhsd | bshd)."""
    cases = []

    def add(spec, B, Sq, Skv, layout="bhsd", seed=0):
        cases.append((dict(spec), dict(B=B, Sq=Sq, Skv=Skv, layout=layout, seed=seed)))

    # Every head dim x type, plain, odd lengths incl. 1 and Sq != Skv, both layouts.
    for i, d in enumerate((64, 72, 80, 96, 128, 192, 256)):
        for dt in ("bf16", "f16"):
            spec = dict(dqk=d, dtype=dt, hq=4, hkv=4)
            add(spec, 2, 17, 1000, "bshd" if dt == "f16" else "bhsd")
            add(spec, 1, 1, 17)
            add(spec, 2, 1000, 128, "bhsd")
    # Masks, GQA, padding, dropout, training, modifiers, Dqk != Dv.
    add(dict(dqk=128, hq=8, hkv=8, causal="top_left", training=True), 2, 1000, 1000)
    add(dict(dqk=128, hq=8, hkv=2, causal="bottom_right", training=True), 2, 128, 1000, "bshd")
    add(dict(dqk=64, hq=8, hkv=1, causal="bottom_right", training=True), 2, 1000, 128)  # rows fully masked
    add(dict(dqk=64, hq=4, hkv=4, causal="top_left", training=True), 1, 4096, 4096)
    add(dict(dqk=96, dtype="f16", hq=8, hkv=2, wl=100, wr=20, training=True), 2, 1000, 1000)
    add(dict(dqk=256, hq=4, hkv=4, causal="bottom_right", wl=64, training=True), 2, 300, 700, "bshd")
    add(dict(dqk=80, hq=4, hkv=4, pad_q=True, pad_kv=True, training=True), 3, 200, 333)
    add(dict(dqk=128, dtype="f16", hq=8, hkv=4, causal="bottom_right", pad_q=True, pad_kv=True,
             training=True), 3, 500, 400, "bshd")
    add(dict(dqk=72, hq=4, hkv=4, pad_kv=True, causal="top_left"), 2, 17, 128)
    add(dict(dqk=192, dv=128, hq=4, hkv=4, training=True), 2, 300, 300)
    add(dict(dqk=64, dv=128, hq=4, hkv=2, causal="top_left", training=True), 2, 200, 200)
    add(dict(dqk=128, hq=4, hkv=4, scale=-0.07, training=True), 2, 128, 128)
    for mod in MODIFIERS:
        add(dict(dqk=128, hq=8, hkv=8, causal="bottom_right", modifier=mod, training=True), 2, 200, 333)
    add(dict(dqk=64, dtype="f16", hq=8, hkv=2, modifier="alibi_softcap", pad_kv=True, training=True), 2, 130, 257)
    for p in (0.1, 0.5):
        add(dict(dqk=64, hq=4, hkv=2, dropout=p, training=True), 2, 100, 130)
    add(dict(dqk=128, hq=4, hkv=4, causal="top_left", dropout=0.2, modifier="bias", pad_q=True,
             training=True), 2, 300, 300, "bshd")
    add(dict(dqk=256, dtype="f16", hq=2, hkv=1, dropout=0.3, wl=50, training=True), 2, 129, 129)
    # Tile variants used by the benchmark, on awkward shapes.
    for d, tiles in BENCH_TILES.items():
        for t in tiles:
            if ":wg" in t and SPEC_SM != 90:
                continue
            add(dict(dqk=d, hq=4, hkv=4, causal="top_left", training=True, tile=t), 2, 333, 333)
            add(dict(dqk=d, hq=4, hkv=4, tile=t), 1, 77, 1000, "bshd")
            if ":wg" in t:  # the sm_90a paths: every option once more
                add(dict(dqk=d, hq=8, hkv=2, causal="bottom_right", pad_q=True, pad_kv=True,
                         training=True, tile=t), 3, 200, 333)
                add(dict(dqk=d, dtype="f16", hq=4, hkv=4, dropout=0.2, modifier="bias", wl=70,
                         training=True, tile=t), 2, 130, 257, "bshd")
                add(dict(dqk=d, hq=4, hkv=4, tile=t), 1, 1, 17)
    return cases


def run_check(args, torch):
    dev = "cuda"
    cases = check_cases()
    specs = []
    keyed = {}
    for spec, _ in cases:
        key = json.dumps(spec, sort_keys=True)
        if key not in keyed:
            keyed[key] = len(specs)
            specs.append(spec)
    # Exact dropout mask test kernel.
    drop_spec = dict(dqk=64, hq=3, hkv=3, dropout=0.3)
    specs.append(drop_spec)
    t0 = time.time()
    kernels = build_kernels(specs, args.gen, args.arch, args.jobs)
    print(f"compiled {len(kernels)} kernels for {args.arch} in {time.time() - t0:.1f} s", flush=True)
    if args.mode == "compile":
        return {"compiled": len(kernels)}
    philox_self_test()
    drv = Driver()
    for kern in kernels:
        drv.load(kern)
    stream = torch.cuda.current_stream().cuda_stream
    results = []
    tol = {"bf16": 2e-2, "f16": 1e-2}
    fails = 0
    for idx, (spec, shape) in enumerate(cases):
        kern = kernels[keyed[json.dumps(spec, sort_keys=True)]]
        torch.manual_seed(1000 + idx)
        B, Sq, Skv = shape["B"], shape["Sq"], shape["Skv"]
        Hq, Hkv = spec["hq"], spec["hkv"]
        dqk, dv = spec["dqk"], spec.get("dv", spec["dqk"])
        dt = torch.bfloat16 if spec.get("dtype", "bf16") == "bf16" else torch.float16

        def make(H, S, D):
            if shape["layout"] == "bshd":
                return torch.randn(B, S, H, D, device=dev).to(dt).transpose(1, 2)
            return torch.randn(B, H, S, D, device=dev).to(dt)
        q, k, v = make(Hq, Sq, dqk), make(Hkv, Skv, dqk), make(Hkv, Skv, dv)
        o = make(Hq, Sq, dv)
        o.fill_(float("nan"))
        lse = torch.full((B, Hq, Sq), float("nan"), device=dev) if spec.get("training") else None
        seq_q = torch.randint(0, Sq + 1, (B,), device=dev, dtype=torch.int32) if spec.get("pad_q") else None
        seq_kv = torch.randint(0, Skv + 1, (B,), device=dev, dtype=torch.int32) if spec.get("pad_kv") else None
        if seq_q is not None and B > 1:
            seq_q[0] = Sq  # one full-length sequence
        seed_v, off_v = 0x0123456789ABCDEF + idx, (1 << 33) + 7 * idx
        seed = torch.tensor([seed_v - (1 << 64) if seed_v >= (1 << 63) else seed_v], device=dev, dtype=torch.int64)
        offset = torch.tensor([off_v], device=dev, dtype=torch.int64)
        caps, fn = ([], None)
        if spec.get("modifier"):
            caps, fn = make_captures(torch, spec["modifier"], B, Hq, Sq, Skv, dev)
        grid, kargs = kernel_args(torch, kern, q, k, v, o, lse, seq_q, seq_kv,
                                  seed if spec.get("dropout") else None, offset if spec.get("dropout") else None,
                                  caps)
        drv.launch(kern, grid, kargs, stream)
        torch.cuda.synchronize()
        ref_o, ref_lse = reference(torch, spec, q, k, v, seq_q, seq_kv, caps, fn, seed_v, off_v)
        of = o.double()
        nan = bool(torch.isnan(of).any())
        err = float((of - ref_o).abs().max()) if not nan else float("nan")
        scale_ref = max(1.0, float(ref_o.abs().max()))
        ok = (not nan) and err <= tol[spec.get("dtype", "bf16")] * scale_ref
        lse_err = None
        if lse is not None:
            fin = torch.isfinite(ref_lse)
            lse_nan = bool(torch.isnan(lse).any())
            same_inf = bool(torch.equal(torch.isinf(lse) & (lse < 0), ~fin))
            lse_err = float((lse.double()[fin] - ref_lse[fin]).abs().max()) if bool(fin.any()) else 0.0
            ok = ok and not lse_nan and same_inf and lse_err <= 1e-3 * max(1.0, float(ref_lse[fin].abs().max()) if bool(fin.any()) else 1.0)
        fails += not ok
        row = dict(spec=spec, shape=shape, max_abs_err=err, lse_err=lse_err, ok=ok,
                   tile=f"{kern.meta['block_m']}x{kern.meta['block_n']}:{kern.meta['warps']}")
        results.append(row)
        print(("PASS " if ok else "FAIL ") + json.dumps(row), flush=True)

    # Dropout keep bits, exactly: q = k = 0 gives uniform probabilities, V =
    # identity (keys x dims) makes O[b, h, q, kv] = keep / ((1 - p) Skv).
    kern = kernels[-1]
    B, H, Sq, Skv = 2, 3, 37, 61
    q = torch.zeros(B, H, Sq, 64, device=dev, dtype=torch.bfloat16)
    kz = torch.zeros(B, H, Skv, 64, device=dev, dtype=torch.bfloat16)
    v = torch.zeros(B, H, Skv, 64, device=dev, dtype=torch.bfloat16)
    v[:, :, torch.arange(Skv), torch.arange(Skv)] = 1.0
    o = torch.full((B, H, Sq, 64), float("nan"), device=dev, dtype=torch.bfloat16)
    seed_v, off_v = 0x1F2E3D4C5B6A7988, (5 << 32) + 3
    seed = torch.tensor([seed_v], device=dev, dtype=torch.int64)
    offset = torch.tensor([off_v], device=dev, dtype=torch.int64)
    grid, kargs = kernel_args(torch, kern, q, kz, v, o, None, None, None, seed, offset)
    drv.launch(kern, grid, kargs, stream)
    torch.cuda.synchronize()
    got = (o[..., :Skv].float() > 0).cpu().numpy().reshape(-1)
    want = philox_keep(seed_v, off_v, B * H * Sq * Skv, 0.3)
    exact = bool((got == want).all()) and not bool(torch.isnan(o).any())
    print(f"{'PASS' if exact else 'FAIL'} dropout keep bits exact: {int((got == want).sum())}/{got.size} "
          f"(kept fraction {want.mean():.4f})", flush=True)
    fails += not exact
    return {"cases": results, "dropout_exact": exact, "failures": fails, "total": len(results) + 1}


# ---------------------------------------------------------------------------
# Bench mode
# ---------------------------------------------------------------------------

# Tile variants timed per head dim (M x N : warps : Q location : blocks/SM).
BENCH_TILES = {
    64: ["128x64:4:regs:2:p2", "128x64:8:smem:2:wg", "128x128:8:smem:1:wg:ws:pp", "128x128:8:smem:1:s3:wg:ws:pp",
         "192x128:12:smem:1:wg:ws", "192x128:12:smem:1:s3:wg:ws"],
    128: ["128x48:4:smem:2", "128x128:8:smem:1:wg", "128x128:8:smem:1:wg:ws", "128x128:8:smem:1:wg:ws:pp",
          "128x112:8:smem:1:s3:wg:ws", "128x96:8:smem:1:s3:wg:ws:pp"],
    256: ["128x64:8:smem:1:p3", "128x64:8:smem:1:wg", "128x64:8:smem:1:wg:ws:pp", "128x64:8:smem:1:wg:ws",
          "128x48:8:smem:1:s3:wg:ws:pp"],
}


# With --modifier (a score region): the tiles that may suit its longer
# softmax phase; the first of each head dim is the tile table's.
MODIFIER_TILES = {
    64: ["128x128:8:smem:1:wg:ws:pp", "128x128:8:smem:1:wg:ws", "128x64:8:smem:1:wg:ws:pp"],
    128: ["128x128:8:smem:1:wg:ws", "128x128:8:smem:1:wg:ws:pp", "128x96:8:smem:1:wg:ws:pp",
          "128x64:8:smem:1:wg:ws:pp", "128x112:8:smem:1:wg:ws"],
    256: ["128x64:8:smem:1:wg:ws:pp", "128x64:8:smem:1:wg:ws", "128x48:8:smem:1:wg:ws:pp"],
}


def bench_shapes(seqlens):
    for hd in (64, 128, 256):
        for causal in (False, True):
            for S in seqlens:
                yield hd, causal, S, max(1, 16384 // S), 2048 // hd


def time_ms(torch, fn, reps, warm=3):
    """Median milliseconds per call. Each sample times a batch of back-to-back
    calls (>= ~1 ms) so that host launch latency does not leave the GPU idle
    inside the timed region; the same for every backend."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    inner = max(1, min(50, math.ceil(1.0 / max(s.elapsed_time(e), 1e-3))))
    ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / inner)
    ts.sort()
    return ts[len(ts) // 2]


def sass_summary(kernel):
    """Instruction counts from cuobjdump (on the GPU machine): tensor-core,
    ldmatrix, async-copy and local-memory (spill) instructions."""
    import shutil
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.path.exists(tool) or kernel.binary is None or kernel.binary[:4] != b"\x7fELF":
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(kernel.binary)
        f.flush()
        sass = subprocess.run([tool, "--dump-sass", f.name], capture_output=True, text=True).stdout
    counts = {}
    for op in ("HMMA", "HGMMA", "LDSM", "LDGSTS", "LDL", "STL", "MUFU.EX2", "BAR.SYNC"):
        counts[op] = sum(1 for line in sass.splitlines() if op in line)
    return counts


def run_bench(args, torch):
    dev = "cuda"
    seqlens = [int(s) for s in args.seqlens.split(",")]
    specs = []
    for hd in (64, 128, 256):
        table = MODIFIER_TILES if args.modifier else BENCH_TILES
        tiles = table[hd] if args.tiles == "all" else [None]
        if args.bench_tiles:  # HD=TILE,TILE;HD=...: only these tiles
            chosen = dict(part.split("=", 1) for part in args.bench_tiles.split(";"))
            tiles = chosen[str(hd)].split(",") if str(hd) in chosen else []
        tiles = [t for t in tiles if not (t and ":wg" in t and SPEC_SM != 90)]
        for causal in (False, True):
            for t in tiles:
                spec = dict(dqk=hd, hq=2048 // hd, hkv=2048 // hd, causal="top_left" if causal else "none")
                if t:
                    spec["tile"] = t
                if args.modifier:
                    spec["modifier"] = args.modifier
                specs.append(spec)
    t0 = time.time()
    kernels = build_kernels(specs, args.gen, args.arch, args.jobs)
    for kern in kernels:
        m = kern.meta
        kern.label = kern.spec.get("tile") or (
            f"{m['block_m']}x{m['block_n']}:{m['warps']}:{'regs' if m['q_in_registers'] else 'smem'}"
            f":s{m['stages']}:p{m['prefetch']}" + (":wg" if m.get("wgmma") else ""))
    if args.gen_alt:  # the same kernels from another generator build (A/B)
        alt = build_kernels(specs, args.gen_alt, args.arch, args.jobs)
        for kern in alt:
            kern.label = (kern.spec.get("tile") or "default") + "@alt"
        kernels += alt
    print(f"compiled {len(kernels)} kernels in {time.time() - t0:.1f} s", flush=True)
    for kern in kernels:
        print(f"  {kern.spec} regs={getattr(kern, 'registers', '?')} spills={kern.spills} "
              f"compile={kern.compile_s:.2f}s", flush=True)
    if args.mode == "compile":
        return {"compiled": len(kernels)}
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    sass = {}
    for kern in kernels:
        counts = sass_summary(kern)
        if counts:
            sass[json.dumps(kern.spec, sort_keys=True)] = counts
            print(f"  SASS {kern.spec.get('dqk')} {kern.spec.get('causal')} {kern.spec.get('tile')}: {counts}",
                  flush=True)
    drv = Driver()
    for kern in kernels:
        drv.load(kern)
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for hd, causal, S, B, H in bench_shapes(seqlens):
        q, k, v = (torch.randn(B, H, S, hd, device=dev, dtype=torch.bfloat16) for _ in range(3))
        flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
        row = dict(hd=hd, causal=causal, S=S, B=B, H=H)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            row["flash"] = flops / time_ms(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                           args.reps) / 1e9
        try:
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                row["cudnn"] = flops / time_ms(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                               args.reps) / 1e9
        except Exception as ex:  # noqa: BLE001
            row["cudnn"] = None
            row["cudnn_err"] = str(ex)[:100]
        best = None
        first = True
        for kern in kernels:
            sp = kern.spec
            if sp["dqk"] != hd or (sp["causal"] != "none") != causal:
                continue
            if args.modifier and first:
                # (a score region: the tiles are compared with the tile
                # table's kernel, which the check mode compares with the
                # float64 reference)
                first = False
                ref = torch.full_like(q, float("nan"))
                grid, kargs = kernel_args(torch, kern, q, k, v, ref)
                drv.prepare(kern, grid, kargs, stream)()
                torch.cuda.synchronize()
            o = torch.full_like(q, float("nan"))
            grid, kargs = kernel_args(torch, kern, q, k, v, o)
            launch = drv.prepare(kern, grid, kargs, stream)
            launch()
            torch.cuda.synchronize()
            diff = float((o.float() - ref.float()).abs().max())
            ok = not bool(torch.isnan(o).any()) and diff <= 2e-2
            tf = flops / time_ms(torch, launch, args.reps) / 1e9
            name = kern.label
            row[f"tgc[{name}]"] = round(tf, 1)
            row[f"diff[{name}]"] = diff
            if not ok:
                row[f"bad[{name}]"] = True
                print(f"MISMATCH vs flash: {sp} diff {diff}", flush=True)
            elif best is None or tf > best[0]:
                best = (tf, name)
        row["tgc"] = round(best[0], 1) if best else None
        row["tgc_tile"] = best[1] if best else None
        row["flash"] = round(row["flash"], 1)
        row["cudnn"] = round(row["cudnn"], 1) if row.get("cudnn") else None
        row["vs_flash"] = round(row["tgc"] / row["flash"], 3) if best else None
        row["vs_cudnn"] = round(row["tgc"] / row["cudnn"], 3) if best and row["cudnn"] else None
        rows.append(row)
        print(json.dumps(row), flush=True)
        del q, k, v
    return {"rows": rows, "sass": sass,
            "kernels": [dict(spec=k.spec, registers=getattr(k, "registers", None), spills=k.spills,
                             compile_s=round(k.compile_s, 3), shared_bytes=k.meta["shared_bytes"]) for k in kernels]}


def run_profile(args, torch):
    """One launch of a tgc kernel and one of SDPA flash on the same shape, for
    ncu (-k regex:'tg_attention|flash'): compare stall reasons and counts."""
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    hd, S = args.profile_hd, args.profile_s
    B, H = max(1, 16384 // S), 2048 // hd
    spec = dict(dqk=hd, hq=H, hkv=H, causal="top_left" if args.profile_causal else "none")
    if args.profile_tile:
        spec["tile"] = args.profile_tile
    kern = build_kernels([spec], args.gen, args.arch, 1)[0]
    drv = Driver()
    drv.load(kern)
    q, k, v = (torch.randn(B, H, S, hd, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.empty_like(q)
    grid, kargs = kernel_args(torch, kern, q, k, v, o)
    drv.launch(kern, grid, kargs, torch.cuda.current_stream().cuda_stream)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        F.scaled_dot_product_attention(q, k, v, is_causal=bool(args.profile_causal))
    torch.cuda.synchronize()
    return {"profiled": spec}


def markdown_table(rows):
    lines = ["| hd | causal | S | B x H | tgc TFLOP/s | tile | flash (FA2) | cudnn | tgc/flash | tgc/cudnn |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['hd']} | {'yes' if r['causal'] else 'no'} | {r['S']} | {r['B']}x{r['H']} | {r['tgc']} "
                     f"| {r['tgc_tile']} | {r['flash']} | {r['cudnn']} | {r['vs_flash']} | {r['vs_cudnn']} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["check", "bench", "compile", "profile"])
    ap.add_argument("--profile-hd", type=int, default=128)
    ap.add_argument("--profile-s", type=int, default=4096)
    ap.add_argument("--profile-tile", default="")
    ap.add_argument("--profile-causal", type=int, default=0)
    ap.add_argument("--gen", default=os.path.join(ROOT, "build/bin/tg-gen-attention"))
    ap.add_argument("--gen-alt", default="", help="second generator binary to compare (A/B)")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--sm", type=int, default=90, help="spec target for the tile table (80: portable L0)")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--seqlens", default="512,2048,8192,16384")
    ap.add_argument("--tiles", choices=["all", "default"], default="default")
    ap.add_argument("--bench-tiles", default="", help="bench: HD=TILE,TILE;HD=... instead of --tiles")
    ap.add_argument("--modifier", default="", choices=[""] + list(MODIFIERS),
                    help="bench: with this score modifier (captureless ones: softcap)")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "bench/results"))
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    global SPEC_SM
    SPEC_SM = args.sm

    info = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "arch": args.arch, "mode": args.mode}
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip() or os.environ.get("TGC_COMMIT", "")
    except OSError:
        info["commit"] = os.environ.get("TGC_COMMIT", "")
    if not info["commit"]:
        info["commit"] = os.environ.get("TGC_COMMIT", "unknown")

    if args.mode == "compile":
        info["nvrtc"] = Nvrtc().version()
        print(info)
        run_check(args, None)
        args.tiles = "all"
        run_bench(args, None)
        return 0

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    info.update(torch=torch.__version__, gpu=torch.cuda.get_device_name(), cudnn=torch.backends.cudnn.version(),
                nvrtc=Nvrtc().version())
    print(info, flush=True)
    torch.zeros(1, device="cuda")  # create the primary context before driver calls
    if args.mode == "profile":
        print(run_profile(args, torch))
        return 0
    res = run_check(args, torch) if args.mode == "check" else run_bench(args, torch)
    res["info"] = info
    os.makedirs(args.out, exist_ok=True)
    name = f"attention_{args.mode}{args.tag}"
    with open(os.path.join(args.out, name + ".json"), "w") as fh:
        json.dump(res, fh, indent=1)
    if args.mode == "bench":
        table = markdown_table(res["rows"])
        with open(os.path.join(args.out, name + ".md"), "w") as fh:
            fh.write(f"# tgc attention forward vs PyTorch SDPA ({info['gpu']}, {info['date']}, commit {info['commit']})\n\n")
            fh.write(table + "\n")
        print(table)
        return 0
    print(f"check: {res['total'] - res['failures']} passed, {res['failures']} failed")
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
