"""The autograd.Function: forward and backward both run tgc executables
(tg.attention and tg.attention_grad graphs)."""
import torch


class AttentionFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, plan, q, k, v, attn_mask):
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
        if d_o is None:
            return None, None, None, None, None
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = ctx.plan.backward(q, k, v, o, d_o, lse, ctx.saved)
        return None, dq, dk, dv, None
