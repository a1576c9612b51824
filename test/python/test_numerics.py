"""Every traced form through the real compiler: the generated forward and
backward graphs are compiled by libtgc (tgc_compile_string) and run on tgc's
CPU reference interpreter (tg-run --ref), and their outputs and gradients are
compared with a float64 torch reference of the same attention (torch autograd
for the gradients)."""
import math
import unittest

from tgc_testing import BIN, max_err, operand_arrays, reference, run_ref, torch  # noqa: F401
import tgc
import tgc.torch as tt

TOL = 2e-5  # f32 inputs; the interpreter computes in float64 and rounds once


def make(B=2, H=4, Hkv=2, Sq=16, Skv=24, D=16, bshd=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    if bshd:
        q = torch.randn(B, Sq, H, D, generator=g).transpose(1, 2)
    else:
        q = torch.randn(B, H, Sq, D, generator=g)
    k = torch.randn(B, Hkv, Skv, D, generator=g)
    v = torch.randn(B, Hkv, Skv, D, generator=g)
    return q, k, v


class Numerics(unittest.TestCase):
    lib = None

    @classmethod
    def setUpClass(cls):
        cls.lib = tgc.Library()

    def check(self, q, k, v, backward=True, **kw):
        g = tt.graphs(q, k, v, enable_gqa=q.shape[1] != k.shape[1], training=backward, **kw)
        # The real compiler accepts both graphs (MLIR pipeline + plan lowering, no GPU).
        self.lib.compile(g["forward"]).destroy()
        if backward:
            self.lib.compile(g["backward"]).destroy()
        ins = {"q": q, "k": k, "v": v}
        ins.update(operand_arrays(g, kw.get("attn_mask")))
        outs = ["o", "lse"] if backward else ["o"]
        got = run_ref(g["forward"], ins, outs)
        ref_kw = {n: kw[n] for n in ("score_mod", "mask_mod", "scale", "attn_mask", "is_causal") if n in kw}
        qq, kk, vv = (t.detach().double().requires_grad_() for t in (q, k, v))
        ro, rl = reference(qq, kk, vv, **ref_kw)
        self.assertLess(max_err(got["o"], ro), TOL, "output")
        if not backward:
            return g
        self.assertLess(max_err(got["lse"].squeeze(-1), rl), TOL, "lse")
        do = torch.randn(ro.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
        ro.backward(do)
        bins = dict(ins, o=ro.detach(), do=do, lse=rl.detach().unsqueeze(-1))
        grads = run_ref(g["backward"], bins, ["dq", "dk", "dv"])
        for name, ref in (("dq", qq.grad), ("dk", kk.grad), ("dv", vv.grad)):
            scale = max(1.0, ref.abs().max().item())
            self.assertLess(max_err(grads[name], ref) / scale, TOL, name)
        return g

    def check_capture_grads(self, q, k, v, learnable, **kw):
        """The backward's capture gradients (grad_captures) against torch
        autograd of the float64 reference: `learnable` are the tensors that
        require grad (attn_mask and/or ones the score_mod closes over)."""
        g = tt.graphs(q, k, v, enable_gqa=q.shape[1] != k.shape[1], **kw)
        self.assertIn("grad_captures = array<i64:", g["backward"])
        # The real compiler accepts the backward for the GPU: table gradients
        # only on the fused NVRTC backward, which takes bf16/f16 q, k, v.
        g16 = tt.graphs(*(t.bfloat16() for t in (q, k, v)), enable_gqa=q.shape[1] != k.shape[1], **kw)
        self.lib.compile(g16["backward"], "--arch=sm_90a").destroy()
        if not any(op.spec.table for op in g["operands"] if op.grad is not None):
            self.lib.compile(g["backward"]).destroy()  # f32: the expansion into tg ops
        ins = {"q": q, "k": k, "v": v}
        ins.update({n: t.detach() for n, t in operand_arrays(g, kw.get("attn_mask")).items()})
        for t in learnable:
            t.grad = None
        ref_kw = {n: kw[n] for n in ("score_mod", "mask_mod", "scale", "attn_mask", "is_causal") if n in kw}
        ro, rl = reference(q.double(), k.double(), v.double(), **ref_kw)
        do = torch.randn(ro.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
        ro.backward(do)
        grad_ops = [op for op in g["operands"] if op.grad is not None]
        names = ["dc%d" % op.grad.index for op in grad_ops]
        got = run_ref(g["backward"], dict(ins, o=ro.detach(), do=do, lse=rl.detach().unsqueeze(-1)), names)
        per_source = {}
        for op, name in zip(grad_ops, names):
            d = op.grad.to_source(got[name])
            key = id(op.grad.source)
            per_source[key] = d if key not in per_source else per_source[key] + d
        self.assertEqual(sorted(per_source), sorted(id(t) for t in learnable))
        for t in learnable:
            d = per_source[id(t)]
            self.assertEqual(tuple(d.shape), tuple(t.shape))
            self.assertEqual(d.dtype, t.dtype)
            scale = max(1.0, t.grad.abs().max().item())
            self.assertGreater(t.grad.abs().max().item(), 0.0)  # a gradient that is all zeros proves nothing
            self.assertLess(max_err(d, t.grad) / scale, TOL, "gradient of %s" % list(t.shape))
        return g

    def test_learnable_attn_mask(self):
        q, k, v = make()
        gen = torch.Generator().manual_seed(11)
        for shape in ((2, 4, 16, 24), (1, 4, 16, 24), (16, 24), (4, 1, 24)):
            with self.subTest(shape=shape):
                bias = torch.randn(*shape, generator=gen).requires_grad_()
                self.check_capture_grads(q, k, v, [bias], attn_mask=bias)

    def test_learnable_score_mod_bias(self):
        q, k, v = make()
        gen = torch.Generator().manual_seed(12)
        rel = torch.randn(4, 16, 24, generator=gen).requires_grad_()
        self.check_capture_grads(q, k, v, [rel], score_mod=lambda s, b, h, qi, kv: s + rel[h, qi, kv])
        # Integer-indexed, longer than the scores, and read twice (summed).
        big = torch.randn(3, 4, 20, 30, generator=gen).requires_grad_()
        self.check_capture_grads(q, k, v, [big],
                                 score_mod=lambda s, b, h, qi, kv: s + big[1, h, qi, kv] - 0.5 * big[2, h, qi, kv])
        # Through a non-additive score_mod (softcap of the biased score) and causal.
        slopes = torch.rand(4, generator=gen).requires_grad_()
        self.check_capture_grads(q, k, v, [slopes], is_causal=True,
                                 score_mod=lambda s, b, h, qi, kv: 8 * torch.tanh((s + slopes[h] * (kv - qi)) / 8))

    def test_learnable_tables(self):
        q, k, v = make()
        gen = torch.Generator().manual_seed(13)
        rel = torch.randn(4, 47, generator=gen).requires_grad_()
        self.check_capture_grads(q, k, v, [rel], score_mod=lambda s, b, h, qi, kv: s + rel[h, qi - kv + 23])

        def bucket(r):  # T5's relative-position buckets (bidirectional, 16 buckets, max distance 24)
            n = torch.abs(r)
            large = 4 + (torch.log(n.float() / 4) / math.log(24 / 4) * 4).to(torch.int64)
            large = torch.where(large > 7, 7, large)
            return (r > 0).to(torch.int64) * 8 + torch.where(n < 4, n, large)
        emb = torch.randn(16, 4, generator=gen).requires_grad_()
        mask = torch.rand(2, 1, 16, 24, generator=gen).requires_grad_()
        # A T5 table and a learnable mask together: two capture gradients.
        self.check_capture_grads(q, k, v, [emb, mask], score_mod=lambda s, b, h, qi, kv: s + emb[bucket(kv - qi), h],
                                 attn_mask=mask)

    def test_table_gradient_errors_name_the_cause(self):
        q, k, v = (t.bfloat16() for t in make(H=4, Hkv=4))
        rel = torch.randn(4, 47).requires_grad_()
        g = tt.graphs(q, k, v, score_mod=lambda s, b, h, qi, kv: s + rel[h, qi - kv + 23])
        with self.assertRaisesRegex(tgc.TgcCompileError, "the deterministic backward cannot add the gradient of "
                                                         "table capture 0"):
            self.lib.compile(g["backward"], "--arch=sm_90a --deterministic")
        g32 = tt.graphs(*make(H=4, Hkv=4), score_mod=lambda s, b, h, qi, kv: s + rel[h, qi - kv + 23])
        with self.assertRaisesRegex(tgc.TgcCompileError, "returns the gradient of table capture 0 .*the fused "
                                                         "backward takes bf16 or f16 tensors, got f32"):
            self.lib.compile(g32["backward"], "--arch=sm_90a")

    def test_plain(self):
        self.check(*make())

    def test_causal_bshd_layout(self):
        g = self.check(*make(Sq=24, bshd=True), is_causal=True)
        self.assertIn("tg.strides", g["forward"])

    def test_scale(self):
        self.check(*make(), scale=0.3)

    def test_softcap(self):
        self.check(*make(), score_mod=lambda s, b, h, q, kv: 5.0 * torch.tanh(s / 5.0))

    def test_alibi(self):
        slopes = torch.tensor([2.0 ** (-(i + 1)) for i in range(4)])
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s + slopes[h] * (kv - q))

    def test_relative_bias_table(self):
        bias = torch.randn(4, 16, 24)
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s + bias[h, q, kv])

    def test_gathered_tables(self):
        # Relative positions (negative values counted from the end, as torch
        # indexing does), T5's buckets with an embedding, document ids.
        rel = torch.randn(4, 47)
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s + rel[h, q - kv + 23])
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s + rel[h, kv - q])

        def bucket(r):
            n = torch.abs(r)
            large = 4 + (torch.log(n.float() / 4) / math.log(24 / 4) * 4).to(torch.int64)
            large = torch.where(large > 7, 7, large)
            return (r > 0).to(torch.int64) * 8 + torch.where(n < 4, n, large)
        emb = torch.randn(16, 4)
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s + emb[bucket(kv - q), h])
        doc = torch.tensor([[0] * 5 + [1] * 11 + [2] * 8, [3] * 24])
        self.check(*make(), mask_mod=lambda b, h, q, kv: doc[b, q] == doc[b, kv + 0], is_causal=True)

    def test_batch_head_bias(self):
        bias = torch.randn(2, 4)
        self.check(*make(), score_mod=lambda s, b, h, q, kv: s * 0.5 + bias[b, h])

    def test_softcap_alibi_window(self):
        slopes = torch.rand(4)
        self.check(*make(Sq=24), score_mod=lambda s, b, h, q, kv: 20 * torch.tanh(s / 20) + slopes[h] * (kv - q),
                   mask_mod=lambda b, h, q, kv: (q >= kv) & (q - kv < 6))

    def test_nonlinear_score_mods(self):
        mods = [lambda s, b, h, q, kv: torch.sigmoid(s) * 3.0,
                lambda s, b, h, q, kv: torch.where(s > 0, s * 2.0, s * 0.5),
                lambda s, b, h, q, kv: torch.clamp(s, -1.0, 1.5) + s.abs() * 0.1,
                lambda s, b, h, q, kv: s ** 2 * 0.1 - torch.exp(s * 0.1),
                lambda s, b, h, q, kv: torch.maximum(s, s * 0.3) / (1.0 + (kv - q).abs())]
        for i, m in enumerate(mods):
            with self.subTest(mod=i):
                self.check(*make(seed=i), score_mod=m)

    def test_mask_forms(self):
        lengths = torch.tensor([20, 7])
        doc = torch.tensor([[0] * 10 + [1] * 14, [0] * 5 + [1] * 19])
        masks = {
            "causal": lambda b, h, q, kv: q >= kv,
            "sliding_hf": lambda b, h, q, kv: (kv <= q) & (kv > q - 4),
            "two_sided": lambda b, h, q, kv: (kv - q).abs() <= 3,
            "bottom_right": lambda b, h, q, kv: kv <= q + 8,
            "padding": lambda b, h, q, kv: kv < lengths[b],
            "padding_causal": lambda b, h, q, kv: (kv < lengths[b]) & (q >= kv),
            "document": lambda b, h, q, kv: doc[b, q] == doc[b, kv],
            "prefix_lm": lambda b, h, q, kv: (kv <= q) | (kv < 5),
            "dilated": lambda b, h, q, kv: (kv - q) % 2 == 0,
            "no_diagonal": lambda b, h, q, kv: q - kv > 2,
        }
        for name, m in masks.items():
            with self.subTest(mask=name):
                if name == "document":
                    self.check(*make(Sq=24, seed=3), mask_mod=m)
                else:
                    self.check(*make(seed=3), mask_mod=m)

    def test_attn_mask_bool_and_float(self):
        q, k, v = make()
        g = torch.Generator().manual_seed(5)
        keep = torch.rand(2, 1, 16, 24, generator=g) > 0.3
        self.check(q, k, v, attn_mask=keep)
        self.check(q, k, v, attn_mask=torch.randn(16, 24, generator=g))
        self.check(q, k, v, attn_mask=torch.randn(1, 4, 1, 24, generator=g).expand(2, 4, 16, 24))

    def test_fully_masked_rows(self):
        # Rows past the padded length see nothing: zero output, -inf lse (tg's definition).
        lengths = torch.tensor([16, 5])
        self.check(*make(Sq=16, Skv=16), mask_mod=lambda b, h, q, kv: (q < lengths[b]) & (kv < lengths[b]))


if __name__ == "__main__":
    unittest.main()
