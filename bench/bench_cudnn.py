#!/usr/bin/env python3
"""Benchmark (not a test): tgc's cuDNN backend side by side with PyTorch's
cuDNN attention, in one process, with the SAME libcudnn: torch loads its
cuDNN first, the path it loaded is read from /proc/self/maps and given to
tgc's runtime as TGC_CUDNN_LIBRARY before libtgc is loaded.

1. Attention on the anchor grid (hd 64/128/256, causal and not, S
   512..16384, B = 16384/S, H = 2048/hd, bf16):
   - forward: tgc compiled with --backend=cudnn vs F.scaled_dot_product_attention
     under sdpa_kernel(CUDNN_ATTENTION) (and tgc --backend=nvrtc for reference);
   - backward: a tg.sdpa_grad graph (q, k, v, o, do, stats -> dq, dk, dv; o
     and stats from tgc's own training forward) vs torch's cuDNN backward
     timed alone: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
     on an output computed once. Both compute dq, dk, dv from saved o and
     stats, nothing else.
   TFLOP/s: forward 4*B*H*S^2*hd (x0.5 causal); backward 2.5x that.
   tgc's outputs are poisoned with NaN before it runs and compared with
   torch's (forward output, gradients).
2. FP8 forward TFLOP/s at hd 128 and 256 against the 1.2 PFLOP/s claim:
   tg.sdpa with fp8_scales (attention_graphs.fp8_sdpa_graph), else
   examples/fp8_attention.mlir rescaled to the grid shapes; skipped, with
   the reasons, if neither compiles.
3. Mixed-input matmul, x bf16 [M,K] times w int8 [K,N] (8192^3 and
   16x8192x8192), plain and with a per-output-channel scale: tgc
   (--backend=cudnn) vs torch dequantising w then torch.matmul.

Usage (GPU machine): python3 bench/bench_cudnn.py --lib .carry/lib/libtgc.so --out $OUT
Writes bench.json, bench.md and bench.png under --out. Runs in about 4
minutes; --budget-s caps the attention grid (later shapes are skipped)."""
import argparse, ctypes, glob, json, os, re, sys, tempfile, time

import torch  # first: its cuDNN is the one tgc must use
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
from bench_attention import bench  # noqa: E402
from tgc_ctypes import Binding, Tgc  # noqa: E402
import attention_graphs as ag  # noqa: E402

FP8_CLAIM_TFLOPS = 1200.0
DEV = "cuda"


def torch_cudnn():
    """(version, path of the libcudnn.so.9 torch loaded)."""
    version = torch.backends.cudnn.version()
    # Make sure the library (and its engines) are mapped: one tiny SDPA call.
    x = torch.randn(1, 1, 64, 64, device=DEV, dtype=torch.bfloat16)
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            F.scaled_dot_product_attention(x, x, x)
        torch.cuda.synchronize()
    except Exception as ex:  # noqa: BLE001 - reported, not fatal
        print("torch cuDNN attention probe failed:", str(ex)[:200], flush=True)
    path = ""
    with open("/proc/self/maps") as f:
        for line in f:
            m = re.search(r"(/\S*libcudnn\.so\.9[\d.]*)$", line.strip())
            if m:
                path = m.group(1)
                break
    return version, path


