"""tgc.torch.attention: SDPA-compatible arguments plus FlexAttention-style
score_mod / mask_mod, compiled by tgc and cached per configuration."""
import math
import threading

import torch

from .. import expr as E
from .. import graph as G
from .. import region as RG
from .. import trace as T
from . import learnable
from . import runtime as R
from .capture_grad import CaptureGrad, refuse_expanded
from .plan import STATS, Plan, warn_copy

BACKENDS = ("auto", "cudnn", "nvrtc")
ATTN_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}

# Tests and the host-overhead benchmark run the front on CPU tensors with the C
# run stubbed; everyone else needs CUDA tensors.
REQUIRE_CUDA = True

MAX_PLANS = 4096
_PLANS = {}
_TRACES = {}
_LOCK = threading.Lock()


def clear_cache():
    """Forget every traced callable, plan and compiled executable."""
    from .plan import clear_executables
    with _LOCK:
        _PLANS.clear()
        _TRACES.clear()
    clear_executables()


def cache_info():
    return {"plans": len(_PLANS), "traces": len(_TRACES), **STATS}


class _MaskCapture:
    """attn_mask as a region capture: its rank-4 view."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.name = "attn_mask"
        self.axes = None


def _traced(fn, kind, fn_key):
    if fn is None:
        return None
    k = (kind, fn_key)
    t = _TRACES.get(k)
    if t is None:
        t = T.trace_score_mod(fn) if kind == "score_mod" else T.trace_mask_mod(fn)
        _TRACES[k] = t
    return t


def _mask_view(mask, target, dtype_name):
    """attn_mask as a rank-4 TensorSpec broadcasting to target [B,Hq,Sq,Skv]."""
    shape, strides = list(mask.shape), list(mask.stride())
    if len(shape) > 4:
        raise ValueError("attn_mask has %d dims; expected at most 4 broadcasting to [B, Hq, Sq, Skv] = %s"
                         % (len(shape), list(target)))
    shape = [1] * (4 - len(shape)) + shape
    strides = [1] * (4 - len(strides)) + strides
    for d in range(4):
        if strides[d] == 0:
            shape[d] = 1  # an expanded dim reads one element: a size-1 view of it is the same data
        if shape[d] not in (1, target[d]):
            raise ValueError("attn_mask of shape %s does not broadcast to the attention scores [B, Hq, Sq, Skv] = "
                             "%s (dim %d: %d)" % (list(mask.shape), list(target), d, shape[d]))
    return G.TensorSpec(shape, dtype_name, [s if s > 0 else 1 for s in strides])


def _capture_spec(cap, target, device, need_grad):
    """A trace capture as a rank-4 TensorSpec over its view (no copy);
    need_grad: the backward returns its gradient."""
    view = cap.view
    if view.device != device:
        raise ValueError("the callable closes over %s on %s; move it to %s (the attention's device)"
                         % (cap.describe(), view.device, device))
    if need_grad and cap.source.device != device:
        raise ValueError("the callable closes over %s, which requires grad, on %s; move it to %s"
                         % (cap.describe(), cap.source.device, device))
    if need_grad and not cap.table:
        refuse_expanded(view.shape, view.stride(), cap.describe())
    if cap.table:
        # Read whole by tg.gather, in place: any layout with positive strides.
        if any(st <= 0 and sz > 1 for sz, st in zip(view.shape, view.stride())):
            raise ValueError("%s has a zero stride (an expand()ed view); pass a materialised tensor "
                             "(.contiguous())" % cap.describe())
        return G.TensorSpec(view.shape, cap.dtype, view.stride(), table=True)
    shape, strides = [1, 1, 1, 1], [1, 1, 1, 1]
    names = ("b", "h", "q_idx", "kv_idx")
    for dim, axis in enumerate(cap.axes):
        a = T.AXIS_OF[axis]
        size, stride = view.shape[dim], view.stride()[dim]
        if size != 1 and size < target[a]:
            raise ValueError("%s: dim %d (indexed by %s) has size %d but %s ranges over %d" % (
                cap.describe(), dim, axis, size, names[a], target[a]))
        if size != 1:
            shape[a], strides[a] = target[a], stride if stride > 0 else 1
            if stride == 0:
                shape[a] = 1
    return G.TensorSpec(shape, cap.dtype, strides)


def _tensor_spec(t, name):
    return G.TensorSpec(t.shape, R.tg_dtype(t.dtype, name), t.stride())


def _build_plan(q, k, v, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod, mask_mod, training,
                return_lse, backend, sm_key, mm_key, keep, grad, grads=None):
    spec, operands, copies = build_spec(q, k, v, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod,
                                        mask_mod, training, backend, sm_key, mm_key, REQUIRE_CUDA, grad,
                                        None if grads is None else grads[0])
    STATS["plans"] += 1
    return Plan(spec, q.device, operands, backend, keep, copies, return_lse)


def build_spec(q, k, v, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod, mask_mod, training, backend,
               sm_key=None, mm_key=None, require_cuda=True, grad=False, mask_grad=None):
    """Checks the arguments and returns (AttentionSpec, operands, copies).
    grad: autograd records the call, so attn_mask and the score_mod's captured
    tensors that require grad get gradients (Operand.grad). mask_grad: whether
    attn_mask's gradient is wanted (default: attn_mask.requires_grad; the
    custom op passes the flag Dynamo saw, its tensors may not carry it)."""
    if sm_key is None:
        sm_key, _ = T.callable_key(score_mod)
    if mm_key is None:
        mm_key, _ = T.callable_key(mask_mod)
    # --- argument checks (only on a cache miss: the key fixes all of this) ---
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.dim() != 4:
            raise ValueError("%s must be 4-D [B, H, S, D]; got shape %s" % (name, list(t.shape)))
        if require_cuda and t.device.type != "cuda":
            raise ValueError("tgc runs on CUDA tensors; %s is on %s" % (name, t.device))
    if not (q.device == k.device == v.device):
        raise ValueError("query, key and value must be on one device; got %s, %s, %s" % (q.device, k.device, v.device))
    if q.dtype not in ATTN_DTYPES or k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError("query, key and value must share one dtype of bfloat16, float16 or float32; got %s, %s, %s"
                        % (q.dtype, k.dtype, v.dtype))
    B, Hq, Sq, D = q.shape
    Bk, Hkv, Skv, Dk = k.shape
    Bv, Hv, Sv, Dv = v.shape
    if not (B == Bk == Bv):
        raise ValueError("batch sizes differ: query %d, key %d, value %d" % (B, Bk, Bv))
    if Dk != D:
        raise ValueError("query and key head dims differ: %d vs %d" % (D, Dk))
    if Sv != Skv or Hv != Hkv:
        raise ValueError("key %s and value %s must have the same heads and sequence length"
                         % (list(k.shape), list(v.shape)))
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError("query has %d heads but key/value have %d; pass enable_gqa=True for grouped-query "
                             "attention (as in torch SDPA)" % (Hq, Hkv))
        if Hq % Hkv:
            raise ValueError("query heads (%d) must be a multiple of key/value heads (%d)" % (Hq, Hkv))
    if not (0.0 <= dropout_p < 1.0):
        raise ValueError("dropout_p must be in [0, 1); got %r" % dropout_p)
    if attn_mask is not None and is_causal:
        raise ValueError("attn_mask and is_causal=True cannot both be given (as in torch SDPA); put the causal "
                         "mask into attn_mask or use mask_mod")
    if backend not in BACKENDS:
        raise ValueError("backend must be one of %s; got %r" % (", ".join(BACKENDS), backend))
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    elif not math.isfinite(float(scale)):
        raise ValueError("scale must be finite; got %r" % scale)
    for fn, name in ((score_mod, "score_mod"), (mask_mod, "mask_mod")):
        if fn is not None and not callable(fn):
            raise TypeError("%s must be callable, got %s" % (name, type(fn).__name__))

    target = (B, Hq, Sq, Skv)
    mask_cap, mask_spec = None, None
    if attn_mask is not None:
        if not isinstance(attn_mask, torch.Tensor):
            raise TypeError("attn_mask must be a tensor, got %s" % type(attn_mask).__name__)
        if attn_mask.device != q.device:
            raise ValueError("attn_mask is on %s but query is on %s" % (attn_mask.device, q.device))
        if attn_mask.dtype != torch.bool and not attn_mask.is_floating_point():
            raise TypeError("attn_mask must be bool (True keeps a score) or floating point (added to the scores); "
                            "got %s" % attn_mask.dtype)
        if mask_grad is None:
            mask_grad = attn_mask.requires_grad  # only a float mask can require grad
        if grad and mask_grad:
            refuse_expanded(attn_mask.shape, attn_mask.stride(), "attn_mask")
        mdt = R.tg_dtype(attn_mask.dtype, "attn_mask")
        mask_cap = _MaskCapture(mdt)
        mask_spec = _mask_view(attn_mask, target, mdt)

    score_trace = _traced(score_mod, "score_mod", sm_key)
    mask_trace = _traced(mask_mod, "mask_mod", mm_key)
    reg = RG.assemble(score_trace, mask_trace, mask_cap, attn_mask is not None and attn_mask.dtype == torch.bool,
                      (B, Sq, Skv))
    lifted = reg.lifted
    causal = lifted.causal
    if is_causal:
        if causal == "none" and lifted.window_right is None:
            causal = "top_left"
        elif causal == "none":
            # is_causal intersected with a lifted two-sided window
            causal, lifted.window_right = "top_left", None
        elif causal == "bottom_right":
            raise ValueError("is_causal=True (top-left) together with a bottom-right causal mask_mod")

    from .plan import Operand
    operands = []
    # Gradients flow from the score only: a mask_mod's captures get none.
    score_caps = set(id(c) for c in score_trace.captures) if score_trace is not None else set()
    for i, cap in enumerate(reg.captures):
        if isinstance(cap, _MaskCapture):
            op = Operand("c%d" % i, mask_spec, from_mask=True)
            if grad and mask_grad:
                op.grad = CaptureGrad(i, attn_mask, from_mask=True)
        else:
            need = grad and id(cap) in score_caps and cap.source.requires_grad
            op = Operand("c%d" % i, _capture_spec(cap, target, q.device, need), cap.view)
            if need:
                op.grad = CaptureGrad(i, cap.source, axes=cap.axes, plain=cap.plain)
        operands.append(op)
    seq = {}
    for side, cap in (("seq_len_q", reg.seq_len_q), ("seq_len_kv", reg.seq_len_kv)):
        if cap is None:
            continue
        if cap.view.device != q.device:
            raise ValueError("the mask_mod's length tensor %s is on %s; move it to %s"
                             % (cap.describe(), cap.view.device, q.device))
        to32 = cap.view.dtype != torch.int32
        strides = (1,) if to32 else tuple(cap.view.stride())
        seq[side] = G.TensorSpec((B,), "i32", strides)
        operands.append(Operand(side, seq[side], cap.view, to_int32=to32))

    copies = []
    specs = []
    for t, name in ((q, "query"), (k, "key"), (v, "value")):
        ok = R.is_valid_layout(t.shape, t.stride())
        copies.append(not ok)
        if not ok:
            warn_copy(name)
            specs.append(G.TensorSpec(t.shape, ATTN_DTYPES[t.dtype]))
        else:
            specs.append(_tensor_spec(t, name))
    # The output follows query's memory order ([B,S,H,D] stays [B,S,H,D]).
    o_shape = (B, Hq, Sq, Dv)
    o_spec = G.TensorSpec(o_shape, ATTN_DTYPES[q.dtype], R.dense_like(q.shape, q.stride(), o_shape))
    spec = G.AttentionSpec(specs[0], specs[1], specs[2], o_spec, scale, reg.root,
                           [op.spec for op in operands if op.name.startswith("c")],
                           seq.get("seq_len_q"), seq.get("seq_len_kv"), causal, lifted.window_left,
                           lifted.window_right, dropout_p, training,
                           [op.grad.index for op in operands if op.grad is not None])
    return spec, operands, tuple(copies)


def graphs(query, key, value, *, attn_mask=None, is_causal=False, scale=None, dropout_p=0.0, enable_gqa=False,
           score_mod=None, mask_mod=None, training=True, grad_out=None):
    """The tg graph text tgc compiles for these arguments (any device, CUDA not
    needed): {"forward": ..., "backward": ..., "bindings": [...]}. grad_out gives
    the backward's gradient layout (default: the output's). With training,
    the backward also returns the gradients of attn_mask and of captured
    tensors that require grad (results "dc<i>", graph["operands"][i].grad)."""
    spec, operands, _ = build_spec(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod,
                                   mask_mod, training, "auto", require_cuda=False, grad=training)
    out = {"forward": spec.forward_text(), "spec": spec, "operands": operands}
    if training:
        d_o = spec.o if grad_out is None else G.TensorSpec(grad_out.shape, spec.o.dtype, grad_out.stride())
        grads = [G.TensorSpec(t.shape, t.dtype, R.dense_like(t.shape, t.strides)) for t in (spec.q, spec.k, spec.v)]
        out["backward"] = spec.backward_text(d_o, *grads)
    return out


def _compiling():
    c = getattr(torch, "compiler", None)
    return c is not None and hasattr(c, "is_compiling") and c.is_compiling()


def grad_key(score_mod, sm_key, attn_mask):
    """Which of attn_mask and the score_mod's captured tensors require grad: part
    of the plan key when autograd records the call (freezing a learnable bias
    changes the backward graph)."""
    mask = attn_mask is not None and isinstance(attn_mask, torch.Tensor) and attn_mask.requires_grad
    if score_mod is None or not callable(score_mod):  # (build_spec says what is wrong with it)
        return (mask,)
    t = _TRACES.get(("score_mod", sm_key)) or _traced(score_mod, "score_mod", sm_key)
    if not t.captures:
        return (mask,)
    return (mask,) + tuple([c.source.requires_grad for c in t.captures])


def _plan(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod, mask_mod, training,
          return_lse, backend, sm_key, mm_key, keep, grad=False, grads=None):
    """The cached Plan for these tensors and options (built on a miss); grad:
    autograd records the call; grads: grad_key's flags (None without grad)."""
    mask_meta = None if attn_mask is None else (
        tuple(attn_mask.shape), attn_mask.stride(), attn_mask.dtype, attn_mask.device)
    if not grad:
        grads = None
    elif grads is None:
        grads = grad_key(score_mod, sm_key, attn_mask)
    k = (query.shape, key.shape, value.shape, query.stride(), key.stride(), value.stride(), query.dtype,
         key.dtype, value.dtype, query.device, mask_meta, is_causal, scale, dropout_p, enable_gqa, sm_key, mm_key,
         training, backend, grads)
    plan = _PLANS.get(k)
    if plan is None:
        with _LOCK:
            plan = _PLANS.get(k)
            if plan is None:
                if len(_PLANS) >= MAX_PLANS:
                    # e.g. a callable closing over a new tensor each step: keep memory bounded
                    # (executables stay cached by graph text, so nothing recompiles).
                    _PLANS.clear()
                    _TRACES.clear()
                plan = _build_plan(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod,
                                   mask_mod, training, return_lse, backend, sm_key, mm_key, keep, grad, grads)
                _PLANS[k] = plan
    return plan


