"""Tracing FlexAttention-style callables into scalar expression graphs.

`trace_score_mod(fn)` calls fn(score, b, h, q_idx, kv_idx) and
`trace_mask_mod(fn)` calls fn(b, h, q_idx, kv_idx) on symbolic scalars
(`Value`) that record every operation as an expr.Node: Python arithmetic and
comparisons, torch functions (torch.tanh, torch.where, ...) through
`__torch_function__`, and indexing of tensors the callable closes over with
the indices themselves (`bias[b, h, q_idx, kv_idx]`, `slopes[h]`), which
become captured operands, or with computed integer indices (`table[h, q_idx -
kv_idx + 127]`, `doc[b, q_idx]`), which become tg.gather of a table capture.
Anything else (branching on a traced value, .item(), a float index, an op tg
has no equivalent for) raises TraceError naming what and where (the user's
file:line)."""
import linecache
import math
import operator
import os
import sys

import torch

from . import expr as E
from .errors import TraceError

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))

INDEX_NAMES = ("b", "h", "q_idx", "kv_idx")
AXIS_OF = {"b": 0, "h": 1, "q_idx": 2, "kv_idx": 3}

TORCH_TO_TG = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16", torch.int64: "i64",
               torch.int32: "i32", torch.int8: "i8", torch.bool: "i1"}
TG_TO_TORCH = {v: k for k, v in TORCH_TO_TG.items()}


def user_location():
    """file:line and source text of the innermost frame outside tgc and torch."""
    f = sys._getframe(1)
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if not path.startswith(_PKG_DIR + os.sep) and not path.startswith(_TORCH_DIR + os.sep):
            line = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
            return "%s:%d" % (f.f_code.co_filename, f.f_lineno), line or None
        f = f.f_back
    return None, None


def fail(message):
    where, source = user_location()
    raise TraceError(message, where, source)


class Capture:
    """A tensor the callable closed over. Read at the score's position: `view`
    is the tensor after integer indexing, `axes[i]` the index name ("b", "h",
    "q_idx", "kv_idx") that indexes view's dim i. A table (`table`, axes None):
    the whole tensor, read by tg.gather at indices computed in the region.
    `source`: the tensor the callable closed over (view is source[plain], or
    source itself for a table): gradients go back to it."""

    def __init__(self, index, view, axes, name, where, table=False, source=None, plain=()):
        self.index, self.view, self.name, self.where = index, view, name, where
        self.axes = None if axes is None else tuple(axes)
        self.table = table
        self.dtype = TORCH_TO_TG[view.dtype]
        self.source = view if source is None else source  # also keeps id(source) unique while the trace lives
        self.plain = tuple(plain)

    def describe(self):
        what = "'%s'" % self.name if self.name else "a tensor"
        how = "read at computed indices" if self.table else "indexed [%s]" % ", ".join(self.axes)
        return "%s of shape %s %s%s" % (what, list(self.view.shape), how,
                                        " (at %s)" % self.where if self.where else "")


