"""torch.library registration: `torch.ops.tgc.attention_fwd` /
`attention_bwd` custom ops with fake (meta) implementations and autograd, so
that torch.compile(fullgraph=True) traces a tgc attention call as one op
instead of breaking the graph around ctypes calls. Needs
torch.library.custom_op (torch >= 2.4); `register()` returns False (and
`unavailable_reason()` says why) elsewhere.

What Dynamo cannot trace stays out of the traced region: the options and
callables become an integer config id when the graph is traced
(front.config_id, run by Dynamo as a constant), and the implementations look
the plan up from the real tensors at run time (front.Config.plan: the same
cache as eager calls, so a new shape compiles a new plan, also under dynamic
shapes). The fake implementations only compute output shapes and strides."""
import threading

import torch

from . import runtime as R

_lock = threading.Lock()
_registered = False


def unavailable_reason():
    if hasattr(torch.library, "custom_op"):
        return None
    return "torch.library.custom_op needs torch >= 2.4 (this is torch %s)" % torch.__version__


def _config(cid):
    from .front import CONFIGS
    return CONFIGS[cid]


def _fake_outputs(q, v, cfg):
    """Empty o, lse, seeds as the implementation returns them."""
    B, Hq, Sq, _ = q.shape
    o_shape = (B, Hq, Sq, v.shape[3])
    o = torch.empty_strided(o_shape, R.dense_like(tuple(q.shape), tuple(q.stride()), o_shape), dtype=q.dtype,
                            device=q.device)
    lse = (torch.empty((B, Hq, Sq, 1), dtype=torch.float32, device=q.device) if cfg.training
           else q.new_empty((0,), dtype=torch.float32))
    seeds = q.new_empty((4,) if cfg.dropout_p > 0 else (0,), dtype=torch.int64)
    return o, lse, seeds


def register():
    """Defines the ops once; True when they exist."""
    global _registered
    if _registered:
        return True
    if unavailable_reason():
        return False
    with _lock:
        if not _registered:
            _define()
            _registered = True
    return True


def _define():
    from typing import Optional

    @torch.library.custom_op("tgc::attention_fwd", mutates_args=())
    def attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, attn_mask: Optional[torch.Tensor],
                      cid: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cfg = _config(cid)
        plan = cfg.plan(q, k, v, attn_mask)
        o, lse, saved = plan.forward(q, k, v, attn_mask)
        seeds = saved[0] if saved[0] is not None else q.new_empty((0,), dtype=torch.int64)
        if lse is None:
            lse = q.new_empty((0,), dtype=torch.float32)
        return o, lse, seeds

    @attention_fwd.register_fake
    def _(q, k, v, attn_mask, cid):
        return _fake_outputs(q, v, _config(cid))

    @torch.library.custom_op("tgc::attention_bwd", mutates_args=())
    def attention_bwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, d_o: torch.Tensor,
                      lse: torch.Tensor, seeds: torch.Tensor, attn_mask: Optional[torch.Tensor],
                      cid: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        plan = _config(cid).plan(q, k, v, attn_mask)
        # The forward read copies of layouts tg.strides cannot describe; so does the backward.
        q, k, v = (t.contiguous() if c else t for t, c in zip((q, k, v), plan.copy))
        held = [op.value(attn_mask) for op in plan.operands]
        # config_id refuses gradients of attn_mask and captures: no capture gradients here.
        dq, dk, dv, _ = plan.backward(q, k, v, o, d_o, lse, (seeds if seeds.numel() else None, held, None))
        return dq, dk, dv

    @attention_bwd.register_fake
    def _(q, k, v, o, d_o, lse, seeds, attn_mask, cid):
        return tuple(torch.empty_strided(t.shape, R.dense_like(tuple(t.shape), tuple(t.stride())), dtype=t.dtype,
                                         device=t.device) for t in (q, k, v))

    def setup_context(ctx, inputs, output):
        q, k, v, attn_mask, cid = inputs
        o, lse, seeds = output
        ctx.save_for_backward(q, k, v, o, lse, seeds, attn_mask if attn_mask is not None else q.new_empty(0))
        ctx.has_mask = attn_mask is not None
        ctx.cid = cid

    def backward(ctx, d_o, d_lse, d_seeds):
        # A gradient of lse never arrives: config_id refuses return_lse with autograd.
        if d_o is None:
            return None, None, None, None, None
        q, k, v, o, lse, seeds, mask = ctx.saved_tensors
        dq, dk, dv = torch.ops.tgc.attention_bwd(q, k, v, o, d_o, lse, seeds, mask if ctx.has_mask else None,
                                                 ctx.cid)
        return dq, dk, dv, None, None

    attention_fwd.register_autograd(backward, setup_context=setup_context)