class TgcX(Tgc):
    """Tgc plus the optional step description and buffer queries."""

    def __init__(self, path):
        super().__init__(path)
        self.has_describe = hasattr(self.lib, "tgc_executable_describe")
        if self.has_describe:
            self.lib.tgc_executable_describe.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                         ctypes.POINTER(ctypes.c_char_p)]

    def describe(self, exe, stream):
        """The runtime's "step N: <backend>: ..." lines, or a note."""
        if not self.has_describe:
            return "(libtgc has no tgc_executable_describe)"
        text = ctypes.c_char_p()
        if self.lib.tgc_executable_describe(exe, stream, ctypes.byref(text)) != 0:
            return "(describe failed: %s)" % self.lib.tgc_last_error().decode()
        return (text.value or b"").decode().strip()

    def workspace_bytes(self, exe):
        n = ctypes.c_uint64()
        self.check(self.lib.tgc_executable_workspace_size(exe, ctypes.byref(n)), "workspace_size")
        return n.value

    def buffers(self, exe):
        """[(name, role, dtype, shape, strides)] of a compiled plan."""
        class Info(ctypes.Structure):
            _fields_ = [("name", ctypes.c_char_p), ("role", ctypes.c_int), ("dtype", ctypes.c_int),
                        ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                        ("strides", ctypes.POINTER(ctypes.c_int64)), ("bytes", ctypes.c_uint64),
                        ("alignment", ctypes.c_uint32)]
        n = ctypes.c_size_t()
        self.check(self.lib.tgc_executable_num_buffers(exe, ctypes.byref(n)), "num_buffers")
        out = []
        for i in range(n.value):
            info = Info()
            self.check(self.lib.tgc_executable_buffer_info(exe, ctypes.c_size_t(i), ctypes.byref(info)), "buffer_info")
            out.append((info.name.decode(), info.role, info.dtype, [info.shape[d] for d in range(info.rank)],
                        [info.strides[d] for d in range(info.rank)]))
        return out


def backend_of(describe_text):
    """"cudnn", "nvrtc", "nvrtc (fallback)", a mix, or "?"."""
    kinds = []
    for line in describe_text.splitlines():
        m = re.match(r"step\s+\d+\s*:\s*(\w+)", line)
        if not m:
            continue
        k = m.group(1)
        if k != "cudnn" and "fallback" in line:
            k = "nvrtc (fallback)"
        if k not in kinds:
            kinds.append(k)
    return "+".join(kinds) or "?"


def timed_tgc(tgc, exe, arr, stream, reps, warm):
    return bench(lambda: tgc.run(exe, arr, stream), reps=reps, warm=warm)


def rel_err(got, ref):
    got, ref = got.float(), ref.float()
    scale = ref.abs().max().item() or 1.0
    err = (got - ref).abs().max().item()
    return err / scale if err == err else float("nan")


