"""Scalar expression graphs: what a traced score_mod / mask_mod is, before it
becomes the text of a tg.attention score region.

A Node is one rank-0 value: a region argument (the score, an index, a
captured tensor's element), a constant, a pointwise op on other nodes, or a
"gather" of a "table" (a captured tensor read whole) at index nodes.
Types are tg element types ("f32", "i64", "i1", ...). The graph is a DAG;
`emit_region` prints it as tg ops in SSA order (docs/dialect.md, the score
region)."""
import math

FLOAT_TYPES = ("f32", "bf16", "f16")
INT_TYPES = ("i64", "i32", "i8")

UNARY = ("exp", "log", "tanh", "neg", "abs", "sqrt", "rsqrt", "recip", "sigmoid")
BINARY = ("add", "sub", "mul", "div", "max", "min", "pow")
CMP = ("lt", "le", "gt", "ge", "eq", "ne")


class Node:
    """op: "arg", "capture", "const", a tg op name, "cmp", "select", "cast", or the
    boolean "and"/"or"/"not" (lowered to selects when printed)."""
    __slots__ = ("op", "args", "type", "value", "_key")

    def __init__(self, op, args, type_, value=None):
        self.op, self.args, self.type, self.value = op, tuple(args), type_, value
        self._key = None

    def key(self):
        """A structural key: equal keys compute equal values."""
        if self._key is None:
            if self.op == "const":
                v = self.value
                self._key = ("const", self.type, repr(v) if isinstance(v, float) else v)
            else:
                self._key = (self.op, self.type, self.value) + tuple(a.key() for a in self.args)
        return self._key

    def __repr__(self):
        return "Node(%s)" % (self.key(),)


def is_float(t):
    return t in FLOAT_TYPES


def is_int(t):
    return t in INT_TYPES


def const(value, type_):
    if type_ == "i1":
        value = bool(value)
    elif is_int(type_):
        value = int(value)
    else:
        value = float(value)
    return Node("const", (), type_, value)


def cast(node, type_):
    if node.type == type_:
        return node
    if node.op == "const":
        if type_ == "i1":
            return const(node.value != 0, "i1")
        if is_int(type_) and is_float(node.type):
            v = node.value
            if not math.isfinite(v):
                return Node("cast", (node,), type_)
            return const(int(v), type_)  # truncation toward zero, as tg.cast
        return const(node.value, type_)
    return Node("cast", (node,), type_)


def unary(op, x):
    return Node(op, (x,), x.type)


def binary(op, a, b):
    assert a.type == b.type, (op, a.type, b.type)
    return Node(op, (a, b), a.type)


def cmp(pred, a, b):
    assert a.type == b.type, (pred, a.type, b.type)
    return Node("cmp", (a, b), "i1", pred)


def select(c, a, b):
    assert c.type == "i1" and a.type == b.type, (c.type, a.type, b.type)
    return Node("select", (c, a, b), a.type)


def logical(op, *args):
    return Node(op, args, "i1")


def is_const(node, value=None):
    if node.op != "const":
        return False
    if value is None:
        return True
    v = node.value
    if isinstance(value, float) and math.isnan(value):
        return isinstance(v, float) and math.isnan(v)
    return v == value


NEG_INF = float("-inf")


def format_constant(value, type_):
    """The dense<...> literal of a scalar."""
    if type_ == "i1":
        return "true" if value else "false"
    if is_int(type_):
        return str(int(value))
    if math.isnan(value):
        return {"f32": "0x7FC00000", "bf16": "0x7FC0", "f16": "0x7E00"}[type_]
    if math.isinf(value):
        pos = {"f32": "0x7F800000", "bf16": "0x7F80", "f16": "0x7C00"}[type_]
        neg = {"f32": "0xFF800000", "bf16": "0xFF80", "f16": "0xFC00"}[type_]
        return pos if value > 0 else neg
    return "%.9e" % value if type_ == "f32" else "%.6e" % value


def tensor_type(t):
    return "tensor<%s>" % t