class Config:
    """What a torch.compile'd call site fixes (everything but the tensors): the
    custom ops get it by id and look their plan up at run time. A config with
    learnable tensors (`learnable`: a float attn_mask that requires grad, or
    `sources`, the score_mod's captured tensors that require grad) looks up
    the plan an eager call with those tensors gets (grad_key's flags `grads`),
    whose backward returns their gradients."""
    __slots__ = ("score_mod", "mask_mod", "is_causal", "enable_gqa", "training", "return_lse", "backend", "sm_key",
                 "mm_key", "keep", "learnable", "grads", "mask_grad", "sources")

    def __init__(self, **kw):
        self.learnable, self.grads, self.mask_grad, self.sources = False, None, False, ()
        for name, value in kw.items():
            setattr(self, name, value)

    def plan(self, query, key, value, attn_mask, scale, dropout_p):
        """The plan for these tensors and the call's scale and dropout_p (the
        op's arguments: under dynamic shapes Dynamo may make them symbolic, so
        they are not part of the config)."""
        return _plan(query, key, value, attn_mask, self.is_causal, scale, dropout_p, self.enable_gqa,
                     self.score_mod, self.mask_mod, self.training, self.return_lse, self.backend, self.sm_key,
                     self.mm_key, self.keep, self.learnable, self.grads)