def attention_row(tgc, hd, causal, S, args, stream):
    B, H = max(1, 16384 // S), 2048 // hd
    flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
    row = {"hd": hd, "causal": causal, "S": S, "B": B, "H": H}
    c = dict(B=B, Hq=H, Hkv=H, Sq=S, Skv=S, D=hd, dtype="bf16", causal="top_left" if causal else None)
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(B, H, S, hd, device=DEV, dtype=torch.bfloat16) for _ in range(4))

    # torch cuDNN forward, and its backward on an output computed once.
    ref, grads = None, None
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            row["torch_fwd"] = round(flops / bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                                   reps=args.reps, warm=args.warm) / 1e9, 1)
    except Exception as ex:  # noqa: BLE001
        row["torch_fwd_error"] = str(ex).strip().splitlines()[0][:160] if str(ex).strip() else repr(ex)
    if not args.no_bwd:
        qg, kg, vg = (t.clone().requires_grad_(True) for t in (q, k, v))
        try:
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                row["torch_bwd"] = round(2.5 * flops / bench(
                    lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True),
                    reps=args.bwd_reps, warm=args.warm) / 1e9, 1)
            del out
        except Exception as ex:  # noqa: BLE001
            row["torch_bwd_error"] = str(ex).strip().splitlines()[0][:160] if str(ex).strip() else repr(ex)
        del qg, kg, vg

    def compile_run(text, bindings, backend, scores=True):
        t0 = time.time()
        exe = tgc.compile(text, "--arch=%s --backend=%s" % (args.arch, backend))
        arr = tgc.bindings(bindings)
        desc = tgc.describe(exe, stream)
        # A backward NVRTC runs unfused materialises [B,H,S,S] f32 scores in
        # the plan's workspace: far too slow (or too big) at long S.
        ws_gb = tgc.workspace_bytes(exe) / 1e9
        if scores and backend_of(desc) != "cudnn" and ws_gb > args.max_unfused_gb:
            tgc.lib.tgc_executable_destroy(exe)
            raise RuntimeError("not run: the plan is not on cuDNN (%s) and needs %.1f GB of workspace"
                               % (backend_of(desc), ws_gb))
        tgc.run(exe, arr, stream)
        torch.cuda.synchronize()
        return exe, arr, desc, round(time.time() - t0, 2)

    # tgc forward, cuDNN (and NVRTC for reference).
    for backend in ["cudnn"] + (["nvrtc"] if args.nvrtc else []):
        key = "tgc_%s_fwd" % backend
        o = torch.full_like(q, float("nan"))
        try:
            # The forward never materialises scores (fused kernel or cuDNN).
            exe, arr, desc, secs = compile_run(ag.sdpa_graph(c), {"q": q, "k": k, "v": v, "o": o}, backend,
                                               scores=False)
            row[key + "_ran"] = backend_of(desc)
            row[key + "_steps"] = desc
            row[key + "_setup_s"] = secs
            if ref is not None:
                row[key + "_err"] = rel_err(o, ref)
            row[key] = round(flops / timed_tgc(tgc, exe, arr, stream, args.reps, args.warm) / 1e9, 1)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            row[key + "_error"] = str(ex)[:300]
        del o

    # tgc backward: o and stats from tgc's training forward, then sdpa_grad.
    if not args.no_bwd:
        try:
            o = torch.full_like(q, float("nan"))
            stats = torch.full((B, H, S, 1), float("nan"), device=DEV, dtype=torch.float32)
            exe_f, _, desc_f, _ = compile_run(ag.sdpa_graph(dict(c, training=True)),
                                              {"q": q, "k": k, "v": v, "o": o, "stats": stats}, "cudnn",
                                              scores=False)
            row["tgc_train_fwd_ran"] = backend_of(desc_f)
            tgc.lib.tgc_executable_destroy(exe_f)
            dq, dk, dv = (torch.full_like(t, float("nan")) for t in (q, k, v))
            exe, arr, desc, secs = compile_run(
                ag.sdpa_grad_graph(c), {"q": q, "k": k, "v": v, "o": o, "do": do, "stats": stats,
                                        "dq": dq, "dk": dk, "dv": dv}, "cudnn")
            row["tgc_cudnn_bwd_ran"] = backend_of(desc)
            row["tgc_cudnn_bwd_steps"] = desc
            row["tgc_cudnn_bwd_setup_s"] = secs
            if grads is not None:
                row["tgc_cudnn_bwd_err"] = max(rel_err(a, b) for a, b in zip((dq, dk, dv), grads))
            row["tgc_cudnn_bwd"] = round(2.5 * flops / timed_tgc(tgc, exe, arr, stream, args.bwd_reps, args.warm) / 1e9, 1)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            row["tgc_cudnn_bwd_error"] = str(ex)[:300]

    for d in ("fwd", "bwd"):
        if row.get("tgc_cudnn_" + d) and row.get("torch_" + d):
            row["ratio_" + d] = round(row["tgc_cudnn_" + d] / row["torch_" + d], 3)
    # ok: no wrong numbers (NaN compares false). Errors are reported apart.
    errs = [row[k] for k in ("tgc_cudnn_fwd_err", "tgc_nvrtc_fwd_err", "tgc_cudnn_bwd_err") if k in row]
    row["ok"] = all(e < args.tol for e in errs)
    return row


# --- FP8 -------------------------------------------------------------------

def fp8_template():
    """(path, text) of the first FP8 attention example, or (None, why)."""
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*fp8*.mlir")) +
                       glob.glob(os.path.join(ROOT, "test", "gpu", "*fp8*.mlir"))):
        text = open(path).read()
        if re.search(r"tg\.(sdpa|attention)\b", text) and "f8E" in text:
            return path, text
    return None, "no examples/*fp8*.mlir with an FP8 tg.sdpa/tg.attention"


