"""torch.library registration: `torch.ops.tgc.attention_fwd` /
`attention_bwd` custom ops with fake (meta) implementations and autograd, so
that torch.compile traces a tgc attention call as one op instead of breaking
the graph around ctypes calls. Needs torch.library.custom_op (torch >= 2.4);
`register()` returns False (and `unavailable_reason()` says why) elsewhere.

A plan (one compiled configuration, docs/python.md) is passed to the ops by
its integer id; under torch.compile, tgc.torch.attention computes the id once
per traced call site (assume_constant_result) from the static shapes and
options, which torch.compile guards anyway."""
import threading

import torch

_PLANS_BY_ID = []
_IDS = {}
_lock = threading.Lock()
_registered = False
_reason = None


def plan_id(plan):
    with _lock:
        pid = _IDS.get(id(plan))
        if pid is None:
            pid = len(_PLANS_BY_ID)
            _PLANS_BY_ID.append(plan)
            _IDS[id(plan)] = pid
        return pid


def unavailable_reason():
    if hasattr(torch.library, "custom_op"):
        return None
    return "torch.library.custom_op needs torch >= 2.4 (this is torch %s)" % torch.__version__


def register():
    """Defines the ops once; True when they exist."""
    global _registered, _reason
    if _registered:
        return True
    _reason = unavailable_reason()
    if _reason:
        return False
    from typing import Optional

    @torch.library.custom_op("tgc::attention_fwd", mutates_args=())
    def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, attn_mask: Optional[torch.Tensor],
                      pid: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        plan = _PLANS_BY_ID[pid]
        o, lse, saved = plan.forward(q, k, v, attn_mask)
        seeds = saved[0] if saved[0] is not None else q.new_empty((0,), dtype=torch.int64)
        if lse is None:
            lse = q.new_empty((0,), dtype=torch.float32)
        return o, lse, seeds

    @attention_fwd.register_fake
    def _(q, k, v, attn_mask, pid):
        plan = _PLANS_BY_ID[pid]
        o = torch.empty_strided(plan.o_shape, plan.o_strides, dtype=plan.dtype, device=q.device)
        lse = (torch.empty(plan.lse_shape, dtype=torch.float32, device=q.device) if plan.training
               else q.new_empty((0,), dtype=torch.float32))
        seeds = q.new_empty((4,) if plan.spec.dropout > 0 else (0,), dtype=torch.int64)
        return o, lse, seeds

    @torch.library.custom_op("tgc::attention_bwd", mutates_args=())
    def attention_bwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, d_o: torch.Tensor,
                      lse: torch.Tensor, seeds: torch.Tensor, attn_mask: Optional[torch.Tensor],
                      pid: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        plan = _PLANS_BY_ID[pid]
        held = [op.value(attn_mask) for op in plan.operands]
        dq, dk, dv = plan.backward(q, k, v, o, d_o.contiguous() if not d_o.is_contiguous() else d_o, lse,
                                   (seeds if seeds.numel() else None, held, None))
        return dq, dk, dv

    @attention_bwd.register_fake
    def _(q, k, v, o, d_o, lse, seeds, attn_mask, pid):
        from . import runtime as R
        outs = []
        for t in (q, k, v):
            order = R.layout_order(tuple(t.shape), tuple(t.stride()))
            outs.append(torch.empty_strided(t.shape, R.dense_strides(tuple(t.shape), order), dtype=t.dtype,
                                            device=t.device))
        return tuple(outs)

    def setup_context(ctx, inputs, output):
        q, k, v, attn_mask, pid = inputs
        o, lse, seeds = output
        ctx.save_for_backward(q, k, v, o, lse, seeds, attn_mask if attn_mask is not None else q.new_empty(0))
        ctx.has_mask = attn_mask is not None
        ctx.pid = pid

    def backward(ctx, d_o, d_lse, d_seeds):
        q, k, v, o, lse, seeds, mask = ctx.saved_tensors
        dq, dk, dv = torch.ops.tgc.attention_bwd(q, k, v, o, d_o, lse, seeds, mask if ctx.has_mask else None,
                                                 ctx.pid)
        return dq, dk, dv, None, None

    attention_fwd.register_autograd(backward, setup_context=setup_context)
    _registered = True
    return True
