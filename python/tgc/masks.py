"""Masks that become tg.attention attributes instead of region math.

A mask is a boolean expression (True keeps the score). Its conjunction
factors are examined one by one (`split_factors`); a factor that is provably

  - a band on d = kv_idx - q_idx (lo <= d <= hi, from comparisons of
    expressions linear in q_idx and kv_idx, exact in integers), or
  - padding: kv_idx < L[b] or q_idx < L[b] for a captured [B] integer tensor L

is lifted: bands intersect into `causal`/`window_left`/`window_right`,
padding gives `seq_len_kv`/`seq_len_q`. The other factors stay in the score
region as selects to -inf. Lifting only changes how the mask is computed
(kernels skip whole tiles), never which scores are kept."""
from fractions import Fraction
import math

from . import expr as E


def split_factors(node):
    """The conjunction factors of a boolean expression."""
    if node.op == "and":
        return split_factors(node.args[0]) + split_factors(node.args[1])
    if node.op == "const" and node.value is True:
        return []
    return [node]


def peel_where_masks(node):
    """score_mod results of the form where(keep, x, -inf) (or where(drop, -inf, x)),
    possibly nested: (x, [keep factors])."""
    factors = []
    while node.op == "select":
        c, a, b = node.args
        if E.is_const(b) and b.value == E.NEG_INF:
            factors.append(c)
            node = a
        elif E.is_const(a) and a.value == E.NEG_INF:
            factors.append(_negate(c))
            node = b
        else:
            break
    return node, factors


def _negate(c):
    if c.op == "not":
        return c.args[0]
    return E.logical("not", c)


def linear(node):
    """node as {var: coefficient, 1: constant} (Fractions) if it is an integer-exact
    linear function of b, h, q_idx, kv_idx; else None."""
    op = node.op
    if op == "arg" and node.value in ("b", "h", "q_idx", "kv_idx"):
        return {node.value: Fraction(1)}
    if op == "const" and node.type != "i1":
        v = node.value
        if isinstance(v, float) and not math.isfinite(v):
            return None
        return {1: Fraction(v)}
    if op == "cast" and node.type != "i1" and node.args[0].type != "i1":
        # Index values (< 2^24 in practice) convert exactly between ints and f32;
        # a float -> int cast truncates, which is only linear for integer inputs.
        inner = linear(node.args[0])
        if inner is None:
            return None
        if E.is_int(node.type) and E.is_float(node.args[0].type) and any(v.denominator != 1 for v in inner.values()):
            return None
        return inner
    if op in ("add", "sub"):
        a, b = linear(node.args[0]), linear(node.args[1])
        if a is None or b is None:
            return None
        sign = 1 if op == "add" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    if op == "neg":
        a = linear(node.args[0])
        return None if a is None else {k: -v for k, v in a.items()}
    if op == "mul":
        a, b = linear(node.args[0]), linear(node.args[1])
        if a is None or b is None:
            return None
        for x, y in ((a, b), (b, a)):
            if set(y) <= {1}:
                c = y.get(1, 0)
                return {k: v * c for k, v in x.items()}
        return None
    return None


def band_of(factor):
    """(lo, hi) bounds on d = kv_idx - q_idx (None = unbounded) if factor is a band."""
    if factor.op != "cmp" or factor.value == "ne":
        return None
    a, b = linear(factor.args[0]), linear(factor.args[1])
    if a is None or b is None:
        return None
    diff = dict(a)
    for k, v in b.items():
        diff[k] = diff.get(k, 0) - v
    if diff.get("b", 0) != 0 or diff.get("h", 0) != 0:
        return None
    alpha, beta, gamma = diff.get("q_idx", 0), diff.get("kv_idx", 0), diff.get(1, Fraction(0))
    if beta == 0 or alpha != -beta:
        return None
    # beta * d + gamma OP 0  <=>  beta * d OP t
    k, t = beta, -gamma
    r = t / k
    pred = factor.value
    if k < 0:
        pred = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq"}[pred]
    # now d OP r
    if pred == "lt":
        return None, math.ceil(r) - 1
    if pred == "le":
        return None, math.floor(r)
    if pred == "gt":
        return math.floor(r) + 1, None
    if pred == "ge":
        return math.ceil(r), None
    if pred == "eq":
        if r.denominator != 1:
            return 1, 0  # empty
        return int(r), int(r)
    return None


def padding_of(factor, captures):
    """("kv"|"q", capture index) if factor is idx < L[b] with L a captured [B] int tensor."""
    if factor.op != "cmp":
        return None
    a, b = factor.args
    pred = factor.value
    if pred == "gt":
        a, b, pred = b, a, "lt"
    if pred != "lt":
        return None
    while b.op == "cast" and E.is_int(b.type) and E.is_int(b.args[0].type):
        b = b.args[0]
    if a.op == "cast" and E.is_int(a.type):
        a = a.args[0]
    if a.op != "arg" or a.value not in ("q_idx", "kv_idx") or b.op != "capture" or not E.is_int(b.type):
        return None
    cap = captures[b.value]
    if cap.axes != ("b",):
        return None
    return ("kv" if a.value == "kv_idx" else "q"), b.value


class LiftedMasks:
    """Attribute masks: causal ("none", "top_left", "bottom_right"), window_left,
    window_right (None = absent), seq_len capture indices, and the factors left
    for the region."""

    def __init__(self):
        self.causal = "none"
        self.window_left = None
        self.window_right = None
        self.seq_len_q = None
        self.seq_len_kv = None
        self.rest = []


def lift(factors, captures, sq, skv, batch):
    out = LiftedMasks()
    lo, hi = None, None
    band_factors = []
    for f in factors:
        band = band_of(f)
        if band is not None:
            flo, fhi = band
            lo = flo if lo is None else (max(lo, flo) if flo is not None else lo)
            hi = fhi if hi is None else (min(hi, fhi) if fhi is not None else hi)
            band_factors.append(f)
            continue
        pad = padding_of(f, captures)
        if pad is not None and captures[pad[1]].view.shape[0] == batch:
            side, idx = pad
            attr = "seq_len_kv" if side == "kv" else "seq_len_q"
            if getattr(out, attr) is None:
                setattr(out, attr, idx)
                continue
        out.rest.append(f)
    if not band_factors:
        return out
    padded = out.seq_len_q is not None or out.seq_len_kv is not None
    if lo is not None and hi is not None and lo > hi:
        out.rest.extend(band_factors)  # nothing is kept: leave it to the region
        return out
    if hi == 0:
        out.causal = "top_left"
        out.window_left = -lo if lo is not None else None
    elif hi is not None and not padded and hi == skv - sq and (lo is None or lo <= hi):
        out.causal = "bottom_right"
        out.window_left = hi - lo if lo is not None else None
    elif (lo is None or lo <= 0) and (hi is None or hi >= 0):
        out.window_left = -lo if lo is not None else None
        out.window_right = hi
    else:
        out.rest.extend(band_factors)
    return out
