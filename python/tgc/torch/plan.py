"""Compiled attention for one configuration (a cache entry): the forward
executable, the backward executables (one per layout of the incoming
gradient, compiled on first use), and the code that binds torch tensors to
them and runs them on torch's current stream with outputs and workspace from
torch's caching allocator."""
import ctypes
import threading
import warnings

import torch

from .. import graph as G
from ..errors import TgcError
from ..library import Binding, BindingArray
from . import runtime as R

_U64_PER_BINDING = ctypes.sizeof(Binding) // 8
assert ctypes.sizeof(Binding) % 8 == 0

# Compiled executables by (graph text, options, device): two configurations that
# trace to the same graph share one.
_EXECUTABLES = {}
_EXE_LOCK = threading.Lock()
STATS = {"compiles": 0, "compile_seconds": 0.0, "plans": 0, "layout_copies": 0}


def compile_cached(text, options, device):
    key = (text, options, device)
    exe = _EXECUTABLES.get(key)
    if exe is None:
        with _EXE_LOCK:
            exe = _EXECUTABLES.get(key)
            if exe is None:
                import time
                t0 = time.perf_counter()
                try:
                    exe = R.library().compile(text, options)
                except TgcError as ex:
                    ex.graph = text  # what tgc generated (tgc.torch.graphs prints it too)
                    raise
                STATS["compile_seconds"] += time.perf_counter() - t0
                STATS["compiles"] += 1
                _EXECUTABLES[key] = exe
    return exe


def clear_executables():
    with _EXE_LOCK:
        _EXECUTABLES.clear()
        STATS.update(compiles=0, compile_seconds=0.0, plans=0, layout_copies=0)


class FastBindings:
    """A binding array per thread whose data pointers are written through a raw
    u64 view (the fast path of a warm call)."""

    def __init__(self, items):
        self.items = items
        self._tls = threading.local()

    def get(self):
        arr = getattr(self._tls, "arr", None)
        if arr is None:
            ba = BindingArray(self.items)
            raw = (ctypes.c_uint64 * (_U64_PER_BINDING * ba.count)).from_buffer(ba.array)
            arr = self._tls.arr = (ba, raw)
        return arr


def _slot(i):
    return _U64_PER_BINDING * i + 1  # tgc_binding_t.data follows .name


class Operand:
    """A region capture or sequence-length operand: how to get its tensor;
    `grad`: a capture_grad.CaptureGrad when the backward returns its gradient."""

    def __init__(self, name, spec, tensor=None, from_mask=False, to_int32=False):
        self.name, self.spec, self.tensor, self.from_mask, self.to_int32 = name, spec, tensor, from_mask, to_int32
        self.grad = None

    def value(self, attn_mask):
        t = attn_mask if self.from_mask else self.tensor
        if self.to_int32:
            t = t.to(torch.int32)
        return t