class Tracer:
    def __init__(self, fn):
        self.fn = fn
        self.captures = []
        self._capture_keys = {}
        self.index = {n: E.Node("arg", (), "i64", n) for n in INDEX_NAMES}

    def value(self, node):
        return Value(node, self)

    def capture(self, tensor, indices):
        """tensor[indices] where every index is an index argument or a Python int."""
        if not isinstance(indices, tuple):
            indices = (indices,)
        if any(i is Ellipsis or isinstance(i, slice) or i is None for i in indices):
            fail("indexing a closed-over tensor with slices, None or ... inside a score_mod/mask_mod is not "
                 "traceable; index it with b, h, q_idx, kv_idx (one index per dimension)")
        if len(indices) != tensor.dim():
            fail("a closed-over tensor of shape %s is indexed with %d indices; index every dimension (with b, h, "
                 "q_idx, kv_idx or integers) so that the result is a scalar" % (list(tensor.shape), len(indices)))
        if tensor.dtype not in TORCH_TO_TG:
            fail("a closed-over tensor has dtype %s, which tg cannot capture (expected float32, bfloat16, float16, "
                 "int64, int32, int8 or bool)" % tensor.dtype)
        plain, axes = [], []
        for i in indices:
            if isinstance(i, Value):
                n = i.node
                if n.op == "arg" and n.value in AXIS_OF:
                    plain.append(slice(None))
                    axes.append(n.value)
                    continue
                # A computed index: the tensor is a table read by tg.gather.
                return self.gather(tensor, indices)
            elif isinstance(i, int) or (isinstance(i, torch.Tensor) and i.dim() == 0 and not i.is_floating_point()):
                plain.append(int(i))
            else:
                fail("a closed-over tensor is indexed with %s; only b, h, q_idx, kv_idx, integer expressions of "
                     "them and Python ints are traceable" % type(i).__name__)
        if len(set(axes)) != len(axes):
            # e.g. bias[q_idx, q_idx]: not a view at the score's position.
            return self.gather(tensor, indices)
        view = tensor[tuple(plain)] if plain else tensor
        if not axes:
            view = view.reshape(())
        key = (id(tensor), tuple(plain[i] if isinstance(plain[i], int) else None for i in range(len(plain))),
               tuple(axes))
        if key not in self._capture_keys:
            where, _ = user_location()
            cap = Capture(len(self.captures), view, axes, _name_in(self.fn, tensor), where, source=tensor,
                          plain=plain)
            self.captures.append(cap)
            self._capture_keys[key] = cap
        cap = self._capture_keys[key]
        return self.value(E.Node("capture", (), cap.dtype, cap.index))

    def gather(self, tensor, indices):
        """tensor[indices] with computed indices: a table capture and a gather.
        Negative indices count from the end as in torch (for values in
        [-size, -1]); tg.gather clamps values beyond that (torch would fail)."""
        nodes = []
        for d, i in enumerate(indices):
            size = tensor.shape[d]
            if isinstance(i, Value):
                n = i.node
                if E.is_float(n.type):
                    fail("a closed-over tensor is indexed with a float value (%s); indices must be integers "
                         "(use .long())" % describe(n))
                n = E.cast(n, "i64")
                if n.op != "arg":  # b, h, q_idx and kv_idx are never negative
                    n = E.select(E.cmp("lt", n, E.const(0, "i64")), E.binary("add", n, E.const(size, "i64")), n)
            else:
                v = int(i)
                if not -size <= v < size:
                    fail("index %d is out of range for dimension %d (size %d) of a closed-over tensor"
                         % (v, d, size))
                n = E.const(v + size if v < 0 else v, "i64")
            nodes.append(n)
        key = (id(tensor), "table")
        if key not in self._capture_keys:
            where, _ = user_location()
            cap = Capture(len(self.captures), tensor, None, _name_in(self.fn, tensor), where, table=True)
            self.captures.append(cap)
            self._capture_keys[key] = cap
        cap = self._capture_keys[key]
        table = E.Node("table", (), cap.dtype, cap.index)
        return self.value(E.Node("gather", (table,) + tuple(nodes), cap.dtype))

    def lift(self, x, like=None):
        """A node for a Value, a Python number or a 0-d tensor."""
        if isinstance(x, Value):
            return x.node
        if isinstance(x, bool):
            return E.const(x, "i1")
        if isinstance(x, int):
            return E.const(x, "i64")
        if isinstance(x, float):
            return E.const(x, "f32")
        if isinstance(x, torch.Tensor):
            if x.dim() != 0:
                fail("a closed-over tensor of shape %s is used without indexing; inside a score_mod/mask_mod "
                     "index it down to a scalar with b, h, q_idx, kv_idx" % list(x.shape))
            if x.device.type == "cpu" and not x.requires_grad:
                # A constant: its value is part of the trace (and of the compiled graph).
                if x.dtype == torch.bool:
                    return E.const(bool(x), "i1")
                if x.is_floating_point():
                    return E.const(float(x), "f32")
                return E.const(int(x), "i64")
            return self.capture(x, ()).node
        fail("a %s is used in a score_mod/mask_mod; only traced values, numbers and tensors are traceable"
             % type(x).__name__)