CONFIGS = []
_CONFIG_IDS = {}


def _assume_constant(fn):
    """torch.compiler.assume_constant_result(fn): Dynamo runs fn when it traces a
    call and keeps the result as a constant, so the callables are inspected and
    traced by tgc, never by Dynamo. That function only sets this attribute; set
    here, it spares importing torch._dynamo (about a second) in processes that
    never compile (test_front checks the attribute on the installed torch)."""
    fn._dynamo_marked_constant = True
    return fn


def compiled_learnable(score_mod, grad, grad_enabled, mask_grad):
    """What a compiled call differentiates besides q, k and v: (grad, sources,
    grads). `grad`: autograd records the call (also when only a captured tensor
    requires grad); `sources`: the score_mod's captured tensors that require
    grad (tgc.torch.learnable.select); `grads`: the plan key's flags
    (grad_key's), None when nothing learnable is in the call."""
    trace = None
    sources = []
    if grad_enabled and score_mod is not None and callable(score_mod):
        trace = T.trace_score_mod(score_mod)
        sources = learnable.select(trace.captures)
    grad = bool(grad or (grad_enabled and sources))
    if not grad or not (mask_grad or sources):
        return grad, [], None
    flags = tuple([c.source.requires_grad for c in trace.captures]) if trace is not None and trace.captures else ()
    return grad, sources, (bool(mask_grad),) + flags