class RegionPrinter:
    """Prints nodes as tg ops inside one region, each value once (shared subgraphs
    print once), booleans lowered to selects."""

    def __init__(self, names, indent="    ", table_types=None):
        # names: {node key: "%name"} for the region's block arguments;
        # table_types: {table node key: "tensor<...>"} for the tables gathers read.
        self.names = dict(names)
        self.table_types = dict(table_types or {})
        self.lines = []
        self.counter = 0
        self.indent = indent

    def fresh(self):
        self.counter += 1
        return "%%v%d" % self.counter

    def emit(self, node):
        k = node.key()
        if k in self.names:
            return self.names[k]
        op = node.op
        if op in ("arg", "capture", "table"):
            raise AssertionError("unbound region argument %r" % (k,))
        if op in ("and", "or", "not"):
            name = self.emit_select(node, const(True, "i1"), const(False, "i1"))
            self.names[k] = name
            return name
        if op == "const":
            text = "tg.constant dense<%s> : %s" % (format_constant(node.value, node.type), tensor_type(node.type))
        elif op == "cast":
            a = self.emit(node.args[0])
            text = "tg.cast %s : %s to %s" % (a, tensor_type(node.args[0].type), tensor_type(node.type))
        elif op == "cmp":
            a, b = (self.emit(x) for x in node.args)
            t = tensor_type(node.args[0].type)
            text = "tg.cmp %s, %s, %s : %s, %s" % (node.value, a, b, t, t)
        elif op == "select":
            return self._store(k, self.emit_select(node.args[0], node.args[1], node.args[2]))
        elif op == "gather":
            table = node.args[0]
            t = self.emit(table)
            indices = [self.emit(x) for x in node.args[1:]]
            text = "tg.gather %s[%s] : %s[%s]" % (t, ", ".join(indices), self.table_types[table.key()],
                                                  ", ".join(["tensor<i64>"] * len(indices)))
        elif op in UNARY:
            a = self.emit(node.args[0])
            text = "tg.%s %s : %s" % (op, a, tensor_type(node.type))
        elif op in BINARY:
            a, b = (self.emit(x) for x in node.args)
            t = tensor_type(node.type)
            text = "tg.%s %s, %s : %s, %s" % (op, a, b, t, t)
        else:
            raise AssertionError("unknown node op %r" % op)
        return self._store(k, self._line(text))

    def _store(self, key, name):
        self.names[key] = name
        return name

    def _line(self, text):
        name = self.fresh()
        self.lines.append("%s%s = %s" % (self.indent, name, text))
        return name

    def emit_select(self, cond, on_true, on_false):
        """select(cond, t, f) with and/or/not conditions distributed into nested
        selects (no i1 constants needed for masks)."""
        if cond.op == "and":
            inner = _SelectLater(cond.args[1], on_true, on_false)
            return self.emit_select(cond.args[0], inner, on_false)
        if cond.op == "or":
            inner = _SelectLater(cond.args[1], on_true, on_false)
            return self.emit_select(cond.args[0], on_true, inner)
        if cond.op == "not":
            return self.emit_select(cond.args[0], on_false, on_true)
        if cond.op == "const":
            return self._value(on_true if cond.value else on_false)
        c = self.emit(cond)
        t, f = self._value(on_true), self._value(on_false)
        ty = tensor_type(_type_of(on_true))
        return self._line("tg.select %s, %s, %s : tensor<i1>, %s, %s" % (c, t, f, ty, ty))

    def _value(self, v):
        if isinstance(v, _SelectLater):
            key = ("select-later", v.cond.key(), _key_of(v.on_true), _key_of(v.on_false))
            if key not in self.names:
                self.names[key] = self.emit_select(v.cond, v.on_true, v.on_false)
            return self.names[key]
        return self.emit(v)


class _SelectLater:
    """A select not printed yet (the branch of a distributed and/or)."""
    __slots__ = ("cond", "on_true", "on_false")

    def __init__(self, cond, on_true, on_false):
        self.cond, self.on_true, self.on_false = cond, on_true, on_false


def _type_of(v):
    return _type_of(v.on_true) if isinstance(v, _SelectLater) else v.type


def _key_of(v):
    if isinstance(v, _SelectLater):
        return ("select-later", v.cond.key(), _key_of(v.on_true), _key_of(v.on_false))
    return v.key()


def depends_on(node, target_key, memo=None):
    """Whether node's value depends on the node with key target_key."""
    if memo is None:
        memo = {}
    k = node.key()
    if k == target_key:
        return True
    if k in memo:
        return memo[k]
    r = any(depends_on(a, target_key, memo) for a in node.args)
    memo[k] = r
    return r