def _name_in(fn, tensor):
    """The name fn uses for tensor (closure variable, default or global), for messages."""
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            if cell.cell_contents is tensor:
                return name
        except ValueError:
            pass
    g = getattr(fn, "__globals__", {})
    for name in code.co_names:
        if g.get(name) is tensor:
            return name
    return None


def describe(node):
    """Short readable form of an expression (for messages)."""
    op = node.op
    if op == "arg":
        return node.value
    if op == "const":
        return repr(node.value)
    if op == "capture":
        return "captured[%d]" % node.value
    if op == "table":
        return "table[%d]" % node.value
    if op == "gather":
        return "%s[%s]" % (describe(node.args[0]), ", ".join(describe(a) for a in node.args[1:]))
    if op == "cmp":
        return "(%s %s %s)" % (describe(node.args[0]), {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==",
                                                        "ne": "!="}[node.value], describe(node.args[1]))
    sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
    if op in sym:
        return "(%s %s %s)" % (describe(node.args[0]), sym[op], describe(node.args[1]))
    return "%s(%s)" % (op, ", ".join(describe(a) for a in node.args))


# --- type promotion ---------------------------------------------------------

def _category(t):
    return "float" if E.is_float(t) else ("int" if E.is_int(t) else "bool")


def common_type(a, b, python_a=False, python_b=False):
    """tg's rule: any float -> f32, else any int -> i64, else i1. (Region math runs in
    f32 like the scores; Python numbers adopt the other operand's category.)"""
    cats = {_category(a.type), _category(b.type)}
    if "float" in cats:
        return "f32"
    if "int" in cats:
        return "i64"
    return "i1"


def promote(tr, x, y):
    a, b = tr.lift(x), tr.lift(y)
    t = common_type(a, b)
    return E.cast(a, t), E.cast(b, t)


def to_float(node):
    return E.cast(node, "f32")


def to_arith(node):
    """Booleans in arithmetic count as integers (as in torch)."""
    return E.cast(node, "i64") if node.type == "i1" else node


# --- the symbolic scalar ------------------------------------------------------

class _Device:
    def __repr__(self):
        return "<traced device>"


_DEVICE = _Device()


