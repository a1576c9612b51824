"""tgc.hf without transformers (not installed here): the mask-pattern check
that decides whether a mask is materialised, and how model arguments map onto
tgc.torch.attention (checked through the graphs they produce)."""
import unittest

from tgc_testing import torch  # noqa: F401
from tgc import hf
import tgc.torch as tt


def causal(b, h, q, kv):
    return kv <= q


def overlay(w):
    return lambda b, h, q, kv: kv > q - w


def and_masks(*fns):
    def m(b, h, q, kv):
        r = q.new_ones((), dtype=torch.bool)
        for f in fns:
            r = r & f(b, h, q, kv)
        return r
    return m


class MaskPatterns(unittest.TestCase):
    def test_attribute_patterns(self):
        self.assertTrue(hf._is_attribute_pattern(causal, 16, 16))
        self.assertTrue(hf._is_attribute_pattern(and_masks(overlay(4), causal), 16, 16))
        self.assertTrue(hf._is_attribute_pattern(lambda b, h, q, kv: q.new_ones((), dtype=torch.bool), 16, 16))

    def test_patterns_that_need_a_mask(self):
        pad = torch.ones(2, 16, dtype=torch.bool)
        self.assertFalse(hf._is_attribute_pattern(and_masks(causal, lambda b, h, q, kv: pad[b, kv]), 16, 16))
        self.assertFalse(hf._is_attribute_pattern(lambda b, h, q, kv: (kv - q).abs() < 3, 16, 16))
        ids = torch.zeros(2, 16, dtype=torch.int64)
        self.assertFalse(hf._is_attribute_pattern(lambda b, h, q, kv: ids[b, q] == ids[b, kv], 16, 16))
        self.assertFalse(hf._is_attribute_pattern(lambda b, h, q, kv: q.item() > 0, 16, 16))

    def test_mask_mods_the_forward_uses(self):
        q = torch.randn(1, 4, 16, 8)
        k = torch.randn(1, 2, 16, 8)
        text = tt.graphs(q, k, k, enable_gqa=True, mask_mod=hf._causal(0, 4), score_mod=hf._softcap(50.0),
                         training=False)["forward"]
        self.assertIn("causal = #tg<causal top_left>", text)
        self.assertIn("window_left = 3 : i64", text)
        self.assertIn("tg.tanh", text)
        k2 = torch.randn(1, 2, 24, 8)
        text = tt.graphs(q, k2, k2, enable_gqa=True, mask_mod=hf._causal(8, None), training=False)["forward"]
        self.assertIn("causal = #tg<causal bottom_right>", text)

    def test_register_without_transformers(self):
        try:
            import transformers  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "needs transformers >= 4.48"):
                hf.register()
        else:
            self.assertEqual(hf.register(), "tgc")


if __name__ == "__main__":
    unittest.main()
