"""The autograd.Function: forward and backward both run tgc executables
(tg.attention and tg.attention_grad graphs). Its inputs are q, k, v, attn_mask
and the captured tensors whose gradients the plan's backward returns
(plan.grad_sources: a learnable bias or table the score_mod closes over)."""
import torch


class AttentionFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, plan, q, k, v, attn_mask, *sources):
        o, lse, saved = plan.forward(q, k, v, attn_mask)
        ctx.plan = plan
        ctx.saved = saved
        qc, kc, vc = saved[2]
        ctx.save_for_backward(qc, kc, vc, o, lse)
        ctx.set_materialize_grads(False)
        return o, lse

    @staticmethod
    def backward(ctx, d_o, d_lse):
        if d_lse is not None:
            raise NotImplementedError("gradient through the log-sum-exp returned by return_lse=True: "
                                      "tg.attention_grad takes the gradient of the output only")
        n = len(ctx.plan.grad_sources)
        if d_o is None:
            return (None,) * (5 + n)
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv, dcaps = ctx.plan.backward(q, k, v, o, d_o, lse, ctx.saved)
        d_mask, d_sources = ctx.plan.input_grads(dcaps)
        return (None, dq, dk, dv, d_mask) + tuple(d_sources)