class Value:
    """A symbolic scalar recorded by a Tracer. Behaves like a 0-d torch tensor
    under the operations a score_mod/mask_mod uses."""
    __slots__ = ("node", "tracer")

    def __init__(self, node, tracer):
        self.node, self.tracer = node, tracer

    # metadata a mask function may ask for
    @property
    def dtype(self):
        return TG_TO_TORCH[self.node.type]

    @property
    def device(self):
        return _DEVICE

    @property
    def shape(self):
        return torch.Size([])

    @property
    def ndim(self):
        return 0

    def dim(self):
        return 0

    def size(self, d=None):
        return torch.Size([]) if d is None else fail("a traced scalar has no dimension %s" % d)

    def __repr__(self):
        return "<traced %s: %s>" % (self.node.type, describe(self.node))

    # untraceable uses
    def __bool__(self):
        fail("branching on a traced value (if/while/and/or/not, or a chained comparison such as a < b < c) is not "
             "traceable; use torch.where(cond, x, y), & and | instead")

    def __index__(self):
        fail("a traced value is used as a Python integer (e.g. to index a list or range); only tensors can be "
             "indexed, with b, h, q_idx, kv_idx")

    def __int__(self):
        fail("int() of a traced value is not traceable; use .to(torch.int64) or .long()")

    def __float__(self):
        fail("float() of a traced value is not traceable (math.* functions call it: use torch.tanh, torch.exp, "
             "... instead of math.tanh, math.exp)")

    def __len__(self):
        fail("len() of a traced scalar is not traceable")

    def __iter__(self):
        fail("iterating over a traced scalar is not traceable")

    def item(self):
        fail(".item() of a traced value is not traceable: the value is only known inside the kernel")

    def tolist(self):
        fail(".tolist() of a traced value is not traceable")

    def __getitem__(self, idx):
        fail("indexing a traced scalar is not traceable")

    def __setitem__(self, idx, v):
        fail("in-place assignment into a traced value is not traceable")

    def __array__(self, *a):
        fail("numpy functions on traced values are not traceable; use torch functions")

    # arithmetic
    def _bin(self, op, other, reverse=False):
        tr = self.tracer
        a, b = (other, self) if reverse else (self, other)
        x, y = promote(tr, a, b)
        if op == "div":
            x, y = to_float(x), to_float(y)
        elif op in ("add", "sub", "mul", "max", "min"):
            x, y = to_arith(x), to_arith(y)
            if x.type != y.type:
                t = "f32" if "f32" in (x.type, y.type) else "i64"
                x, y = E.cast(x, t), E.cast(y, t)
        return tr.value(E.binary(op, x, y))

    def __add__(self, o): return self._bin("add", o)
    def __radd__(self, o): return self._bin("add", o, True)
    def __sub__(self, o): return self._bin("sub", o)
    def __rsub__(self, o): return self._bin("sub", o, True)
    def __mul__(self, o): return self._bin("mul", o)
    def __rmul__(self, o): return self._bin("mul", o, True)
    def __truediv__(self, o): return self._bin("div", o)
    def __rtruediv__(self, o): return self._bin("div", o, True)

    def __floordiv__(self, o): return _floordiv(self.tracer, self, o)
    def __rfloordiv__(self, o): return _floordiv(self.tracer, o, self)
    def __mod__(self, o): return _mod(self.tracer, self, o)
    def __rmod__(self, o): return _mod(self.tracer, o, self)
    def __pow__(self, o): return _pow(self.tracer, self, o)
    def __rpow__(self, o): return _pow(self.tracer, o, self)

    def __neg__(self):
        n = to_arith(self.node)
        return self.tracer.value(E.unary("neg", n))

    def __pos__(self):
        return self

    def __abs__(self):
        return self.tracer.value(E.unary("abs", to_arith(self.node)))

    # comparisons
    def _cmp(self, pred, other):
        x, y = promote(self.tracer, self, other)
        return self.tracer.value(E.cmp(pred, x, y))

    def __lt__(self, o): return self._cmp("lt", o)
    def __le__(self, o): return self._cmp("le", o)
    def __gt__(self, o): return self._cmp("gt", o)
    def __ge__(self, o): return self._cmp("ge", o)
    def __eq__(self, o): return self._cmp("eq", o)
    def __ne__(self, o): return self._cmp("ne", o)
    __hash__ = object.__hash__

    # booleans
    def _bool_operand(self, x, what):
        n = self.tracer.lift(x)
        if n.type != "i1":
            fail("%s of a %s value: tg has no bitwise integer ops; & | ~ ^ are traceable on booleans only"
                 % (what, n.type))
        return n

    def __and__(self, o):
        return self.tracer.value(_and(self._bool_operand(self, "&"), self._bool_operand(o, "&")))
    __rand__ = __and__

    def __or__(self, o):
        return self.tracer.value(_or(self._bool_operand(self, "|"), self._bool_operand(o, "|")))
    __ror__ = __or__

    def __xor__(self, o):
        a, b = self._bool_operand(self, "^"), self._bool_operand(o, "^")
        return self.tracer.value(E.cmp("ne", a, b))
    __rxor__ = __xor__

    def __invert__(self):
        return self.tracer.value(_not(self._bool_operand(self, "~")))

    # tensor methods
    def _unary(self, op):
        return self.tracer.value(E.unary(op, to_float(self.node)))

    def exp(self): return self._unary("exp")
    def log(self): return self._unary("log")
    def tanh(self): return self._unary("tanh")
    def sigmoid(self): return self._unary("sigmoid")
    def sqrt(self): return self._unary("sqrt")
    def rsqrt(self): return self._unary("rsqrt")
    def reciprocal(self): return self._unary("recip")
    def abs(self): return abs(self)
    def neg(self): return -self
    def square(self): return self * self
    def exp2(self): return self.tracer.value(E.unary("exp", E.binary("mul", to_float(self.node), E.const(math.log(2.0), "f32"))))
    def log2(self): return self.tracer.value(E.binary("div", E.unary("log", to_float(self.node)), E.const(math.log(2.0), "f32")))
    def add(self, o, alpha=1): return self + (o * alpha if alpha != 1 else o)
    def sub(self, o, alpha=1): return self - (o * alpha if alpha != 1 else o)
    def mul(self, o): return self * o
    def div(self, o, rounding_mode=None): return _div(self.tracer, self, o, rounding_mode)
    def pow(self, o): return _pow(self.tracer, self, o)
    def maximum(self, o): return _minmax(self.tracer, "max", self, o)
    def minimum(self, o): return _minmax(self.tracer, "min", self, o)
    def clamp(self, min=None, max=None): return _clamp(self.tracer, self, min, max)
    clip = clamp
    def clamp_min(self, m): return _clamp(self.tracer, self, m, None)
    def clamp_max(self, m): return _clamp(self.tracer, self, None, m)
    def logical_and(self, o): return self.tracer.value(_and(_as_bool(self.tracer, self), _as_bool(self.tracer, o)))
    def logical_or(self, o): return self.tracer.value(_or(_as_bool(self.tracer, self), _as_bool(self.tracer, o)))
    def logical_not(self): return self.tracer.value(_not(_as_bool(self.tracer, self)))
    def where(self, cond, other): return _where(self.tracer, cond, self, other)
    def float(self): return self.to(torch.float32)
    def double(self): return self.to(torch.float32)
    def half(self): return self.to(torch.float16)
    def bfloat16(self): return self.to(torch.bfloat16)
    def int(self): return self.to(torch.int32)
    def long(self): return self.to(torch.int64)
    def bool(self): return self.to(torch.bool)
    def type_as(self, other): return self.to(other.dtype)
    def contiguous(self): return self
    def clone(self): return self
    def detach(self): return self
    def squeeze(self, *a): return self
    def unsqueeze(self, *a): fail("unsqueeze of a traced scalar is not traceable")

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, torch.dtype):
                dtype = a
        if dtype is None:
            return self  # a device move: the value lives in the kernel anyway
        if dtype == torch.float64:
            dtype = torch.float32  # region math is f32
        if dtype not in TORCH_TO_TG:
            fail("casting a traced value to %s is not traceable" % dtype)
        return self.tracer.value(E.cast(self.node, TORCH_TO_TG[dtype]))

    def new_ones(self, size=(), dtype=None, **kw): return self._new_full(size, 1, dtype)
    def new_zeros(self, size=(), dtype=None, **kw): return self._new_full(size, 0, dtype)
    def new_full(self, size, fill_value, dtype=None, **kw): return self._new_full(size, fill_value, dtype)

    def new_tensor(self, data, dtype=None, **kw):
        return self._new_full((), data, dtype)

    def _new_full(self, size, value, dtype):
        if tuple(size) not in ((), (1,)):
            fail("new tensors of shape %s inside a score_mod/mask_mod are not traceable (only scalars)" % (size,))
        t = TORCH_TO_TG.get(dtype or self.dtype)
        if t is None:
            fail("dtype %s is not traceable" % dtype)
        return self.tracer.value(E.const(value, t))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        handler = _TORCH_HANDLERS.get(func)
        tracer = _find_tracer(args, kwargs)
        if func is torch.Tensor.__getitem__:
            return tracer.capture(args[0], args[1])
        if handler is None:
            name = getattr(func, "__name__", str(func))
            owner = "torch.Tensor." if "Tensor" in getattr(func, "__qualname__", "") else "torch."
            fail("%s%s is not traceable into a tg score region (traceable: arithmetic, comparisons, &, |, ~, "
                 "torch.where, exp, log, tanh, sigmoid, sqrt, rsqrt, abs, clamp, maximum, minimum, pow, and "
                 "indexing closed-over tensors with b, h, q_idx, kv_idx)" % (owner, name))
        return handler(tracer, *args, **kwargs)