class Plan:
    def __init__(self, spec, device, operands, backend, keep, q_copy=(False, False, False), lse_out=False):
        self.spec = spec
        self.device = device
        self.operands = operands      # captures then seq_len_q / seq_len_kv, in graph order
        self.backend = backend
        self.keep = keep              # objects the cache key refers to by id
        self.copy = q_copy            # (q, k, v) need .contiguous() (layouts tg.strides cannot describe)
        self.lse_out = lse_out
        self.training = spec.training
        arch = R.arch_for(device)
        self.options = "--arch=%s --backend=%s" % (arch, backend)
        self.fwd = compile_cached(spec.forward_text(), self.options, str(device))
        self.fwd_ws = self.fwd.workspace_size
        o = spec.o
        self.o_shape, self.o_strides = o.shape, o.strides
        self.lse_shape = spec.lse.shape
        self.dtype = R.TG_TO_TORCH_DTYPE[o.dtype]
        items = [("q", 0, spec.q.dtype, spec.q.shape, spec.q.strides),
                 ("k", 0, spec.k.dtype, spec.k.shape, spec.k.strides),
                 ("v", 0, spec.v.dtype, spec.v.shape, spec.v.strides)]
        items += [(op.name, 0, op.spec.dtype, op.spec.shape, op.spec.strides) for op in operands]
        if spec.dropout > 0:
            items += [("seed", 0, "i64", (), ()), ("offset", 0, "i64", (), ())]
        items += [("o", 0, o.dtype, o.shape, o.strides)]
        if spec.training:
            items += [("lse", 0, "f32", self.lse_shape, spec.lse.strides)]
        self.fwd_bindings = FastBindings(items)
        self.bwd = {}
        self._bwd_lock = threading.Lock()
        self.mask_needed = any(op.from_mask for op in operands)
        # Gradients of captures, in grad_captures order; the tensors they come
        # from besides attn_mask (one autograd input each, however many
        # captures read it) are `grad_sources`.
        self.capture_grads = [op.grad for op in operands if op.grad is not None]
        self.grad_sources, self._source_of = [], []
        for cg in self.capture_grads:
            if cg.from_mask:
                self._source_of.append(None)
                continue
            pos = next((i for i, t in enumerate(self.grad_sources) if t is cg.source), None)
            if pos is None:
                pos = len(self.grad_sources)
                self.grad_sources.append(cg.source)
            self._source_of.append(pos)

    # --- forward -----------------------------------------------------------
    def forward(self, q, k, v, attn_mask):
        """(o, lse or None, saved) enqueued on the current stream."""
        if self.copy[0] or self.copy[1] or self.copy[2]:
            q, k, v = (t.contiguous() if c else t for t, c in zip((q, k, v), self.copy))
        dev = q.device
        o = torch.empty_strided(self.o_shape, self.o_strides, dtype=self.dtype, device=dev)
        ba, raw = self.fwd_bindings.get()
        raw[1] = q.data_ptr()
        raw[_U64_PER_BINDING + 1] = k.data_ptr()
        raw[2 * _U64_PER_BINDING + 1] = v.data_ptr()
        i = 3
        held = None
        if self.operands:
            held = []
            for op in self.operands:
                t = op.value(attn_mask)
                held.append(t)
                raw[_slot(i)] = t.data_ptr()
                i += 1
        seeds = None
        if self.spec.dropout > 0:
            # seed and offset, 16 bytes apart (the plan's alignment for i64 scalars).
            seeds = torch.randint(0, 2 ** 62, (4,), dtype=torch.int64, device=dev)
            p = seeds.data_ptr()
            raw[_slot(i)] = p
            raw[_slot(i + 1)] = p + 16
            i += 2
        raw[_slot(i)] = o.data_ptr()
        lse = None
        if self.training:
            lse = torch.empty(self.lse_shape, dtype=torch.float32, device=dev)
            raw[_slot(i + 1)] = lse.data_ptr()
        if self.fwd_ws:
            ws = torch.empty(self.fwd_ws, dtype=torch.uint8, device=dev)
            R.run(self.fwd, ba.array, ba.count, dev, ws.data_ptr(), self.fwd_ws)
        else:
            R.run(self.fwd, ba.array, ba.count, dev, 0, 0)
        return o, lse, (seeds, held, (q, k, v))

    # --- backward ----------------------------------------------------------
    def backward_executable(self, d_o):
        key = (tuple(d_o.shape), tuple(d_o.stride()))
        entry = self.bwd.get(key)
        if entry is None:
            with self._bwd_lock:
                entry = self.bwd.get(key)
                if entry is None:
                    entry = self._compile_backward(d_o)
                    self.bwd[key] = entry
        return entry

    def _compile_backward(self, d_o):
        spec = self.spec
        do_spec = G.TensorSpec(d_o.shape, spec.o.dtype, d_o.stride())
        grads = [G.TensorSpec(t.shape, t.dtype, R.dense_like(t.shape, t.strides)) for t in (spec.q, spec.k, spec.v)]
        text = spec.backward_text(do_spec, *grads)
        exe = compile_cached(text, self.options, str(self.device))
        items = [("q", 0, spec.q.dtype, spec.q.shape, spec.q.strides),
                 ("k", 0, spec.k.dtype, spec.k.shape, spec.k.strides),
                 ("v", 0, spec.v.dtype, spec.v.shape, spec.v.strides),
                 ("o", 0, spec.o.dtype, spec.o.shape, spec.o.strides),
                 ("do", 0, do_spec.dtype, do_spec.shape, do_spec.strides),
                 ("lse", 0, "f32", spec.lse.shape, spec.lse.strides)]
        items += [(op.name, 0, op.spec.dtype, op.spec.shape, op.spec.strides) for op in self.operands]
        if spec.dropout > 0:
            items += [("seed", 0, "i64", (), ()), ("offset", 0, "i64", (), ())]
        items += [(n, 0, g.dtype, g.shape, g.strides) for n, g in zip(("dq", "dk", "dv"), grads)]
        cgrads = spec.capture_grad_specs()
        items += [("dc%d" % i, 0, g.dtype, g.shape, g.strides) for i, g in cgrads]
        return exe, exe.workspace_size, FastBindings(items), grads + [g for _, g in cgrads]

    def backward(self, q, k, v, o, d_o, lse, saved):
        seeds, held, _ = saved
        if d_o.dtype != o.dtype:
            d_o = d_o.to(o.dtype)
        if not R.is_valid_layout(d_o.shape, d_o.stride()):
            d_o = d_o.contiguous()  # e.g. an expanded gradient (stride 0) of out.sum()
        exe, ws_bytes, bindings, grads = self.backward_executable(d_o)
        dev = q.device
        outs = [torch.empty_strided(g.shape, g.strides, dtype=R.TG_TO_TORCH_DTYPE[g.dtype], device=dev)
                for g in grads]
        ba, raw = bindings.get()
        ptrs = [q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), d_o.data_ptr(), lse.data_ptr()]
        ptrs += [t.data_ptr() for t in (held or ())]
        if seeds is not None:
            ptrs += [seeds.data_ptr(), seeds.data_ptr() + 16]
        ptrs += [t.data_ptr() for t in outs]
        for i, p in enumerate(ptrs):
            raw[_slot(i)] = p
        if ws_bytes:
            ws = torch.empty(ws_bytes, dtype=torch.uint8, device=dev)
            R.run(exe, ba.array, ba.count, dev, ws.data_ptr(), ws_bytes)
        else:
            R.run(exe, ba.array, ba.count, dev, 0, 0)
        return outs[0], outs[1], outs[2], outs[3:]

    def input_grads(self, capture_grads):
        """(d attn_mask or None, [gradient of each grad_source]) from the
        backward's capture gradients (in grad_captures order)."""
        d_mask, d_sources = None, [None] * len(self.grad_sources)
        for cg, pos, g in zip(self.capture_grads, self._source_of, capture_grads):
            g = cg.to_source(g)
            if pos is None:
                d_mask = g
            else:
                d_sources[pos] = g if d_sources[pos] is None else d_sources[pos] + g
        return d_mask, d_sources


def warn_copy(which):
    STATS["layout_copies"] += 1
    warnings.warn("tgc: %s has a memory layout tg.strides cannot describe (a zero or overlapping stride); it is "
                  "copied with .contiguous() on every call" % which, stacklevel=4)
