"""The chain rule through a score region: the `score_grad` region of
tg.attention_grad (docs/ops.md). Given the region's result r(score, ...) and
the gradient dz of r, builds the expression of d(loss)/d(score) =
dz * dr/dscore by reverse accumulation over the expression DAG. An additive
region (bias, ALiBi, masks) gives dz itself, printed as the empty
(identity) region."""
from . import expr as E

SCORE_KEY = ("arg", "f32", "score")


def _add(acc, key, value):
    acc[key] = value if key not in acc else E.binary("add", acc[key], value)


def score_gradient(root, dz):
    """d/dscore of root, given its adjoint dz (a node)."""
    memo = {}
    on_path = lambda n: E.depends_on(n, SCORE_KEY, memo)  # noqa: E731
    if not on_path(root):
        return E.const(0.0, "f32")
    # Topological order (each node after its operands), restricted to the path.
    order, seen = [], set()

    def visit(n):
        k = n.key()
        if k in seen or not on_path(n):
            return
        seen.add(k)
        for a in n.args:
            visit(a)
        order.append(n)

    visit(root)
    adj = {root.key(): dz}
    zero = E.const(0.0, "f32")
    for n in reversed(order):
        g = adj.get(n.key())
        if g is None or n.op == "arg":
            continue
        op, args = n.op, n.args
        contrib = []  # (operand, gradient)
        if op == "add":
            contrib = [(args[0], g), (args[1], g)]
        elif op == "sub":
            contrib = [(args[0], g), (args[1], E.unary("neg", g))]
        elif op == "mul":
            contrib = [(args[0], E.binary("mul", g, args[1])), (args[1], E.binary("mul", g, args[0]))]
        elif op == "div":
            contrib = [(args[0], E.binary("div", g, args[1])),
                       (args[1], E.unary("neg", E.binary("div", E.binary("mul", g, n), args[1])))]
        elif op == "neg":
            contrib = [(args[0], E.unary("neg", g))]
        elif op == "exp":
            contrib = [(args[0], E.binary("mul", g, n))]
        elif op == "log":
            contrib = [(args[0], E.binary("div", g, args[0]))]
        elif op == "tanh":
            one = E.const(1.0, "f32")
            contrib = [(args[0], E.binary("mul", g, E.binary("sub", one, E.binary("mul", n, n))))]
        elif op == "sigmoid":
            one = E.const(1.0, "f32")
            contrib = [(args[0], E.binary("mul", g, E.binary("mul", n, E.binary("sub", one, n))))]
        elif op == "sqrt":
            contrib = [(args[0], E.binary("div", E.binary("mul", g, E.const(0.5, "f32")), n))]
        elif op == "rsqrt":
            contrib = [(args[0], E.binary("mul", g, E.binary("div", E.binary("mul", n, E.const(-0.5, "f32")),
                                                              args[0])))]
        elif op == "recip":
            contrib = [(args[0], E.unary("neg", E.binary("mul", g, E.binary("mul", n, n))))]
        elif op == "pow":
            x, y = args
            one = E.const(1.0, "f32")
            contrib = [(x, E.binary("mul", g, E.binary("mul", y, E.binary("pow", x, E.binary("sub", y, one))))),
                       (y, E.binary("mul", g, E.binary("mul", n, E.unary("log", x))))]
        elif op == "abs":
            x = args[0]
            pos = E.cmp("gt", x, E.const(0.0, "f32"))
            neg = E.cmp("lt", x, E.const(0.0, "f32"))
            contrib = [(x, E.select(neg, E.unary("neg", g), E.select(pos, g, zero)))]
        elif op in ("max", "min"):
            x, y = args
            first = E.cmp("ge" if op == "max" else "le", x, y)
            contrib = [(x, E.select(first, g, zero)), (y, E.select(first, zero, g))]
        elif op == "select":
            c, x, y = args
            contrib = [(x, E.select(c, g, zero)), (y, E.select(c, zero, g))]
        elif op == "cast":
            src = args[0]
            if E.is_float(src.type):
                contrib = [(src, E.cast(g, src.type) if src.type != "f32" else g)]
        # cmp, and/or/not, capture, const: no gradient flows through
        for operand, grad in contrib:
            if on_path(operand) and E.is_float(operand.type):
                _add(adj, operand.key(), E.cast(grad, "f32") if grad.type != "f32" else grad)
    return adj.get(SCORE_KEY, zero)