def _find_tracer(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Value):
            return a.tracer
        if isinstance(a, (tuple, list)):
            for b in a:
                if isinstance(b, Value):
                    return b.tracer
    raise AssertionError("__torch_function__ without a traced argument")


def _as_bool(tr, x):
    n = tr.lift(x)
    return n if n.type == "i1" else E.cmp("ne", n, E.const(0, n.type))


def _and(a, b):
    for x, y in ((a, b), (b, a)):
        if x.op == "const":
            return y if x.value else E.const(False, "i1")
    return E.logical("and", a, b)


def _or(a, b):
    for x, y in ((a, b), (b, a)):
        if x.op == "const":
            return E.const(True, "i1") if x.value else y
    return E.logical("or", a, b)


def _not(a):
    if a.op == "const":
        return E.const(not a.value, "i1")
    if a.op == "not":
        return a.args[0]
    return E.logical("not", a)


def _div(tr, a, b, rounding_mode=None):
    if rounding_mode is None:
        return Value._bin(a if isinstance(a, Value) else tr.value(tr.lift(a)), "div", b)
    if rounding_mode == "floor":
        return _floordiv(tr, a, b)
    fail("torch.div(rounding_mode=%r) is not traceable (only None and 'floor' by a positive integer)" % rounding_mode)