@_assume_constant
def config_id(score_mod, mask_mod, is_causal, enable_gqa, grad, return_lse, backend, mask_grad, grad_enabled=False):
    """The id of a Config (the same id for the same options and callables);
    scale and dropout_p are not among them: they are the op's own float
    arguments, which Dynamo may trace as symbolic values (dynamic=True makes
    floats with a source, such as a default argument or a module attribute,
    SymFloats), and a symbolic value cannot be an argument of this function;
    `grad`: whether autograd records the call for q, k, v or attn_mask;
    `mask_grad`: whether attn_mask requires grad (inside the compiled graph the
    op cannot see it); `grad_enabled`: torch.is_grad_enabled() (a captured
    tensor that requires grad needs a gradient even when q, k and v do not)."""
    from . import ops
    if not ops.register():
        raise RuntimeError("tgc under torch.compile needs the torch.library ops: " + ops.unavailable_reason())
    grad, sources, grads = compiled_learnable(score_mod, grad, grad_enabled, mask_grad)
    training = bool(grad or return_lse)
    if return_lse and grad:
        raise NotImplementedError(
            "return_lse=True while gradients are recorded, under torch.compile: tg.attention_grad takes no gradient "
            "of the log-sum-exp, and inside a compiled graph tgc cannot tell whether the loss uses it; compute the "
            "log-sum-exp under torch.no_grad() or outside torch.compile")
    sm_key, sm_keep = T.callable_key(score_mod)
    mm_key, mm_keep = T.callable_key(mask_mod)
    k = (sm_key, mm_key, bool(is_causal), bool(enable_gqa), training, bool(return_lse), backend, grads)
    with _LOCK:
        cid = _CONFIG_IDS.get(k)
        if cid is None:
            cid = len(CONFIGS)
            CONFIGS.append(Config(score_mod=score_mod, mask_mod=mask_mod, is_causal=is_causal,
                                  enable_gqa=enable_gqa, training=training,
                                  return_lse=return_lse, backend=backend, sm_key=sm_key, mm_key=mm_key,
                                  keep=(sm_keep, mm_keep), learnable=grads is not None, grads=grads,
                                  mask_grad=bool(grads is not None and grads[0]), sources=tuple(sources)))
            learnable.store(cid, sources)
            _CONFIG_IDS[k] = cid
    return cid


