"""torch.library registration: `torch.ops.tgc.attention_fwd` /
`attention_bwd` custom ops with fake (meta) implementations and autograd, so
that torch.compile(fullgraph=True) traces a tgc attention call as one op
instead of breaking the graph around ctypes calls. Needs
torch.library.custom_op (torch >= 2.4); `register()` returns False (and
`unavailable_reason()` says why) elsewhere.

What Dynamo cannot trace stays out of the traced region: the options and
callables become an integer config id when the graph is traced
(front.config_id, run by Dynamo as a constant), and the implementations look
the plan up from the real tensors, scale and dropout_p at run time
(front.Config.plan: the same cache as eager calls, so a new shape compiles a
new plan, also under dynamic shapes). scale and dropout_p are float arguments
of the ops, not part of the config: under dynamic=True Dynamo may trace them
as symbolic floats. The fake implementations only compute output shapes and strides.

Gradients: the backward op returns one list, dq, dk, dv, then the gradient
of attn_mask when the config's mask requires grad, then one gradient per
learnable captured tensor (`sources`, tgc.torch.learnable); the autograd
formula hands them to the inputs. The schemas and that packing are plain
Python here (testable without torch.library)."""
import threading

import torch

from . import runtime as R

_lock = threading.Lock()
_registered = False

# `sources`: the learnable tensors the score_mod closes over (empty for every
# other call). The kernels read the captured views the plan holds, as eager
# calls do; the inputs give autograd the tensors to send gradients to.
FWD_SCHEMA = ("(Tensor q, Tensor k, Tensor v, Tensor? attn_mask, Tensor[] sources, int cid, float? scale, "
              "float dropout_p) -> (Tensor, Tensor, Tensor)")
BWD_SCHEMA = ("(Tensor q, Tensor k, Tensor v, Tensor o, Tensor d_o, Tensor lse, Tensor seeds, Tensor? attn_mask, "
              "Tensor[] sources, int cid, float? scale, float dropout_p) -> Tensor[]")


def unavailable_reason():
    if hasattr(torch.library, "custom_op"):
        return None
    return "torch.library.custom_op needs torch >= 2.4 (this is torch %s)" % torch.__version__


def _config(cid):
    from .front import CONFIGS
    return CONFIGS[cid]


def _fake_outputs(q, v, cfg, dropout_p):
    """Empty o, lse, seeds as the implementation returns them."""
    B, Hq, Sq, _ = q.shape
    o_shape = (B, Hq, Sq, v.shape[3])
    o = torch.empty_strided(o_shape, R.dense_like(tuple(q.shape), tuple(q.stride()), o_shape), dtype=q.dtype,
                            device=q.device)
    lse = (torch.empty((B, Hq, Sq, 1), dtype=torch.float32, device=q.device) if cfg.training
           else q.new_empty((0,), dtype=torch.float32))
    seeds = q.new_empty((4,) if dropout_p > 0 else (0,), dtype=torch.int64)
    return o, lse, seeds


def fake_grads(q, k, v, attn_mask, sources, mask_grad):
    """Empty gradients as the backward op returns them: dq, dk, dv laid out like
    the real ones (dense in q/k/v's memory order), the mask's and the sources'
    contiguous in their shapes and dtypes."""
    out = [torch.empty_strided(t.shape, R.dense_like(tuple(t.shape), tuple(t.stride())), dtype=t.dtype,
                               device=t.device) for t in (q, k, v)]
    if mask_grad:
        out.append(torch.empty(attn_mask.shape, dtype=attn_mask.dtype, device=attn_mask.device))
    out += [torch.empty(s.shape, dtype=s.dtype, device=s.device) for s in sources]
    return out


def pack_grads(dq, dk, dv, d_mask, d_sources, sources, mask_grad):
    """The backward op's list: dq, dk, dv, [d_mask], one per source. A source the
    region ended up not reading (d_sources[j] None) gets zeros; the rest are
    made contiguous (the layout fake_grads promises)."""
    out = [dq, dk, dv]
    if mask_grad:
        out.append(d_mask.contiguous())
    for g, s in zip(d_sources, sources):
        out.append(torch.zeros(s.shape, dtype=s.dtype, device=s.device) if g is None else g.contiguous())
    return out