def _positive_int_divisor(tr, b, what):
    n = tr.lift(b)
    if n.op != "const" or not E.is_int(n.type) or n.value <= 0:
        fail("%s is traceable only for integer values and a positive integer constant divisor (tg has no "
             "floor division)" % what)
    return n.value


def _floordiv(tr, a, b):
    x = to_arith(tr.lift(a))
    if not E.is_int(x.type):
        fail("// on floating-point traced values is not traceable (tg has no floor op)")
    c = _positive_int_divisor(tr, b, "//")
    x = E.cast(x, "i64")
    if c == 1:
        return tr.value(x)
    # floor(x / c) from tg's truncating division: shift negative x down first.
    cc = E.const(c, "i64")
    shifted = E.binary("sub", x, E.const(c - 1, "i64"))
    neg = E.cmp("lt", x, E.const(0, "i64"))
    return tr.value(E.binary("div", E.select(neg, shifted, x), cc))


def _mod(tr, a, b):
    q = _floordiv(tr, a, b).node
    c = _positive_int_divisor(tr, b, "%")
    x = E.cast(to_arith(tr.lift(a)), "i64")
    return tr.value(E.binary("sub", x, E.binary("mul", q, E.const(c, "i64"))))


def _pow(tr, a, b):
    x, y = tr.lift(a), tr.lift(b)
    if y.op == "const" and float(y.value) == 2.0:
        x = to_arith(x)
        return tr.value(E.binary("mul", x, x))
    if y.op == "const" and float(y.value) == 1.0:
        return tr.value(x)
    return tr.value(E.binary("pow", to_float(x), to_float(y)))


def _minmax(tr, op, a, b):
    x, y = promote(tr, a, b)
    return tr.value(E.binary(op, to_arith(x), to_arith(y)))


def _clamp(tr, x, lo=None, hi=None):
    v = x if isinstance(x, Value) else tr.value(tr.lift(x))
    if lo is not None:
        v = _minmax(tr, "max", v, lo)
    if hi is not None:
        v = _minmax(tr, "min", v, hi)
    return v


def _where(tr, cond, a, b):
    c = _as_bool(tr, cond)
    x, y = promote(tr, a, b)
    return tr.value(E.select(c, x, y))


def _unary_handler(op):
    return lambda tr, x, *a, **k: tr.value(E.unary(op, to_float(tr.lift(x))))


def _full_like(tr, x, fill_value, dtype=None, **kw):
    t = TORCH_TO_TG.get(dtype) if dtype is not None else tr.lift(x).type
    return tr.value(E.const(fill_value, t))


def _binop(name):
    def h(tr, a, b, *rest, **kw):
        va = a if isinstance(a, Value) else tr.value(tr.lift(a))
        return getattr(operator, name)(va, b)
    return h


