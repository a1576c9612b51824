"""tg graph text for one attention configuration: the forward (tg.attention)
and the backward (tg.attention_grad) as func.func graphs whose arguments and
results are named (tg.name) and laid out (tg.strides) like the caller's
buffers, so that nothing is copied (docs/dialect.md)."""
from . import expr as E
from .grad import score_gradient


class TensorSpec:
    """Shape, tg dtype and strides (elements) of one bound buffer; `table`: a
    capture read whole by tg.gather (its region argument is the tensor)."""
    __slots__ = ("shape", "dtype", "strides", "table")

    def __init__(self, shape, dtype, strides=None, table=False):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.strides = tuple(int(s) for s in strides) if strides is not None else row_major(self.shape)
        self.table = table

    def type(self):
        return "tensor<%s>" % "x".join([str(s) for s in self.shape] + [self.dtype])

    def attrs(self, name):
        text = 'tg.name = "%s"' % name
        if self.strides != row_major(self.shape) and not _row_major_up_to_unit(self.shape, self.strides):
            text += ", tg.strides = array<i64: %s>" % ", ".join(str(s) for s in _positive(self.shape, self.strides))
        return "{%s}" % text

    def key(self):
        return (self.shape, self.dtype, self.strides, self.table)


def row_major(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


def _row_major_up_to_unit(shape, strides):
    rm = row_major(shape)
    return all(s == 1 or a == b for s, a, b in zip(shape, strides, rm))


def _positive(shape, strides):
    # Strides of size-1 dims are ignored by tg but must be positive.
    return [st if (st > 0 or sz != 1) else 1 for sz, st in zip(shape, strides)]


class AttentionSpec:
    """Everything the graphs depend on."""

    def __init__(self, q, k, v, o, scale, score, captures=(), seq_len_q=None, seq_len_kv=None, causal="none",
                 window_left=None, window_right=None, dropout=0.0, training=False, grad_captures=()):
        self.q, self.k, self.v, self.o = q, k, v, o
        self.scale = float(scale)
        self.score = score            # expr node: the region's result (f32)
        self.captures = list(captures)  # TensorSpec: rank 4, or a table
        self.seq_len_q, self.seq_len_kv = seq_len_q, seq_len_kv
        self.causal = causal
        self.window_left, self.window_right = window_left, window_right
        self.dropout = float(dropout)
        self.training = training
        # Captures whose gradient the backward also returns (tg.attention_grad's
        # grad_captures, ascending): a learnable bias or table.
        self.grad_captures = tuple(sorted(grad_captures))

    def capture_grad_specs(self):
        """(index, TensorSpec) of each gradient in grad_captures: the capture's
        shape and type (summed over its broadcast dims), row-major."""
        return [(i, TensorSpec(self.captures[i].shape, self.captures[i].dtype)) for i in self.grad_captures]

    @property
    def lse(self):
        b, h, s = self.q.shape[0], self.q.shape[1], self.q.shape[2]
        return TensorSpec((b, h, s, 1), "f32")

    def attributes(self, training=None, grad_captures=()):
        parts = []
        if self.causal != "none":
            parts.append("causal = #tg<causal %s>" % self.causal)
        if self.dropout > 0:
            parts.append("dropout = %s : f64" % _f64(self.dropout))
        parts.append("scale = %s : f64" % _f64(self.scale))
        if training:
            parts.append("training")
        if self.window_left is not None:
            parts.append("window_left = %d : i64" % self.window_left)
        if self.window_right is not None:
            parts.append("window_right = %d : i64" % self.window_right)
        if grad_captures:
            parts.append("grad_captures = array<i64: %s>" % ", ".join(str(i) for i in grad_captures))
        return "{%s}" % ", ".join(parts)

    # --- the pieces shared by both graphs --------------------------------
    def _optional_operands(self):
        text = ""
        if self.seq_len_q is not None:
            text += " seq_len_q(%%seq_len_q : %s)" % self.seq_len_q.type()
        if self.seq_len_kv is not None:
            text += " seq_len_kv(%%seq_len_kv : %s)" % self.seq_len_kv.type()
        if self.dropout > 0:
            text += " seed(%seed) offset(%offset)"
        if self.captures:
            text += " captures(%s : %s)" % (", ".join("%%c%d" % i for i in range(len(self.captures))),
                                            ", ".join(c.type() for c in self.captures))
        return text

    def _optional_arguments(self):
        args = []
        for i, c in enumerate(self.captures):
            args.append("%%c%d: %s %s" % (i, c.type(), c.attrs("c%d" % i)))
        if self.seq_len_q is not None:
            args.append("%%seq_len_q: %s %s" % (self.seq_len_q.type(), self.seq_len_q.attrs("seq_len_q")))
        if self.seq_len_kv is not None:
            args.append("%%seq_len_kv: %s %s" % (self.seq_len_kv.type(), self.seq_len_kv.attrs("seq_len_kv")))
        if self.dropout > 0:
            args.append('%seed: tensor<i64> {tg.name = "seed"}')
            args.append('%offset: tensor<i64> {tg.name = "offset"}')
        return args

    def _block_args(self, with_dz=False):
        names = {("arg", "f32", "score"): "%s", ("arg", "i64", "b"): "%b", ("arg", "i64", "h"): "%h",
                 ("arg", "i64", "q_idx"): "%qi", ("arg", "i64", "kv_idx"): "%ki"}
        sig = ["%s: tensor<f32>", "%b: tensor<i64>", "%h: tensor<i64>", "%qi: tensor<i64>", "%ki: tensor<i64>"]
        for i, c in enumerate(self.captures):
            if c.table:
                names[("table", c.dtype, i)] = "%%e%d" % i
                sig.append("%%e%d: %s" % (i, c.type()))
            else:
                names[("capture", c.dtype, i)] = "%%e%d" % i
                sig.append("%%e%d: tensor<%s>" % (i, c.dtype))
        if with_dz:
            names[("arg", "f32", "dz")] = "%dz"
            sig.append("%dz: tensor<f32>")
        return names, sig

    def region(self, root, with_dz=False):
        names, sig = self._block_args(with_dz)
        if root.key() == ("arg", "f32", "dz" if with_dz else "score"):
            if with_dz:
                return "{\n  }"  # the identity score_grad
        tables = {("table", c.dtype, i): c.type() for i, c in enumerate(self.captures) if c.table}
        printer = E.RegionPrinter(names, table_types=tables)
        result = printer.emit(root)
        lines = ["{", "  ^bb0(%s):" % ", ".join(sig)] + printer.lines + ["    tg.yield %s : tensor<f32>" % result, "  }"]
        return "\n".join(lines)

    def score_grad_root(self):
        return score_gradient(self.score, E.Node("arg", (), "f32", "dz"))

    # --- graphs ----------------------------------------------------------
    def forward_text(self, name="tgc_attention_fwd"):
        q, k, v, o = self.q, self.k, self.v, self.o
        args = ["%%q: %s %s" % (q.type(), q.attrs("q")), "%%k: %s %s" % (k.type(), k.attrs("k")),
                "%%v: %s %s" % (v.type(), v.attrs("v"))] + self._optional_arguments()
        results = ["%s %s" % (o.type(), o.attrs("o"))]
        if self.training:
            results.append("%s %s" % (self.lse.type(), self.lse.attrs("lse")))
        res_names = "%o, %lse" if self.training else "%o"
        res_types = o.type() + (", " + self.lse.type() if self.training else "")
        lines = [
            "func.func @%s(%s)" % (name, ", ".join(args)),
            "    -> (%s) {" % ", ".join(results),
            "  %s = tg.attention %%q, %%k, %%v%s %s" % (res_names, self._optional_operands(),
                                                       self.attributes(self.training)),
            "      : %s, %s, %s -> %s" % (q.type(), k.type(), v.type(), res_types),
            "      score " + self.region(self.score),
            "  return %s : %s" % (res_names, res_types),
            "}",
        ]
        return "\n".join(lines) + "\n"

    def backward_text(self, d_o, dq, dk, dv, name="tgc_attention_bwd"):
        """d_o: TensorSpec of the incoming gradient; dq/dk/dv: the layouts to write;
        the gradients of grad_captures follow as results "dc<i>" (capture i)."""
        q, k, v, o, lse = self.q, self.k, self.v, self.o, self.lse
        args = ["%%q: %s %s" % (q.type(), q.attrs("q")), "%%k: %s %s" % (k.type(), k.attrs("k")),
                "%%v: %s %s" % (v.type(), v.attrs("v")), "%%o: %s %s" % (o.type(), o.attrs("o")),
                "%%do: %s %s" % (d_o.type(), d_o.attrs("do")), "%%lse: %s %s" % (lse.type(), lse.attrs("lse"))]
        args += self._optional_arguments()
        results = ["%s %s" % (dq.type(), dq.attrs("dq")), "%s %s" % (dk.type(), dk.attrs("dk")),
                   "%s %s" % (dv.type(), dv.attrs("dv"))]
        cgrads = self.capture_grad_specs()
        results += ["%s %s" % (g.type(), g.attrs("dc%d" % i)) for i, g in cgrads]
        names = "%dq, %dk, %dv" + "".join(", %%dc%d" % i for i, _ in cgrads)
        types = ", ".join([dq.type(), dk.type(), dv.type()] + [g.type() for _, g in cgrads])
        lines = [
            "func.func @%s(%s)" % (name, ", ".join(args)),
            "    -> (%s) {" % ", ".join(results),
            "  %s = tg.attention_grad %%q, %%k, %%v, %%o, %%do, %%lse%s %s" % (
                names, self._optional_operands(), self.attributes(False, self.grad_captures)),
            "      : %s, %s, %s, %s, %s, %s" % (q.type(), k.type(), v.type(), o.type(), d_o.type(), lse.type()),
            "      score " + self.region(self.score),
            "      score_grad " + self.region(self.score_grad_root(), with_dz=True) + (
                " capture_grads(%s)" % ", ".join(g.type() for _, g in cgrads) if cgrads else ""),
            "  return %s : %s" % (names, types),
            "}",
        ]
        return "\n".join(lines) + "\n"


def _f64(x):
    return "%.17e" % x
