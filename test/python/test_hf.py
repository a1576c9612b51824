"""tgc.hf without transformers (not installed here): the mask-pattern check
that decides whether a mask is materialised, and how model arguments map onto
tgc.torch.attention (checked through the graphs they produce)."""
import sys
import types
import unittest
from unittest import mock

from tgc_testing import torch  # noqa: F401
from tgc import hf
import tgc.torch as tt


def causal(b, h, q, kv):
    return kv <= q


def overlay(w):
    return lambda b, h, q, kv: kv > q - w


def and_masks(*fns):
    # as transformers' masking_utils.and_masks writes it
    def m(b, h, q, kv):
        r = q.new_ones((), dtype=torch.bool)
        for f in fns:
            r = r & f(b, h, q, kv).to(r.device)
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


class FakeMaskingUtils:
    """transformers.masking_utils with a stand-in sdpa_mask of one version's
    signature that records its arguments and returns a marker tensor."""

    def __init__(self, sdpa_mask):
        self.calls = []
        self.result = torch.ones(1, dtype=torch.bool)
        calls, result = self.calls, self.result

        def recorded(*args, **kwargs):
            calls.append((args, kwargs))
            return result
        # the version's signature, as inspect sees it
        recorded.__signature__ = __import__("inspect").signature(sdpa_mask)
        module = types.ModuleType("transformers.masking_utils")
        module.sdpa_mask = recorded
        package = types.ModuleType("transformers")
        package.masking_utils = module
        self.patch = mock.patch.dict(sys.modules, {"transformers": package, "transformers.masking_utils": module})

    def __enter__(self):
        self.patch.start()
        return self

    def __exit__(self, *exc):
        self.patch.stop()


def sdpa_mask_5(batch_size, q_length, kv_length, q_offset=0, kv_offset=0, mask_function=None, attention_mask=None,
                local_size=None, allow_is_causal_skip=True, allow_is_bidirectional_skip=False, allow_torch_fix=True,
                use_vmap=False, device="cpu", **kwargs):
    """transformers 5.17's masking_utils.sdpa_mask signature."""


def sdpa_mask_4(batch_size, cache_position, kv_length, kv_offset=0, mask_function=None, attention_mask=None,
                local_size=None, allow_is_causal_skip=True, **kwargs):
    """transformers 4.5x's masking_utils.sdpa_mask signature."""


class MaskFunction(unittest.TestCase):
    """tgc.hf.mask_function called as create_causal_mask calls a mask interface
    (keywords), against both sdpa_mask signatures."""

    def test_transformers_5_arguments(self):
        window = and_masks(causal, overlay(4))
        pad = torch.ones(2, 16, dtype=torch.bool)
        common = dict(batch_size=2, q_length=16, kv_length=16, q_offset=0, kv_offset=0, allow_is_causal_skip=True,
                      dtype=torch.bfloat16, config=None, use_vmap=False, device="cpu")
        with FakeMaskingUtils(sdpa_mask_5) as tf:
            self.assertIsNone(hf.mask_function(mask_function=causal, attention_mask=None, **common))
            self.assertIsNone(hf.mask_function(mask_function=window, attention_mask=None, **common))
            self.assertEqual(tf.calls, [])  # attribute masks: nothing materialised
            self.assertIs(hf.mask_function(mask_function=causal, attention_mask=pad, **common), tf.result)
            args, kw = tf.calls[-1]
            self.assertEqual(args, ())
            self.assertEqual(kw, dict(batch_size=2, q_length=16, kv_length=16, q_offset=0, kv_offset=0,
                                      mask_function=causal, attention_mask=pad, allow_is_causal_skip=False,
                                      dtype=torch.bfloat16, config=None, use_vmap=False, device="cpu"))
            ids = torch.zeros(2, 16, dtype=torch.int64)
            doc = and_masks(causal, lambda b, h, q, kv: ids[b, q] == ids[b, kv])
            hf.mask_function(mask_function=doc, attention_mask=None, **common)
            self.assertIs(tf.calls[-1][1]["mask_function"], doc)
            # A query offset (a cache) is not the attribute pattern of position 0.
            hf.mask_function(mask_function=causal, attention_mask=None, **dict(common, q_offset=8, kv_length=24))
            self.assertEqual((tf.calls[-1][1]["q_offset"], tf.calls[-1][1]["kv_length"]), (8, 24))
            self.assertEqual(len(tf.calls), 3)

    def test_transformers_4_arguments(self):
        pad = torch.ones(2, 16, dtype=torch.bool)
        common = dict(batch_size=2, cache_position=torch.arange(16), kv_length=16, kv_offset=0,
                      allow_is_causal_skip=True, dtype=torch.float32, config=None)
        with FakeMaskingUtils(sdpa_mask_4) as tf:
            self.assertIsNone(hf.mask_function(mask_function=causal, attention_mask=None, **common))
            hf.mask_function(mask_function=causal, attention_mask=pad, **common)
            args, kw = tf.calls[-1]
            self.assertNotIn("q_length", kw)
            self.assertNotIn("q_offset", kw)
            self.assertTrue(torch.equal(kw["cache_position"], torch.arange(16)))
            self.assertEqual((kw["kv_length"], kw["allow_is_causal_skip"], kw["dtype"]), (16, False, torch.float32))

    def test_missing_lengths(self):
        with FakeMaskingUtils(sdpa_mask_5):
            with self.assertRaisesRegex(TypeError, "needs q_length \\(transformers 5\\) or cache_position"):
                hf.mask_function(batch_size=1, kv_length=4, mask_function=causal)


if __name__ == "__main__":
    unittest.main()