def _rbinop(name):
    def h(tr, a, b, *rest, **kw):
        vb = b if isinstance(b, Value) else tr.value(tr.lift(b))
        return getattr(operator, name)(a, vb)
    return h


def _build_handlers():
    T = torch.Tensor
    h = {}
    for op in ("exp", "log", "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal"):
        tg_op = "recip" if op == "reciprocal" else op
        for f in (getattr(torch, op, None), getattr(T, op, None), getattr(torch.special, "expit", None)
                  if op == "sigmoid" else None):
            if f is not None:
                h[f] = _unary_handler(tg_op)
    h[torch.nn.functional.sigmoid] = _unary_handler("sigmoid")
    for f in (torch.abs, T.abs, T.__abs__):
        h[f] = lambda tr, x: abs(x if isinstance(x, Value) else tr.value(tr.lift(x)))
    for f in (torch.neg, T.neg, T.__neg__, torch.negative):
        h[f] = lambda tr, x: -(x if isinstance(x, Value) else tr.value(tr.lift(x)))
    for f in (torch.square, T.square):
        h[f] = lambda tr, x: (lambda v: v * v)(x if isinstance(x, Value) else tr.value(tr.lift(x)))
    for name, dunder in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "truediv"), ("true_divide", "truediv"),
                         ("multiply", "mul"), ("subtract", "sub"), ("divide", "truediv")):
        f = getattr(torch, name, None)
        if f is not None:
            h[f] = _binop(dunder)
    for dunder in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge", "eq", "ne",
                   "and_", "or_", "xor"):
        attr = "__%s__" % dunder.rstrip("_")
        if hasattr(T, attr):
            h[getattr(T, attr)] = _binop(dunder)
        rattr = "__r%s__" % dunder.rstrip("_")
        if hasattr(T, rattr):
            h[getattr(T, rattr)] = _rbinop(dunder)
    h[T.__invert__] = lambda tr, x: ~x
    for name, pred in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("eq", "eq"), ("ne", "ne"),
                       ("less", "lt"), ("less_equal", "le"), ("greater", "gt"), ("greater_equal", "ge"),
                       ("not_equal", "ne")):
        f = getattr(torch, name, None)
        if f is not None:
            h[f] = (lambda p: lambda tr, a, b: Value._cmp(a if isinstance(a, Value) else tr.value(tr.lift(a)), p, b))(pred)
    h[torch.where] = lambda tr, c, a, b: _where(tr, c, a, b)
    h[T.where] = lambda tr, x, c, o: _where(tr, c, x, o)
    for f in (torch.maximum, T.maximum, torch.max, T.max, torch.fmax):
        h[f] = lambda tr, a, b=None, *r: _minmax(tr, "max", a, b) if b is not None else fail("torch.max of one "
                                                                                             "traced scalar")
    for f in (torch.minimum, T.minimum, torch.min, T.min, torch.fmin):
        h[f] = lambda tr, a, b=None, *r: _minmax(tr, "min", a, b) if b is not None else fail("torch.min of one "
                                                                                             "traced scalar")
    for f in (torch.clamp, T.clamp, torch.clip, T.clip):
        h[f] = lambda tr, x, min=None, max=None: _clamp(tr, x, min, max)
    h[torch.clamp_min] = lambda tr, x, m: _clamp(tr, x, m, None)
    h[torch.clamp_max] = lambda tr, x, m: _clamp(tr, x, None, m)
    h[torch.pow] = lambda tr, a, b: _pow(tr, a, b)
    h[T.pow] = lambda tr, a, b: _pow(tr, a, b)
    h[torch.floor_divide] = lambda tr, a, b: _floordiv(tr, a, b)
    h[torch.remainder] = lambda tr, a, b: _mod(tr, a, b)
    h[torch.div] = lambda tr, a, b, rounding_mode=None: _div(tr, a, b, rounding_mode)
    h[T.div] = h[torch.div]
    for f in (torch.logical_and, T.logical_and):
        h[f] = lambda tr, a, b: tr.value(_and(_as_bool(tr, a), _as_bool(tr, b)))
    for f in (torch.logical_or, T.logical_or):
        h[f] = lambda tr, a, b: tr.value(_or(_as_bool(tr, a), _as_bool(tr, b)))
    for f in (torch.logical_not, T.logical_not):
        h[f] = lambda tr, a: tr.value(_not(_as_bool(tr, a)))
    h[torch.full_like] = _full_like
    h[torch.zeros_like] = lambda tr, x, dtype=None, **kw: _full_like(tr, x, 0, dtype)
    h[torch.ones_like] = lambda tr, x, dtype=None, **kw: _full_like(tr, x, 1, dtype)
    h[T.to] = lambda tr, x, *a, **k: x.to(*a, **k)
    h[T.float] = lambda tr, x: x.float()
    h[T.long] = lambda tr, x: x.long()
    h[T.int] = lambda tr, x: x.int()
    h[T.bool] = lambda tr, x: x.bool()
    return h