@_assume_constant
def source_count(cid):
    """How many learnable captured tensors config `cid` passes to the op."""
    return len(CONFIGS[cid].sources)


def _compiled_attention(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod, mask_mod,
                        return_lse, backend):
    """Inside torch.compile: what Dynamo traces. Everything it cannot (callable
    keys, tracing, the plan cache, ctypes) happens in config_id at trace time or
    in the custom op's implementation at run time (tgc.torch.ops). Learnable
    captured tensors are read back from tgc.torch.learnable, where config_id
    put them, so that Dynamo makes them graph inputs of the op."""
    squeeze = query.dim() == 3 and key.dim() == 3 and value.dim() == 3
    if squeeze:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    grad_enabled = torch.is_grad_enabled()
    mask_grad = attn_mask is not None and attn_mask.requires_grad
    grad = grad_enabled and (query.requires_grad or key.requires_grad or value.requires_grad or mask_grad)
    training = grad or return_lse
    cid = config_id(score_mod, mask_mod, is_causal, enable_gqa, grad, return_lse, backend, mask_grad, grad_enabled)
    sources = []
    for j in range(source_count(cid)):
        sources.append(getattr(learnable, learnable.attribute(cid, j)))
    out, lse, _ = torch.ops.tgc.attention_fwd(query, key, value, attn_mask, sources, cid, scale, dropout_p)
    if squeeze:
        out = out.squeeze(0)
        lse = lse.squeeze(0) if training else lse
    if return_lse:
        return out, lse.squeeze(-1)
    return out