def rescale_fp8(text, B, H, S, D):
    """The template's first function with its q/k/v/o [B0,H0,S0,D0] (and
    stats [B0,H0,S0,1]) tensor shapes replaced by [B,H,S,D]."""
    fns = re.split(r"(?=^\s*func\.func )", text, flags=re.M)
    fn = next((f for f in fns if f.lstrip().startswith("func.func") and re.search(r"tg\.(sdpa|attention)\b", f)),
              None)
    if fn is None:
        raise ValueError("no attention function in the FP8 example")
    m = re.search(r"tensor<(\d+)x(\d+)x(\d+)x(\d+)xf8E\w+>", fn)
    if not m:
        raise ValueError("no rank-4 fp8 tensor in the FP8 example")
    b0, h0, s0, d0 = map(int, m.groups())
    mapping = {"%dx%dx%dx1" % (b0, h0, s0): "%dx%dx%dx1" % (B, H, S)}
    # q/o, then k/v (GQA ratio kept; any kv length becomes S).
    for shape in re.findall(r"tensor<(\d+)x(\d+)x(\d+)x(\d+)x(?:f8E\w+|bf16|f16)>", fn):
        b, h, s, d = map(int, shape)
        if b == b0 and d == d0 and h0 % h == 0:
            mapping.setdefault("%dx%dx%dx%d" % (b, h, s, d), "%dx%dx%dx%d" % (B, H * h // h0, S, D))
    return re.sub(r"tensor<(\d+x\d+x\d+x\d+)x", lambda t: "tensor<%sx" % mapping.get(t.group(1), t.group(1)), fn)


TORCH_DTYPES = {1: torch.bfloat16, 2: torch.float16, 3: torch.float32, 4: torch.float8_e4m3fn,
                5: torch.float8_e5m2, 6: torch.int8, 7: torch.int32, 8: torch.int64, 9: torch.uint8}


# Single-element f32 inputs by name (the FP8 scales): P is scaled by 448
# into E4M3's range (1/S would underflow), o by 16; every other one is 1.
FP8_SCALE_VALUES = {"scale_s": 448.0, "descale_s": 1 / 448.0, "scale_o": 16.0}


def make_buffers(tgc, exe, S):
    """Torch tensors for every input and output of a plan: floats N(0,1),
    single-element f32 inputs from FP8_SCALE_VALUES (else 1), integer inputs
    S (sequence lengths), outputs NaN where the type has one."""
    tensors = {}
    for name, role, dtype, shape, strides in tgc.buffers(exe):
        if role == 2:
            continue
        t = torch.empty_strided(shape, strides, device=DEV, dtype=TORCH_DTYPES[dtype])
        if role == 0:
            if t.is_floating_point():
                t.copy_(torch.full(shape, FP8_SCALE_VALUES.get(name, 1.0)) if t.numel() == 1 else torch.randn(shape))
            else:
                t.fill_(S)
        elif t.is_floating_point():
            t.copy_(torch.full(shape, float("nan")))
        tensors[name] = t
    return tensors


def fp8_sources():
    """(name, make(B, H, S, D, causal) -> graph text): our generator, then
    the FP8 example rescaled (its own causal setting)."""
    out = [("generated", lambda B, H, S, D, causal: ag.fp8_sdpa_graph(B, H, S, D, causal))]
    path, text = fp8_template()
    if path is not None:
        out.append((os.path.relpath(path, ROOT), lambda B, H, S, D, causal: rescale_fp8(text, B, H, S, D)))
    return out


def fp8_rows(tgc, args, stream, deadline):
    seqlens = list(map(int, args.fp8_seqlens.split(",")))
    cases = [(hd, S, False) for hd in (128, 256) for S in seqlens]
    if args.fp8_causal:
        cases += [(hd, seqlens[-1], True) for hd in (128, 256)]
    sources = fp8_sources()
    rows = []
    for hd, S, causal in cases:
        B, H = max(1, 16384 // S), 2048 // hd
        row = {"hd": hd, "S": S, "B": B, "H": H, "causal": causal}
        if time.time() > deadline:
            row["skipped"] = "time budget"
            rows.append(row)
            continue
        exe, errors = None, []
        for name, make in sources:
            try:
                exe = tgc.compile(make(B, H, S, hd, causal), "--arch=%s --backend=cudnn" % args.arch)
                row["graph"] = name
                if name != "generated":
                    row["causal"] = causal = "causal" in open(os.path.join(ROOT, name)).read()
                break
            except Exception as ex:  # noqa: BLE001
                errors.append("%s: %s" % (name, str(ex)[:200]))
        if exe is None:
            row["error"] = "; ".join(errors)
            rows.append(row)
            print("fp8", row, flush=True)
            continue
        try:
            tensors = make_buffers(tgc, exe, S)
            arr = tgc.bindings(tensors)
            row["ran"] = backend_of(tgc.describe(exe, stream))
            tgc.run(exe, arr, stream)
            torch.cuda.synchronize()
            ms = timed_tgc(tgc, exe, arr, stream, args.reps, args.warm)
            flops = 4 * B * H * S * S * hd * (0.5 if causal else 1.0)
            row["tflops"] = round(flops / ms / 1e9, 1)
            row["vs_claim"] = round(row["tflops"] / FP8_CLAIM_TFLOPS, 3)
            if all(n in tensors for n in ("q", "k", "v", "o")):
                # Against bf16 attention on the same (exactly converted) inputs.
                q, k, v = (tensors[n].to(torch.bfloat16) for n in ("q", "k", "v"))
                ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                scale_o = tensors["scale_o"].item() if "scale_o" in tensors else 1.0
                row["err_vs_bf16"] = rel_err(tensors["o"].float() / scale_o, ref)
            tgc.lib.tgc_executable_destroy(exe)
        except Exception as ex:  # noqa: BLE001
            row["error"] = str(ex)[:300]
        rows.append(row)
        print("fp8", row, flush=True)
    return rows


# --- mixed-input matmul ------------------------------------------------------

def mixed_rows(tgc, args, stream, deadline):
    """Plain (w converted) and scaled (w * per-output-channel scale, as
    examples/mixed_attention_matmul.mlir dequantises) at each shape."""
    rows = []
    for M, K, N in ((8192, 8192, 8192), (16, 8192, 8192)):
        for scaled in (False, True):
            row = {"M": M, "K": K, "N": N, "scaled": scaled}
            if time.time() > deadline:
                row["skipped"] = "time budget"
                rows.append(row)
                continue
            flops = 2.0 * M * N * K
            torch.manual_seed(0)
            x = torch.randn(M, K, device=DEV, dtype=torch.bfloat16)
            w = torch.randint(-128, 128, (K, N), device=DEV, dtype=torch.int8)
            scale = (torch.rand(1, N, device=DEV) * 0.02 + 0.001).to(torch.bfloat16)
            if scaled:
                dequant = lambda: torch.matmul(x, w.to(torch.bfloat16) * scale)  # noqa: E731
            else:
                dequant = lambda: torch.matmul(x, w.to(torch.bfloat16))  # noqa: E731
            row["torch_dequant_matmul"] = round(flops / bench(dequant, reps=args.reps, warm=args.warm) / 1e9, 1)
            ref = dequant()
            try:
                y = torch.full((M, N), float("nan"), device=DEV, dtype=torch.bfloat16)
                exe = tgc.compile(ag.mixed_matmul_graph(M, K, N, scaled), "--arch=%s --backend=cudnn" % args.arch)
                bindings = {"x": x, "w": w, "y": y}
                if scaled:
                    bindings["scale"] = scale
                arr = tgc.bindings(bindings)
                row["ran"] = backend_of(tgc.describe(exe, stream))
                tgc.run(exe, arr, stream)
                torch.cuda.synchronize()
                row["err"] = rel_err(y, ref)
                row["tgc"] = round(flops / timed_tgc(tgc, exe, arr, stream, args.reps, args.warm) / 1e9, 1)
                row["ratio"] = round(row["tgc"] / row["torch_dequant_matmul"], 3)
                tgc.lib.tgc_executable_destroy(exe)
            except Exception as ex:  # noqa: BLE001
                row["error"] = str(ex)[:300]
            rows.append(row)
            print("mixed", row, flush=True)
            del x, w
    return rows


# --- report ------------------------------------------------------------------

def fmt(v, spec="%s"):
    return "-" if v is None else spec % v


def markdown(env, rows, fp8, mixed):
    L = ["# tgc cuDNN backend vs PyTorch cuDNN (%s, %s, commit %s)" % (env["gpu"], env["date"], env["commit"]), "",
         "One process; torch %s with cuDNN %s loaded from `%s`; tgc's runtime given the same file "
         "(TGC_CUDNN_LIBRARY; runtime reports: %s); TGC_BACKEND=%s." % (
             env["torch"], env["torch_cudnn"], env["cudnn_path"], env.get("tgc_cudnn_log") or "-",
             env["tgc_backend_env"]), "",
         "Attention, bf16, B = 16384/S, H = 2048/hd. TFLOP/s: forward 4·B·H·S²·hd (×0.5 causal) over the median "
         "time; backward 2.5× that. tgc: the C API (tgc_compile_string with --backend=cudnn, tgc_run) on torch "
         "tensors. Backward method: tgc runs a tg.sdpa_grad graph (q, k, v, o, do, stats → dq, dk, dv) on o and "
         "stats from its own training forward; torch runs `torch.autograd.grad(out, (q, k, v), do, "
         "retain_graph=True)` on an output computed once under `sdpa_kernel(CUDNN_ATTENTION)`: the same work "
         "(gradients from saved o and stats). `ran`: the backend the runtime reports for tgc's steps. err: max "
         "abs difference from torch / max |torch| (forward output; worst of dq, dk, dv).", "",
         "| hd | causal | S | B×H | tgc cudnn fwd | torch cudnn fwd | **fwd ratio** | tgc nvrtc fwd | tgc cudnn bwd "
         "| torch cudnn bwd | **bwd ratio** | ran fwd / bwd | err fwd / bwd |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("skipped"):
            L.append("| %d | %s | %d | | skipped: %s | | | | | | | | |" % (r["hd"], "yes" if r["causal"] else "no",
                                                                         r["S"], r["skipped"]))
            continue
        L.append("| %d | %s | %d | %d×%d | %s | %s | **%s** | %s | %s | %s | **%s** | %s / %s | %s / %s |" % (
            r["hd"], "yes" if r["causal"] else "no", r["S"], r["B"], r["H"], fmt(r.get("tgc_cudnn_fwd")),
            fmt(r.get("torch_fwd")), fmt(r.get("ratio_fwd")), fmt(r.get("tgc_nvrtc_fwd")),
            fmt(r.get("tgc_cudnn_bwd")), fmt(r.get("torch_bwd")), fmt(r.get("ratio_bwd")),
            r.get("tgc_cudnn_fwd_ran", "-"), r.get("tgc_cudnn_bwd_ran", "-"),
            fmt(r.get("tgc_cudnn_fwd_err"), "%.1e"), fmt(r.get("tgc_cudnn_bwd_err"), "%.1e")))
    errs = [(r, k) for r in rows for k in r if k.endswith("_error")]
    if errs:
        L += ["", "Errors:", ""] + ["- hd %d %s S %d, %s: %s" % (r["hd"], "causal" if r["causal"] else "full", r["S"],
                                                                  k, r[k]) for r, k in errs]
    ratios = [r[k] for r in rows for k in ("ratio_fwd", "ratio_bwd") if r.get(k)]
    if ratios:
        L += ["", "Ratios tgc/torch: min %.3f, max %.3f; %d of %d at or above 0.98." % (
            min(ratios), max(ratios), sum(x >= 0.98 for x in ratios), len(ratios))]
    L += ["", "## FP8 forward (claim: %.0f TFLOP/s)" % FP8_CLAIM_TFLOPS, "",
          "f8E4M3FN q, k, v, o; scales 1 except scale_s 448 (descale_s 1/448) and scale_o 16; B = 16384/S, "
          "H = 2048/hd. err: max |o/scale_o - bf16 attention of the same inputs| / max |reference|.", "",
          "| hd | causal | S | B×H | TFLOP/s | vs claim | ran | err | graph / note |", "|---|---|---|---|---|---|---|---|---|"]
    for r in fp8:
        L.append("| %s | %s | %s | %s×%s | %s | %s | %s | %s | %s |" % (
            r.get("hd"), "yes" if r.get("causal") else "no", r.get("S"), r.get("B", "-"), r.get("H", "-"),
            fmt(r.get("tflops")), fmt(r.get("vs_claim")), r.get("ran", "-"), fmt(r.get("err_vs_bf16"), "%.1e"),
            r.get("error") or r.get("skipped") or r.get("graph", "-")))
    L += ["", "## Mixed-input matmul: x bf16 [M,K] · w int8 [K,N] → bf16", "",
          "tgc: `tg.matmul` (plain) or `tg.fused_matmul` dequantising w per output channel in prologue_b "
          "(scaled), compiled with --backend=cudnn. torch: `torch.matmul(x, w.to(torch.bfloat16))` or "
          "`torch.matmul(x, w.to(torch.bfloat16) * scale)`, dequantisation included in the time. TFLOP/s = "
          "2·M·N·K / median time.", "",
          "| M×K×N | dequant | tgc (cudnn) | torch dequant + matmul | **ratio** | ran | rel err |",
          "|---|---|---|---|---|---|---|"]
    for r in mixed:
        L.append("| %d×%d×%d | %s | %s | %s | **%s** | %s | %s |" % (
            r["M"], r["K"], r["N"], "scaled" if r.get("scaled") else "plain", fmt(r.get("tgc")),
            fmt(r.get("torch_dequant_matmul")), fmt(r.get("ratio")), r.get("ran", "-"),
            r.get("error") or r.get("skipped") or fmt(r.get("err"), "%.1e")))
    return "\n".join(L) + "\n"


def chart(path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    hds = sorted({r["hd"] for r in rows})
    fig, axes = plt.subplots(2, len(hds), figsize=(5 * len(hds), 8), squeeze=False)
    for col, hd in enumerate(hds):
        sub = [r for r in rows if r["hd"] == hd]
        labels = ["%s%d" % ("c" if r["causal"] else "", r["S"]) for r in sub]
        x = list(range(len(sub)))
        for rowi, (d, series) in enumerate((("fwd", (("tgc_cudnn_fwd", "tgc cudnn"), ("torch_fwd", "torch cudnn"),
                                                      ("tgc_nvrtc_fwd", "tgc nvrtc"))),
                                            ("bwd", (("tgc_cudnn_bwd", "tgc cudnn"), ("torch_bwd", "torch cudnn"))))):
            ax = axes[rowi][col]
            w = 0.8 / len(series)
            for i, (key, name) in enumerate(series):
                ax.bar([xi + (i - (len(series) - 1) / 2) * w for xi in x], [r.get(key) or 0 for r in sub], w, label=name)
            ax.set_xticks(x)
            ax.set_xticklabels(labels, rotation=45)
            ax.set_title("hd %d bf16 %s (TFLOP/s)" % (hd, d))
            if col == 0:
                ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="build/lib/libtgc.so")
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--seqlens", default="512,2048,8192,16384")
    ap.add_argument("--hds", default="64,128,256")
    ap.add_argument("--fp8-seqlens", default="4096,16384")
    ap.add_argument("--fp8-causal", action="store_true", help="also causal FP8 at the longest S")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--bwd-reps", type=int, default=6)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--tol", type=float, default=3e-2, help="relative error (vs max |torch|) for ok")
    ap.add_argument("--budget-s", type=float, default=170, help="attention grid; later shapes are skipped")
    ap.add_argument("--total-s", type=float, default=230, help="FP8 and matmul stop here")
    ap.add_argument("--max-unfused-gb", type=float, default=2.0,
                    help="do not run a backward plan not on cuDNN whose workspace exceeds this")
    ap.add_argument("--no-nvrtc", dest="nvrtc", action="store_false", help="leave out tgc's NVRTC forward")
    ap.add_argument("--no-bwd", action="store_true")
    ap.add_argument("--no-strict", action="store_true",
                    help="leave TGC_BACKEND unset (a cuDNN step that fails falls back to NVRTC)")
    ap.add_argument("--skip", default="", help="comma list of sections to skip: attention,fp8,mixed")
    args = ap.parse_args()
    t_start = time.time()
    skip = set(filter(None, args.skip.split(",")))

    version, path = torch_cudnn()
    if path:
        os.environ["TGC_CUDNN_LIBRARY"] = path
    else:
        print("warning: no libcudnn.so.9 in /proc/self/maps; tgc loads its default", flush=True)
    if not args.no_strict:
        os.environ["TGC_BACKEND"] = "cudnn"
    log = tempfile.NamedTemporaryFile(prefix="tgc-log-", suffix=".txt", delete=False).name
    os.environ.setdefault("TGC_LOG", "info")
    os.environ.setdefault("TGC_LOG_FILE", log)
    tgc = TgcX(args.lib)  # after the environment is set: the runtime reads it on first use
    env = {"torch": torch.__version__, "torch_cudnn": version, "cudnn_path": path, "gpu": torch.cuda.get_device_name(),
           "commit": os.environ.get("TGC_COMMIT", "unknown"), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
           "tgc_backend_env": os.environ.get("TGC_BACKEND", "(unset)"), "describe": tgc.has_describe}
    print(env, flush=True)
    stream = torch.cuda.current_stream().cuda_stream

    rows = []
    if "attention" not in skip:
        deadline = t_start + args.budget_s
        for hd in map(int, args.hds.split(",")):
            for causal in (False, True):
                for S in map(int, args.seqlens.split(",")):
                    if time.time() > deadline:
                        rows.append({"hd": hd, "causal": causal, "S": S, "skipped": "time budget"})
                        continue
                    t0 = time.time()
                    row = attention_row(tgc, hd, causal, S, args, stream)
                    row["seconds"] = round(time.time() - t0, 1)
                    rows.append(row)
                    print({k: v for k, v in row.items() if not k.endswith("_steps")}, flush=True)
                    torch.cuda.empty_cache()
    deadline = t_start + args.total_s
    fp8 = fp8_rows(tgc, args, stream, deadline) if "fp8" not in skip else []
    mixed = mixed_rows(tgc, args, stream, deadline) if "mixed" not in skip else []

    try:
        env["tgc_cudnn_log"] = "; ".join(sorted({l.split("] ", 1)[-1].strip() for l in open(log)
                                                 if "loaded cuDNN" in l}))
    except OSError:
        env["tgc_cudnn_log"] = ""
    env["seconds"] = round(time.time() - t_start, 1)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"env": env, "attention": rows, "fp8": fp8, "mixed_matmul": mixed}, f, indent=1)
    md = markdown(env, rows, fp8, mixed)
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write(md)
    print(md)
    try:
        if rows:
            chart(os.path.join(args.out, "bench.png"), [r for r in rows if not r.get("skipped")])
    except Exception as ex:  # noqa: BLE001
        print("chart failed:", ex)
    print("bench_cudnn: %.0f s" % env["seconds"])
    bad = [r for r in rows if not r.get("skipped") and not r.get("ok", True)]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