_TORCH_HANDLERS = _build_handlers()


# --- entry points -------------------------------------------------------------

class Trace:
    """A traced callable: `root` (f32 score or i1 keep) and its captures."""

    def __init__(self, kind, root, captures):
        self.kind, self.root, self.captures = kind, root, captures


def _result_node(tr, out, kind, fn):
    name = getattr(fn, "__name__", type(fn).__name__)
    if isinstance(out, Value):
        return out.node
    if isinstance(out, (bool, int, float)) or (isinstance(out, torch.Tensor) and out.dim() == 0):
        return tr.lift(out)
    raise TraceError("%s %s returned %s; expected a scalar built from its arguments"
                     % (kind, name, type(out).__name__))


def trace_score_mod(fn):
    tr = Tracer(fn)
    score = tr.value(E.Node("arg", (), "f32", "score"))
    out = fn(score, *(tr.value(tr.index[n]) for n in INDEX_NAMES))
    node = _result_node(tr, out, "score_mod", fn)
    if node.type == "i1":
        raise TraceError("score_mod %s returned a boolean; a score_mod returns the new score (a mask "
                         "belongs in mask_mod)" % getattr(fn, "__name__", "?"))
    return Trace("score_mod", E.cast(node, "f32"), tr.captures)


def trace_mask_mod(fn):
    tr = Tracer(fn)
    out = fn(*(tr.value(tr.index[n]) for n in INDEX_NAMES))
    node = _result_node(tr, out, "mask_mod", fn)
    if node.type != "i1":
        raise TraceError("mask_mod %s returned a %s value; expected a boolean (True keeps the score)"
                         % (getattr(fn, "__name__", "?"), node.type))
    return Trace("mask_mod", node, tr.captures)


# --- cache keys for callables -------------------------------------------------

_IMMUTABLE = (int, float, bool, str, bytes, type(None), complex)


def _cell_key(v):
    if isinstance(v, _IMMUTABLE):
        return (type(v).__name__, v)
    if isinstance(v, tuple) and all(isinstance(x, _IMMUTABLE) for x in v):
        return ("tuple", v)
    return ("id", id(v))


def callable_key(fn):
    """What identifies a callable's behaviour for the trace cache: its code and the
    values (immutables) or identities (everything else) of its closure cells and
    defaults; the bound object of a method. Returns (key, objects) where objects
    must be kept alive while the key is used (so ids are not reused)."""
    if fn is None:
        return None, ()
    code = getattr(fn, "__code__", None)
    if code is not None:  # a plain function or lambda: the common, fast case
        cells = fn.__closure__
        defaults = fn.__defaults__
        if not cells and not defaults:
            return code, (fn,)
        contents = tuple(_cell_key(c.cell_contents) for c in cells) if cells else ()
        dkey = tuple(_cell_key(d) for d in defaults) if defaults else ()
        return (code, contents, dkey), (fn,)
    self_obj = getattr(fn, "__self__", None)
    f = getattr(fn, "__func__", None)
    if f is None or getattr(f, "__code__", None) is None:
        return ("obj", id(fn)), (fn,)
    key, keep = callable_key(f)
    return (key, id(self_obj)), (keep, self_obj)
