"""Gradients of captured tensors: a learnable bias or relative-position table a
score_mod closes over, or a float attn_mask that requires grad. The backward
graph lists them in tg.attention_grad's grad_captures and returns each one's
gradient with the bound capture's shape (summed over its broadcast dims,
docs/ops.md); this module turns that into the gradient of the tensor the user
passed, which is what autograd wants."""
import torch

from .. import trace as T


def refuse_expanded(shape, strides, what):
    """A broadcast made with expand() (stride 0, size > 1) is read as one
    element, so the backward can only give the sum over that dim, while
    autograd wants one gradient per element of the expanded view."""
    for d, (size, stride) in enumerate(zip(shape, strides)):
        if size > 1 and stride == 0:
            raise ValueError(
                "%s requires grad and has an expand()ed dim %d (stride 0): tgc returns a captured tensor's gradient "
                "summed over the dims it broadcasts, which is the gradient of the tensor before expand(); pass that "
                "tensor (size 1 in dim %d, broadcasting is implicit) or a materialised one (.contiguous())"
                % (what, d, d))


class CaptureGrad:
    """Capture `index` (graph order) whose gradient autograd needs. `source`:
    the tensor it reads (an autograd input); `from_mask`: it is attn_mask."""

    def __init__(self, index, source, from_mask=False, axes=None, plain=None):
        self.index, self.source, self.from_mask = index, source, from_mask
        self.shape = tuple(source.shape)
        self.axes, self.plain = axes, plain  # rank-4 score_mod captures: view = source[plain], dims by axes

    def to_source(self, g):
        """The gradient of `source` from the backward's gradient g of the bound capture."""
        if self.from_mask:
            return g.reshape(self.shape)  # rank 4 with leading 1s; every other dim is the mask's
        if self.axes is None:
            return g  # a table: bound whole
        # g is [B?, H?, Sq?, Skv?] with size 1 on axes the capture does not index:
        # reorder to the view's dims, then place the view inside the source.
        order = [T.AXIS_OF[a] for a in self.axes]
        rest = [d for d in range(4) if d not in order]
        view_grad = g.permute(order + rest).reshape([g.shape[d] for d in order])
        if view_grad.shape == self.shape:
            return view_grad
        # Integer indices (bias[0, h, q_idx, kv_idx]) or a view longer than the
        # scores (a [H, 512, 512] bias for S = 256): the rest gets no gradient.
        full = torch.zeros(self.shape, dtype=g.dtype, device=g.device)
        index, j = [], 0
        for p in self.plain:
            if isinstance(p, int):
                index.append(p)
            else:
                index.append(slice(0, view_grad.shape[j]))
                j += 1
        full[tuple(index)] = view_grad
        return full
