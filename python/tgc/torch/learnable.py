"""Learnable captured tensors under torch.compile: the tensors a score_mod
closes over that require grad (a bias, a relative-position table), which the
custom ops take as a `Tensor[] sources` input so that autograd gives them
their gradients.

Dynamo can only hand a tensor to an op when it can name where the tensor
comes from (a source it guards and loads again on every call); the closed-over
tensors are found by tgc's tracer, not by Dynamo. So front.config_id, which
Dynamo runs as a constant, stores each learnable tensor as an attribute of
this module (`c<cid>_<j>`), and the traced code reads it back with getattr: to
Dynamo it is a module global, i.e. a graph input (guarded on its shape,
dtype and requires_grad) whose gradient accumulates as for any global tensor.
The attributes keep the tensors alive as the config's callables already do."""
import sys

_MODULE = sys.modules[__name__]


def attribute(cid, j):
    return "c%d_%d" % (cid, j)


def select(captures, describe_hint=None):
    """The tensors of `captures` (a score_mod trace's) that require grad, each
    once, in capture order: the op's sources. Refuses a non-leaf one: under
    torch.compile the tensor is read back as a graph input, so the graph that
    made a view of a parameter (`self.table.t()` inside the score_mod) would be
    a stale one; closing over the parameter itself works."""
    out = []
    for cap in captures:
        src = cap.source
        if not src.requires_grad or any(t is src for t in out):
            continue
        if not src.is_leaf:
            raise NotImplementedError(
                "the captured tensor %s requires grad but is not a leaf (it was computed from a tensor that "
                "requires grad, e.g. a view made inside the score_mod); under torch.compile a learnable capture "
                "must be the tensor itself (an nn.Parameter or a leaf that requires grad): index the parameter "
                "directly in the score_mod" % cap.describe())
        out.append(src)
    return out


def store(cid, sources):
    for j, t in enumerate(sources):
        setattr(_MODULE, attribute(cid, j), t)


def positions(plan_sources, sources):
    """For each of the plan's grad_sources, its index among the op's sources
    (both are the config's tensors, so identity decides)."""
    pos = []
    for t in plan_sources:
        j = next((i for i, s in enumerate(sources) if s is t), None)
        if j is None:
            raise RuntimeError("tgc: the plan's learnable capture of shape %s is not among the op's %d sources "
                               "(the callable's tensors changed since the graph was traced)"
                               % (list(t.shape), len(sources)))
        pos.append(j)
    return pos