def attention(query, key, value, *, attn_mask=None, is_causal=False, scale=None, dropout_p=0.0, enable_gqa=False,
              score_mod=None, mask_mod=None, return_lse=False, backend="auto"):
    """Fused attention compiled by tgc (docs/python.md).

    query [B, Hq, Sq, D], key [B, Hkv, Skv, D], value [B, Hkv, Skv, Dv] CUDA tensors
    (bf16, f16 or f32; any strides tg.strides can describe, read in place).
    attn_mask, is_causal, scale, dropout_p and enable_gqa are torch SDPA's;
    score_mod(score, b, h, q_idx, kv_idx) and mask_mod(b, h, q_idx, kv_idx) are
    FlexAttention's (traced once into the fused kernel). Returns the output
    [B, Hq, Sq, Dv] (in query's memory order), and with return_lse also the
    log-sum-exp [B, Hq, Sq] (float32, natural log). Differentiable in query, key
    and value, and in a float attn_mask and the score_mod's captured tensors
    that require grad (a learnable bias or relative-position table)."""
    if mask_mod is not None and hasattr(mask_mod, "mask_mod") and not hasattr(mask_mod, "__code__"):
        mask_mod = mask_mod.mask_mod  # a FlexAttention BlockMask
    if _compiling():
        return _compiled_attention(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod,
                                   mask_mod, return_lse, backend)
    squeeze = False
    if isinstance(query, torch.Tensor) and query.dim() == 3 and key.dim() == 3 and value.dim() == 3:
        query, key, value, squeeze = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0), True
    sm_key, sm_keep = T.callable_key(score_mod)
    mm_key, mm_keep = T.callable_key(mask_mod)
    grad, grads = False, None
    if torch.is_grad_enabled():
        # A learnable bias needs the backward even when q, k and v are frozen.
        grad = query.requires_grad or key.requires_grad or value.requires_grad
        grads = grad_key(score_mod, sm_key, attn_mask)
        grad = grad or any(grads)
    training = grad or return_lse
    plan = _plan(query, key, value, attn_mask, is_causal, scale, dropout_p, enable_gqa, score_mod, mask_mod, training,
                 return_lse, backend, sm_key, mm_key, (sm_keep, mm_keep), grad, grads)
    if grad:
        from .function import AttentionFunction
        out, lse = AttentionFunction.apply(plan, query, key, value, attn_mask, *plan.grad_sources)
    else:
        out, lse, _ = plan.forward(query, key, value, attn_mask)
    if squeeze:
        out = out.squeeze(0)
        lse = lse.squeeze(0) if lse is not None else None
    if return_lse:
        return out, lse.squeeze(-1)
    return out