def backward_list(cfg, plan, dq, dk, dv, dcaps):
    """The backward op's list for a learnable config from the plan's backward:
    the capture gradients become the gradients of attn_mask and of the
    config's sources (in the op's order, which need not be the plan's)."""
    from . import learnable
    d_mask, d_plan = plan.input_grads(dcaps)
    d_sources = [None] * len(cfg.sources)
    for g, j in zip(d_plan, learnable.positions(plan.grad_sources, cfg.sources)):
        d_sources[j] = g
    return pack_grads(dq, dk, dv, d_mask, d_sources, cfg.sources, cfg.mask_grad)


def unpack_grads(grads, mask_grad, n_sources):
    """The autograd formula's return from the backward op's list: one gradient
    per input of attention_fwd (q, k, v, attn_mask, sources, cid, scale,
    dropout_p)."""
    dq, dk, dv = grads[0], grads[1], grads[2]
    d_mask = grads[3] if mask_grad else None
    start = 4 if mask_grad else 3
    return dq, dk, dv, d_mask, list(grads[start:start + n_sources]), None, None, None


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
    def attention_fwd(q, k, v, attn_mask, sources, cid, scale, dropout_p):
        cfg = _config(cid)
        plan = cfg.plan(q, k, v, attn_mask, scale, dropout_p)
        if len(sources) != len(cfg.sources):
            raise RuntimeError("tgc::attention_fwd got %d learnable sources; config %d has %d"
                               % (len(sources), cid, len(cfg.sources)))
        o, lse, saved = plan.forward(q, k, v, attn_mask)
        seeds = saved[0] if saved[0] is not None else q.new_empty((0,), dtype=torch.int64)
        if lse is None:
            lse = q.new_empty((0,), dtype=torch.float32)
        return o, lse, seeds

    fwd = torch.library.custom_op("tgc::attention_fwd", attention_fwd, mutates_args=(), schema=FWD_SCHEMA)

    @fwd.register_fake
    def _(q, k, v, attn_mask, sources, cid, scale, dropout_p):
        return _fake_outputs(q, v, _config(cid), dropout_p)

    def attention_bwd(q, k, v, o, d_o, lse, seeds, attn_mask, sources, cid, scale, dropout_p):
        cfg = _config(cid)
        plan = cfg.plan(q, k, v, attn_mask, scale, dropout_p)
        # The forward read copies of layouts tg.strides cannot describe; so does the backward.
        q, k, v = (t.contiguous() if c else t for t, c in zip((q, k, v), plan.copy))
        held = [op.value(attn_mask) for op in plan.operands]
        dq, dk, dv, dcaps = plan.backward(q, k, v, o, d_o, lse, (seeds if seeds.numel() else None, held, None))
        if not cfg.learnable:
            return [dq, dk, dv]
        return backward_list(cfg, plan, dq, dk, dv, dcaps)

    bwd = torch.library.custom_op("tgc::attention_bwd", attention_bwd, mutates_args=(), schema=BWD_SCHEMA)

    @bwd.register_fake
    def _(q, k, v, o, d_o, lse, seeds, attn_mask, sources, cid, scale, dropout_p):
        return fake_grads(q, k, v, attn_mask, sources, _config(cid).mask_grad)

    def setup_context(ctx, inputs, output):
        q, k, v, attn_mask, sources, cid, scale, dropout_p = inputs
        o, lse, seeds = output
        ctx.save_for_backward(q, k, v, o, lse, seeds, attn_mask if attn_mask is not None else q.new_empty(0),
                              *sources)
        ctx.has_mask = attn_mask is not None
        ctx.cid = cid
        ctx.scale, ctx.dropout_p = scale, dropout_p

    def backward(ctx, d_o, d_lse, d_seeds):
        # A gradient of lse never arrives: config_id refuses return_lse with autograd.
        saved = ctx.saved_tensors
        q, k, v, o, lse, seeds, mask = saved[:7]
        sources = list(saved[7:])
        if d_o is None:
            return None, None, None, None, [None] * len(sources), None, None, None
        grads = torch.ops.tgc.attention_bwd(q, k, v, o, d_o, lse, seeds, mask if ctx.has_mask else None, sources,
                                            ctx.cid, ctx.scale, ctx.dropout_p)
        return unpack_grads(grads, _config(ctx.cid).mask_grad, len(sources))

    fwd.register_autograd(backward, setup_context=setup_context)

