"""Tracing score_mods and mask_mods into tg text (golden checks), the masks
lifted into attributes, and what an untraceable callable is told."""
import math
import re
import unittest

from tgc_testing import torch  # noqa: F401  (sets up sys.path)
import tgc
import tgc.torch as tt
from tgc import trace as T

Q = torch.randn(2, 4, 16, 8)
K = torch.randn(2, 4, 16, 8)


def fwd(score_mod=None, mask_mod=None, **kw):
    return tt.graphs(Q, K, K, score_mod=score_mod, mask_mod=mask_mod, training=False, **kw)["forward"]


def region(text, which="score"):
    m = re.search(r"\b%s \{\n(.*?)\n  \}" % which, text, re.S)
    return m.group(1) if m else ""


def attrs(text):
    return re.search(r"tg\.attention %q, %k, %v[^{]*(\{[^}]*\})", text).group(1)


class Golden(unittest.TestCase):
    def test_identity(self):
        t = fwd()
        self.assertIn("tg.yield %s : tensor<f32>", t)
        self.assertRegex(attrs(t), r"^\{scale = 3\.5355339059327\d+e-01 : f64\}$")

    def test_softcap(self):
        t = region(fwd(lambda s, b, h, q, kv: 30.0 * torch.tanh(s / 30.0)))
        self.assertEqual(t.split("\n")[1:], [
            "    %v1 = tg.constant dense<3.000000000e+01> : tensor<f32>",
            "    %v2 = tg.div %s, %v1 : tensor<f32>, tensor<f32>",
            "    %v3 = tg.tanh %v2 : tensor<f32>",
            "    %v4 = tg.mul %v1, %v3 : tensor<f32>, tensor<f32>",
            "    tg.yield %v4 : tensor<f32>"])

    def test_alibi_capture(self):
        slopes = torch.rand(4)
        t = fwd(lambda s, b, h, q, kv: s + slopes[h] * (kv - q))
        self.assertIn("captures(%c0 : tensor<1x4x1x1xf32>)", t)
        self.assertIn('%c0: tensor<1x4x1x1xf32> {tg.name = "c0"}', t)
        body = region(t)
        self.assertIn("%e0: tensor<f32>", body)
        self.assertIn("tg.sub %ki, %qi : tensor<i64>, tensor<i64>", body)
        self.assertIn("tg.cast %v1 : tensor<i64> to tensor<f32>", body)
        self.assertIn("tg.mul %e0, %v2", body)

    def test_capture_views_keep_strides(self):
        table = torch.randn(16, 4, 32)  # [q, h, max_kv], read as [1, 4, 16, 16] without a copy
        t = fwd(lambda s, b, h, q, kv: s + table[q, h, kv])
        self.assertIn('%c0: tensor<1x4x16x16xf32> {tg.name = "c0", tg.strides = array<i64: 1, 32, 128, 1>}', t)

    def test_bf16_capture_is_widened(self):
        bias = torch.randn(4, 16, 16).bfloat16()
        body = region(fwd(lambda s, b, h, q, kv: s + bias[h, q, kv]))
        self.assertIn("%e0: tensor<bf16>", body)
        self.assertIn("tg.cast %e0 : tensor<bf16> to tensor<f32>", body)

    def test_computed_index_is_a_gather(self):
        # A relative-position table read at q - kv + 15: the whole table is a
        # table capture, the index region math, negative values counted from
        # the end as torch does.
        table = torch.randn(4, 31)
        t = fwd(lambda s, b, h, q, kv: s + table[h, q - kv + 15])
        self.assertIn("captures(%c0 : tensor<4x31xf32>)", t)
        body = region(t)
        self.assertIn("%e0: tensor<4x31xf32>", body)
        self.assertEqual(body.split("\n")[1:], [
            "    %v1 = tg.sub %qi, %ki : tensor<i64>, tensor<i64>",
            "    %v2 = tg.constant dense<15> : tensor<i64>",
            "    %v3 = tg.add %v1, %v2 : tensor<i64>, tensor<i64>",
            "    %v4 = tg.constant dense<0> : tensor<i64>",
            "    %v5 = tg.cmp lt, %v3, %v4 : tensor<i64>, tensor<i64>",
            "    %v6 = tg.constant dense<31> : tensor<i64>",
            "    %v7 = tg.add %v3, %v6 : tensor<i64>, tensor<i64>",
            "    %v8 = tg.select %v5, %v7, %v3 : tensor<i1>, tensor<i64>, tensor<i64>",
            "    %v9 = tg.gather %e0[%h, %v8] : tensor<4x31xf32>[tensor<i64>, tensor<i64>]",
            "    %v10 = tg.add %s, %v9 : tensor<f32>, tensor<f32>",
            "    tg.yield %v10 : tensor<f32>"])

    def test_gather_of_gathered_ids_and_repeated_index(self):
        # A bucket table read at a looked-up bucket, and a tensor indexed
        # twice by q_idx (not a view at the score's position): both gathers.
        buckets = torch.randint(0, 8, (16, 16))
        emb = torch.randn(8, 4)
        diag = torch.randn(16, 16)
        t = fwd(lambda s, b, h, q, kv: s + emb[buckets[q, kv], h] + diag[q, q])
        self.assertIn("captures(%c0, %c1, %c2 : tensor<1x1x16x16xi64>, tensor<8x4xf32>, tensor<16x16xf32>)", t)
        body = region(t)
        self.assertRegex(body, r"tg\.gather %e1\[%v\d+, %h\] : tensor<8x4xf32>\[tensor<i64>, tensor<i64>\]")
        self.assertIn("tg.gather %e2[%qi, %qi] : tensor<16x16xf32>[tensor<i64>, tensor<i64>]", body)

    def test_same_capture_once(self):
        bias = torch.randn(4)
        t = fwd(lambda s, b, h, q, kv: s + bias[h] + bias[h] * 2)
        self.assertEqual(t.count("tensor<1x4x1x1xf32> {tg.name"), 1)

    def test_cpu_scalar_tensor_is_constant(self):
        body = region(fwd(lambda s, b, h, q, kv: s * torch.tensor(0.5)))
        self.assertIn("tg.constant dense<5.000000000e-01>", body)

    def test_where_mask_at_the_end_is_lifted(self):
        t = fwd(lambda s, b, h, q, kv: torch.where(q >= kv, s * 2.0, float("-inf")))
        self.assertIn("causal = #tg<causal top_left>", attrs(t))
        self.assertNotIn("tg.select", region(t))

    def test_floor_div_and_mod(self):
        body = region(fwd(mask_mod=lambda b, h, q, kv: (q // 4) == (kv // 4)))
        self.assertIn("tg.div", body)
        self.assertIn("tg.select", body)
        body = region(fwd(mask_mod=lambda b, h, q, kv: (kv - q) % 2 == 0))
        self.assertIn("tg.mul", body)

    def test_boolean_values_as_numbers(self):
        body = region(fwd(lambda s, b, h, q, kv: s + (q > kv) * 1.5))
        self.assertIn("tg.cast %v1 : tensor<i1> to tensor<f32>", body)

    def test_conjunctions_become_nested_selects(self):
        body = region(fwd(mask_mod=lambda b, h, q, kv: ((q - kv) % 3 == 0) & ((q + kv) % 2 == 0)))
        self.assertEqual(body.count("tg.select"), 4)  # a floor-mod sign fix each, then one select per factor
        self.assertNotIn("dense<false>", body)

    def test_hf_style_mask_helpers(self):
        # Mask functions written as transformers writes them (new_ones, &, .to(device)).
        def causal(b, h, q, kv):
            return kv <= q

        def window(w):
            return lambda b, h, q, kv: kv > q - w

        def and_masks(*fns):
            def m(b, h, q, kv):
                r = q.new_ones((), dtype=torch.bool)
                for f in fns:
                    r = r & f(b, h, q, kv).to(r.device)
                return r
            return m
        t = fwd(mask_mod=and_masks(window(5), causal))
        self.assertIn("causal = #tg<causal top_left>", attrs(t))
        self.assertIn("window_left = 4 : i64", attrs(t))


class Lifting(unittest.TestCase):
    def lifted(self, mask_mod, q=Q, k=K):
        t = tt.graphs(q, k, k, mask_mod=mask_mod, training=False)["forward"]
        return attrs(t), region(t), t

    def test_causal(self):
        a, body, _ = self.lifted(lambda b, h, q, kv: q >= kv)
        self.assertIn("causal = #tg<causal top_left>", a)
        self.assertNotIn("tg.cmp", body)

    def test_two_sided_window(self):
        a, body, _ = self.lifted(lambda b, h, q, kv: (kv - q <= 2) & (q - kv <= 3))
        self.assertNotIn("causal", a)
        self.assertIn("window_left = 3 : i64", a)
        self.assertIn("window_right = 2 : i64", a)

    def test_scaled_and_strict_comparisons(self):
        a, _, _ = self.lifted(lambda b, h, q, kv: 2 * q - 2 * kv < 7)  # d > -3.5  ->  d >= -3
        self.assertIn("window_left = 3 : i64", a)

    def test_bottom_right(self):
        k = torch.randn(2, 4, 24, 8)
        a, _, _ = self.lifted(lambda b, h, q, kv: kv <= q + 8, k=k)
        self.assertIn("causal = #tg<causal bottom_right>", a)

    def test_padding(self):
        lengths = torch.tensor([16, 9], dtype=torch.int32)
        a, body, t = self.lifted(lambda b, h, q, kv: (kv < lengths[b]) & (q >= kv))
        self.assertIn("seq_len_kv(%seq_len_kv : tensor<2xi32>)", t)
        self.assertIn("causal = #tg<causal top_left>", a)
        self.assertNotIn("tg.cmp", body)

    def test_what_stays_in_the_region(self):
        doc = torch.zeros(2, 16, dtype=torch.int64)
        for name, m in (("document", lambda b, h, q, kv: doc[b, q] == doc[b, kv]),
                        ("or", lambda b, h, q, kv: (kv <= q) | (kv < 4)),
                        ("off-diagonal band", lambda b, h, q, kv: q - kv > 2),
                        ("head-dependent", lambda b, h, q, kv: kv <= q + h)):
            with self.subTest(name):
                a, body, _ = self.lifted(m)
                self.assertNotIn("causal", a)
                self.assertNotIn("window", a)
                self.assertIn("tg.select", body)
                self.assertIn("0xFF800000", body)

    def test_is_causal_with_window_mask(self):
        t = tt.graphs(Q, K, K, is_causal=True, mask_mod=lambda b, h, q, kv: (kv - q).abs() <= 3,
                      training=False)["forward"]
        self.assertIn("causal = #tg<causal top_left>", attrs(t))


class Untraceable(unittest.TestCase):
    def error(self, fn, kind="score_mod"):
        with self.assertRaises(tgc.TraceError) as cm:
            fwd(fn) if kind == "score_mod" else fwd(mask_mod=fn)
        return str(cm.exception)

    def test_branch(self):
        def f(s, b, h, q, kv):
            if s > 0:
                return s
            return -s
        msg = self.error(f)
        self.assertIn("branching on a traced value", msg)
        self.assertIn("test_trace.py:%d: if s > 0:" % (f.__code__.co_firstlineno + 1), msg)

    def test_math_module(self):
        self.assertIn("use torch.tanh", self.error(lambda s, b, h, q, kv: math.tanh(s)))

    def test_unsupported_torch_function(self):
        self.assertIn("torch.erf is not traceable", self.error(lambda s, b, h, q, kv: torch.erf(s)))

    def test_float_index(self):
        table = torch.randn(64)
        msg = self.error(lambda s, b, h, q, kv: s + table[s.long() * 0 + kv * 0.5])
        self.assertIn("indexed with a float value", msg)
        self.assertIn("use .long()", msg)

    def test_constant_index_out_of_range(self):
        table = torch.randn(4, 64)
        msg = self.error(lambda s, b, h, q, kv: s + table[7, kv - q])
        self.assertIn("index 7 is out of range for dimension 0 (size 4)", msg)

    def test_unindexed_tensor(self):
        bias = torch.randn(4, 16, 16)
        self.assertIn("used without indexing", self.error(lambda s, b, h, q, kv: s + bias))

    def test_partial_index(self):
        bias = torch.randn(4, 16, 16)
        self.assertIn("indexed with 1 indices", self.error(lambda s, b, h, q, kv: s + bias[h]))

    def test_item(self):
        self.assertIn(".item()", self.error(lambda s, b, h, q, kv: s + q.item()))

    def test_mask_returning_float(self):
        self.assertIn("expected a boolean", self.error(lambda b, h, q, kv: q * 1.0, "mask_mod"))

    def test_score_returning_bool(self):
        self.assertIn("a mask belongs in mask_mod", self.error(lambda s, b, h, q, kv: q >= kv))

    def test_bitwise_on_ints(self):
        self.assertIn("no bitwise integer ops", self.error(lambda b, h, q, kv: (q & kv) == 0, "mask_mod"))

    def test_float_floor_div(self):
        self.assertIn("floor", self.error(lambda s, b, h, q, kv: s // 2))


if __name__ == "__main__":
    unittest.main()
