"""tgc.torch.attention's argument checks and their messages, the compile cache
(keys, sharing, what a warm call does), and autograd wiring, on CPU tensors
with the C run call stubbed (everything else is the real code path: tracing,
graph text, tgc_compile_string, binding arrays, output allocation)."""
import unittest

from tgc_testing import torch  # noqa: F401
import tgc
import tgc.torch as tt
from tgc import trace as T
from tgc.torch import front as A
from tgc.torch import plan as P
from tgc.torch import runtime as R


class StubbedRun:
    """CPU mode: arch sm_90a, stream 0, and Executable.run_array recording calls."""

    def __enter__(self):
        self.calls = []
        self.saved = (A.REQUIRE_CUDA, R.arch_for, R.current_stream, tgc.Executable.run_array)
        A.REQUIRE_CUDA = False
        R.arch_for = lambda device: "sm_90a"
        R.current_stream = lambda device: 0
        calls = self.calls

        def run_array(exe, array, count, stream, workspace=None, workspace_bytes=None):
            calls.append([(array[i].name.decode(), array[i].data) for i in range(count)])
        tgc.Executable.run_array = run_array
        tt.clear_cache()
        return self

    def __exit__(self, *exc):
        A.REQUIRE_CUDA, R.arch_for, R.current_stream, tgc.Executable.run_array = self.saved
        tt.clear_cache()


def qkv(B=2, H=4, Hkv=4, S=16, D=16, dtype=torch.float32):
    return (torch.randn(B, H, S, D, dtype=dtype), torch.randn(B, Hkv, S, D, dtype=dtype),
            torch.randn(B, Hkv, S, D, dtype=dtype))


class ArgumentChecks(unittest.TestCase):
    def err(self, exc, *args, **kw):
        with self.assertRaises(exc) as cm:
            tt.graphs(*args, **kw)
        return str(cm.exception)

    def test_cpu_tensors_need_cuda(self):
        q, k, v = qkv()
        with self.assertRaisesRegex(ValueError, "tgc runs on CUDA tensors; query is on cpu"):
            tt.attention(q, k, v)

    def test_rank(self):
        q, k, v = qkv()
        self.assertIn("query must be 4-D [B, H, S, D]; got shape [2, 4, 16, 16, 1]",
                      self.err(ValueError, q[..., None], k, v))

    def test_dtypes(self):
        q, k, v = qkv()
        self.assertIn("share one dtype", self.err(TypeError, q.half(), k, v))
        self.assertIn("share one dtype", self.err(TypeError, q.double(), k.double(), v.double()))

    def test_shapes(self):
        q, k, v = qkv()
        self.assertIn("head dims differ: 16 vs 8", self.err(ValueError, q, k[..., :8], v))
        self.assertIn("batch sizes differ", self.err(ValueError, q, k[:1], v[:1]))
        self.assertIn("same heads and sequence length", self.err(ValueError, q, k, v[:, :, :8]))

    def test_gqa_needs_enable_gqa(self):
        q, k, v = qkv(Hkv=2)
        self.assertIn("pass enable_gqa=True", self.err(ValueError, q, k, v))
        q3, k3, v3 = qkv(H=6, Hkv=4)
        self.assertIn("multiple of key/value heads (4)", self.err(ValueError, q3, k3, v3, enable_gqa=True))

    def test_options(self):
        q, k, v = qkv()
        self.assertIn("dropout_p must be in [0, 1)", self.err(ValueError, q, k, v, dropout_p=1.0))
        self.assertIn("cannot both be given", self.err(ValueError, q, k, v, attn_mask=torch.ones(16, 16, dtype=torch.bool),
                                                       is_causal=True))
        self.assertIn("scale must be finite", self.err(ValueError, q, k, v, scale=float("inf")))
        self.assertIn("score_mod must be callable", self.err(TypeError, q, k, v, score_mod=3))
        with self.assertRaisesRegex(ValueError, "backend must be one of auto, cudnn, nvrtc; got 'cuda'"):
            with StubbedRun():
                tt.attention(q, k, v, backend="cuda")

    def test_attn_mask(self):
        q, k, v = qkv()
        self.assertIn("does not broadcast to the attention scores [B, Hq, Sq, Skv] = [2, 4, 16, 16] (dim 2: 3)",
                      self.err(ValueError, q, k, v, attn_mask=torch.zeros(3, 16)))
        self.assertIn("must be bool", self.err(TypeError, q, k, v, attn_mask=torch.zeros(16, 16, dtype=torch.int32)))

    def test_learnable_attn_mask_requests_its_gradient(self):
        q, k, v = qkv()
        bias = torch.zeros(1, 4, 16, 16, requires_grad=True)
        g = tt.graphs(q, k, v, attn_mask=bias)
        self.assertIn("grad_captures = array<i64: 0>", g["backward"])
        self.assertIn("capture_grads(tensor<1x4x16x16xf32>)", g["backward"])
        self.assertIn('tensor<1x4x16x16xf32> {tg.name = "dc0"}', g["backward"])
        self.assertNotIn("grad_captures", g["forward"])
        # A mask that needs no gradient, or no autograd: dq, dk, dv only.
        self.assertNotIn("grad_captures", tt.graphs(q, k, v, attn_mask=bias.detach())["backward"])
        self.assertNotIn("backward", tt.graphs(q, k, v, attn_mask=bias, training=False))

    def test_learnable_capture_requests_its_gradient(self):
        q, k, v = qkv()
        rel_bias = torch.zeros(4, 16, 16, requires_grad=True)
        frozen = torch.zeros(4)
        g = tt.graphs(q, k, v, score_mod=lambda s, b, h, qi, ki: s + rel_bias[h, qi, ki] + frozen[h])
        # Only the capture that requires grad is listed (captures are numbered in region order).
        self.assertIn("grad_captures = array<i64: 0>", g["backward"])
        self.assertIn("capture_grads(tensor<1x4x16x16xf32>)", g["backward"])
        self.assertEqual([op.grad is not None for op in g["operands"]], [True, False])
        self.assertIs(g["operands"][0].grad.source, rel_bias)

    def test_learnable_table_requests_its_gradient(self):
        q, k, v = qkv()
        table = torch.zeros(4, 31, dtype=torch.bfloat16, requires_grad=True)
        g = tt.graphs(q, k, v, score_mod=lambda s, b, h, qi, ki: s + table[h, qi - ki + 15])
        self.assertIn("grad_captures = array<i64: 0>", g["backward"])
        self.assertIn("capture_grads(tensor<4x31xbf16>)", g["backward"])
        self.assertIn('tensor<4x31xbf16> {tg.name = "dc0"}', g["backward"])

    def test_mask_mod_captures_get_no_gradient(self):
        q, k, v = qkv()
        limit = torch.full((4,), 8.0, requires_grad=True)
        g = tt.graphs(q, k, v, mask_mod=lambda b, h, qi, ki: (qi - ki) < limit[h])
        self.assertNotIn("grad_captures", g["backward"])

    def test_expanded_learnable_tensors_are_refused(self):
        q, k, v = qkv()
        base = torch.zeros(1, 4, 1, 16, requires_grad=True)
        msg = self.err(ValueError, q, k, v, attn_mask=base.expand(2, 4, 16, 16))
        self.assertIn("attn_mask requires grad and has an expand()ed dim 0 (stride 0)", msg)
        self.assertIn("pass that tensor (size 1 in dim 0, broadcasting is implicit)", msg)
        rel = base.expand(1, 4, 16, 16)
        msg = self.err(ValueError, q, k, v, score_mod=lambda s, b, h, qi, ki: s + rel[0, h, qi, ki])
        self.assertIn("'rel' of shape [4, 16, 16] indexed [h, q_idx, kv_idx]", msg)
        self.assertIn("requires grad and has an expand()ed dim 1 (stride 0)", msg)
        # Without a gradient the expanded view is read in place as before.
        tt.graphs(q, k, v, attn_mask=base.detach().expand(2, 4, 16, 16))

    def test_expanded_table_is_refused(self):
        q, k, v = qkv()
        table = torch.zeros(1, 31).expand(4, 31)
        msg = self.err(ValueError, q, k, v, score_mod=lambda s, b, h, qi, ki: s + table[h, qi - ki + 15])
        self.assertIn("has a zero stride (an expand()ed view)", msg)

    def test_table_too_short(self):
        q, k, v = qkv()
        table = torch.zeros(8)
        self.assertIn("dim 0 (indexed by q_idx) has size 8 but q_idx ranges over 16",
                      self.err(ValueError, q, k, v, score_mod=lambda s, b, h, qi, ki: s + table[qi]))


class Cache(unittest.TestCase):
    def test_callable_keys(self):
        bias = torch.zeros(4)

        def make(c):
            return lambda s, b, h, q, kv: s * c + bias[h]
        k1, _ = T.callable_key(make(2.0))
        k2, _ = T.callable_key(make(2.0))
        k3, _ = T.callable_key(make(3.0))
        self.assertEqual(k1, k2)       # a lambda re-created with the same closure values
        self.assertNotEqual(k1, k3)    # a different constant is a different graph
        other = torch.zeros(4)
        k4, _ = T.callable_key(lambda s, b, h, q, kv: s * 2.0 + other[h])
        self.assertNotEqual(k1, k4)

    def test_warm_calls_reuse_the_plan(self):
        q, k, v = qkv()
        with StubbedRun() as run:
            o1 = tt.attention(q, k, v, is_causal=True)
            o2 = tt.attention(q, k, v, is_causal=True)
            info = tt.cache_info()
            self.assertEqual((info["plans"], info["compiles"]), (1, 1))
            self.assertEqual(len(run.calls), 2)
            names = [n for n, _ in run.calls[0]]
            self.assertEqual(names, ["q", "k", "v", "o"])
            self.assertEqual(run.calls[1][0][1], q.data_ptr())
            self.assertEqual(run.calls[1][3][1], o2.data_ptr())
            self.assertEqual(o1.shape, (2, 4, 16, 16))

    def test_key_parts(self):
        q, k, v = qkv()
        with StubbedRun():
            tt.attention(q, k, v)
            tt.attention(q, k, v, scale=0.5)                            # options
            tt.attention(q.transpose(1, 2).contiguous().transpose(1, 2), k, v)  # strides
            tt.attention(q[:, :, :8], k, v)                             # shapes
            tt.attention(q.half(), k.half(), v.half())                  # dtypes
            self.assertEqual(tt.cache_info()["plans"], 5)
            # Two callables that trace to the same graph share one executable.
            tt.attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s * 2.0)
            tt.attention(q, k, v, score_mod=lambda s, b, h, qi, ki: 2.0 * s + 0.0 * 1.0 - 0.0)
            info = tt.cache_info()
            self.assertEqual(info["plans"], 7)

    def test_output_follows_query_layout(self):
        q = torch.randn(2, 16, 4, 16).transpose(1, 2)  # [B,S,H,D] memory
        _, k, v = qkv()
        with StubbedRun():
            o = tt.attention(q, k, v)
            self.assertEqual(o.stride(), q.stride())
            self.assertTrue(o.transpose(1, 2).is_contiguous())

    def test_dropout_binds_seed_and_offset(self):
        q, k, v = qkv()
        with StubbedRun() as run:
            tt.attention(q, k, v, dropout_p=0.1)
            names = dict(run.calls[0])
            self.assertEqual(names["offset"] - names["seed"], 16)

    def test_return_lse_and_autograd_wiring(self):
        q, k, v = (t.requires_grad_() for t in qkv())
        with StubbedRun() as run:
            o, lse = tt.attention(q, k, v, return_lse=True)
            self.assertEqual(lse.shape, (2, 4, 16))
            self.assertTrue(o.requires_grad)
            o.sum().backward()  # runs the (stubbed) backward executable: dq, dk, dv bound
            names = [n for n, _ in run.calls[-1]]
            self.assertEqual(names, ["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv"])
            self.assertEqual(q.grad.shape, q.shape)
            o2, lse2 = tt.attention(q, k, v, return_lse=True)
            with self.assertRaisesRegex(NotImplementedError, "gradient through the log-sum-exp"):
                (o2.sum() + lse2.sum()).backward()

    def test_learnable_bias_key_and_gradients(self):
        # bf16: table gradients need the fused NVRTC backward (bf16/f16 q, k, v).
        q, k, v = (t.requires_grad_() for t in qkv(dtype=torch.bfloat16))
        rel = torch.randn(2, 4, 16, 16)
        table = torch.randn(4, 31)
        sm = lambda s, b, h, qi, ki: s + rel[1, h, qi, ki] + table[h, qi - ki + 15]  # noqa: E731
        mask = torch.randn(4, 1, 16)
        with StubbedRun() as run:
            tt.attention(q, k, v, score_mod=sm, attn_mask=mask).sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-3:], ["dq", "dk", "dv"])
            self.assertEqual(tt.cache_info()["plans"], 1)
            # requires_grad is part of the plan key: each combination a new plan and backward graph.
            rel.requires_grad_()
            tt.attention(q, k, v, score_mod=sm, attn_mask=mask).sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-4:], ["dq", "dk", "dv", "dc0"])
            self.assertEqual((rel.grad.shape, rel.grad.dtype), (rel.shape, rel.dtype))
            self.assertTrue((rel.grad[0] == 0).all())  # bias[1, ...] reads nothing of rel[0]
            table.requires_grad_()
            mask.requires_grad_()
            o = tt.attention(q, k, v, score_mod=sm, attn_mask=mask)
            self.assertEqual(tt.cache_info()["plans"], 3)
            o.sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-6:], ["dq", "dk", "dv", "dc0", "dc1", "dc2"])
            self.assertEqual(table.grad.shape, table.shape)
            self.assertEqual(mask.grad.shape, mask.shape)
            # Under no_grad the tensors are inputs only: the plan without gradients again.
            with torch.no_grad():
                tt.attention(q, k, v, score_mod=sm, attn_mask=mask)
            self.assertEqual(tt.cache_info()["plans"], 4)
            rel.requires_grad_(False)  # frozen: back to a plan without its gradient
            tt.attention(q, k, v, score_mod=sm, attn_mask=mask).sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-5:], ["dq", "dk", "dv", "dc1", "dc2"])
            self.assertEqual(tt.cache_info()["plans"], 5)

    def test_learnable_bias_with_frozen_qkv(self):
        q, k, v = qkv()  # no grad: only the bias learns
        bias = torch.zeros(4, 16, 16, requires_grad=True)
        with StubbedRun() as run:
            o = tt.attention(q, k, v, attn_mask=bias)
            self.assertTrue(o.requires_grad)
            o.sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-4:], ["dq", "dk", "dv", "dc0"])
            self.assertEqual(bias.grad.shape, bias.shape)
            self.assertIsNone(q.grad)

    def test_expanded_key_is_copied_with_a_warning(self):
        q, _, v = qkv()
        k = torch.randn(2, 1, 16, 16).expand(2, 4, 16, 16)
        with StubbedRun():
            with self.assertWarnsRegex(UserWarning, "key has a memory layout tg.strides cannot describe"):
                tt.attention(q, k, v)


HAS_CUSTOM_OP = hasattr(torch.library, "custom_op") and hasattr(torch, "compile")


def causal_window(b, h, q, kv):
    return (q >= kv) & (q - kv < 4)


class TorchLibrary(unittest.TestCase):
    @unittest.skipUnless(HAS_CUSTOM_OP, "torch.library.custom_op needs torch >= 2.4")
    def test_registered(self):
        from tgc.torch import ops
        self.assertTrue(ops.register())
        self.assertTrue(hasattr(torch.ops.tgc, "attention_fwd"))
        self.assertTrue(hasattr(torch.ops.tgc, "attention_bwd"))

    @unittest.skipUnless(HAS_CUSTOM_OP, "torch.compile needs torch >= 2.4 here")
    def test_assume_constant_marks_as_torch_does(self):
        # front._assume_constant sets what torch.compiler.assume_constant_result sets.
        fn = torch.compiler.assume_constant_result(lambda: 0)
        self.assertTrue(getattr(fn, "_dynamo_marked_constant", False))
        self.assertTrue(getattr(A.config_id, "_dynamo_marked_constant", False))

    def test_old_torch_is_reported(self):
        from tgc.torch import ops
        if not hasattr(torch.library, "custom_op"):
            self.assertFalse(ops.register())
            self.assertIn("torch >= 2.4", ops.unavailable_reason())


@unittest.skipUnless(HAS_CUSTOM_OP, "torch.compile with torch.library.custom_op needs torch >= 2.4")
class TorchCompile(unittest.TestCase):
    """torch.compile(fullgraph=True) over tgc.torch.attention on CPU tensors with
    the C run stubbed: one custom op in the graph, the plan found at run time,
    the backward through tgc::attention_bwd, fake strides equal to real ones."""

    def setUp(self):
        torch._dynamo.reset()

    def graphs_of(self, fn, *args, backend="eager"):
        graphs = []

        def record(gm, example_inputs):
            graphs.append(gm)
            return gm.forward
        out = torch.compile(fn, fullgraph=True, backend=record if backend == "record" else backend)(*args)
        return out, graphs

    def test_forward_is_one_custom_op(self):
        q, k, v = qkv(Hkv=2)
        with StubbedRun() as run:
            def f(q, k, v):
                return tt.attention(q, k, v, is_causal=True, enable_gqa=True, mask_mod=causal_window) * 2
            out, graphs = self.graphs_of(f, q, k, v, backend="record")
            self.assertEqual(len(graphs), 1)
            text = str(graphs[0].graph)
            self.assertEqual(text.count("tgc.attention_fwd"), 1, text)
            self.assertEqual(out.shape, (2, 4, 16, 16))
            self.assertEqual([n for n, _ in run.calls[-1]], ["q", "k", "v", "o"])
            self.assertEqual(run.calls[-1][0][1], q.data_ptr())
            # The plan the op ran is the eager call's: one plan, one compile.
            tt.attention(q, k, v, is_causal=True, enable_gqa=True, mask_mod=causal_window)
            info = tt.cache_info()
            self.assertEqual((info["plans"], info["compiles"]), (1, 1))

    def test_new_shape_finds_its_plan_at_run_time(self):
        with StubbedRun() as run:
            g = torch.compile(lambda q, k, v: tt.attention(q, k, v, is_causal=True), fullgraph=True,
                              backend="eager", dynamic=True)
            for S in (16, 24):
                q, k, v = qkv(S=S)
                self.assertEqual(g(q, k, v).shape, (2, 4, S, 16))
                self.assertEqual(run.calls[-1][0][1], q.data_ptr())
            self.assertEqual(tt.cache_info()["plans"], 2)

    def test_fake_outputs_match_the_real_ones(self):
        # torch.library.opcheck's fake-tensor check: shapes, strides and dtypes of
        # the fake implementations against the real ones (C run stubbed).
        _, k, v = qkv()
        layouts = {"bhsd": qkv()[0], "bshd": torch.randn(2, 16, 4, 16).transpose(1, 2),
                   "expanded (copied)": torch.randn(2, 1, 16, 16).expand(2, 4, 16, 16)}
        with StubbedRun():
            for name, q in layouts.items():
                for grad, dropout in ((False, 0.0), (True, 0.0), (True, 0.1)):
                    with self.subTest(layout=name, grad=grad, dropout=dropout):
                        cid = A.config_id(None, causal_window, False, False, grad, False, "auto", False)
                        torch.library.opcheck(torch.ops.tgc.attention_fwd, (q, k, v, None, [], cid, None, dropout),
                                              test_utils="test_faketensor")
                        if grad:
                            o, lse, seeds = torch.ops.tgc.attention_fwd(q, k, v, None, [], cid, None, dropout)
                            torch.library.opcheck(torch.ops.tgc.attention_bwd,
                                                  (q, k, v, o, torch.randn_like(o), lse, seeds, None, [], cid, None,
                                                   dropout),
                                                  test_utils="test_faketensor")

    def test_output_strides_follow_query_like_eager(self):
        q = torch.randn(2, 16, 4, 16).transpose(1, 2)  # [B,S,H,D] memory
        _, k, v = qkv()
        with StubbedRun():
            eager = tt.attention(q, k, v)
            out, _ = self.graphs_of(lambda q, k, v: tt.attention(q, k, v), q, k, v, backend="aot_eager")
            self.assertEqual(out.stride(), eager.stride())

    def test_backward_runs_tgc_attention_bwd(self):
        q, k, v = (t.requires_grad_() for t in qkv())
        half = lambda s, b, h, qi, ki: s * 0.5  # noqa: E731 - made outside the compiled function
        with StubbedRun() as run:
            def f(q, k, v):
                return tt.attention(q, k, v, score_mod=half)
            out, _ = self.graphs_of(f, q, k, v, backend="aot_eager")
            self.assertTrue(out.requires_grad)
            out.sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]], ["q", "k", "v", "o", "do", "lse", "dq", "dk", "dv"])
            self.assertEqual(run.calls[-1][0][1], q.data_ptr())
            self.assertEqual(q.grad.shape, q.shape)
            self.assertEqual(k.grad.shape, k.shape)

    def test_return_lse_with_autograd_is_refused(self):
        q, k, v = (t.requires_grad_() for t in qkv())
        with StubbedRun():
            with self.assertRaisesRegex(Exception, "return_lse=True while gradients are recorded, under "
                                                   "torch.compile"):
                self.graphs_of(lambda q, k, v: tt.attention(q, k, v, return_lse=True)[0], q, k, v)
            with torch.no_grad():
                out, graphs = self.graphs_of(lambda q, k, v: tt.attention(q, k, v, return_lse=True), q, k, v,
                                             backend="record")
            self.assertEqual(out[1].shape, (2, 4, 16))

    def test_learnable_mask_gets_its_gradient(self):
        q, k, v = (t.requires_grad_() for t in qkv())
        bias = torch.zeros(4, 16, 16, requires_grad=True)
        with StubbedRun() as run:
            out, graphs = self.graphs_of(lambda q, k, v, m: tt.attention(q, k, v, attn_mask=m), q, k, v, bias,
                                         backend="record")
            self.assertEqual(len(graphs), 1)
            out, _ = self.graphs_of(lambda q, k, v, m: tt.attention(q, k, v, attn_mask=m), q, k, v, bias,
                                    backend="aot_eager")
            out.sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-4:], ["dq", "dk", "dv", "dc0"])
            self.assertEqual((bias.grad.shape, bias.grad.dtype), (bias.shape, bias.dtype))
            self.assertEqual(q.grad.shape, q.shape)
            # The op's plan is the eager call's (the same key, grad_key's flags).
            tt.attention(q, k, v, attn_mask=bias)
            self.assertEqual(tt.cache_info()["plans"], 1)

    def test_learnable_captures_are_op_inputs_with_gradients(self):
        # bf16: table gradients need the fused NVRTC backward (bf16/f16 q, k, v).
        q, k, v = qkv(dtype=torch.bfloat16)  # frozen: only the bias and the table learn
        rel_bias = torch.zeros(2, 4, 16, 16, requires_grad=True)
        table = torch.zeros(4, 31, requires_grad=True)
        frozen = torch.randn(4, 16)
        sm = lambda s, b, h, qi, ki: s + rel_bias[1, h, qi, ki] + table[h, qi - ki + 15] + frozen[h, ki]  # noqa: E731
        with StubbedRun() as run:
            out, graphs = self.graphs_of(lambda q, k, v: tt.attention(q, k, v, score_mod=sm), q, k, v,
                                         backend="record")
            self.assertEqual(len(graphs), 1)
            text = str(graphs[0].graph)
            self.assertEqual(text.count("tgc.attention_fwd"), 1, text)
            placeholders = [n for n in graphs[0].graph.nodes if n.op == "placeholder"]
            self.assertEqual(len(placeholders), 5, text)  # q, k, v and the two learnable tensors
            self.assertTrue(out.requires_grad)
            out, _ = self.graphs_of(lambda q, k, v: tt.attention(q, k, v, score_mod=sm), q, k, v,
                                    backend="aot_eager")
            out.float().sum().backward()
            self.assertEqual([n for n, _ in run.calls[-1]][-5:], ["dq", "dk", "dv", "dc0", "dc1"])
            self.assertEqual((rel_bias.grad.shape, rel_bias.grad.dtype), (rel_bias.shape, rel_bias.dtype))
            self.assertTrue((rel_bias.grad[0] == 0).all())  # bias[1, ...] reads nothing of rel_bias[0]
            self.assertEqual(table.grad.shape, table.shape)
            self.assertIsNone(frozen.grad)
            tt.attention(q, k, v, score_mod=sm)
            self.assertEqual(tt.cache_info()["plans"], 1)

    def test_learnable_fake_outputs_match_the_real_ones(self):
        q, k, v = qkv(dtype=torch.bfloat16)
        table = torch.zeros(4, 31, requires_grad=True)
        bias = torch.zeros(1, 4, 16, 16, requires_grad=True)
        sm = lambda s, b, h, qi, ki: s + table[h, qi - ki + 15]  # noqa: E731
        with StubbedRun():
            cid = A.config_id(sm, None, False, False, True, False, "auto", True, True)
            cfg = A.CONFIGS[cid]
            self.assertEqual((cfg.learnable, cfg.mask_grad, len(cfg.sources)), (True, True, 1))
            self.assertIs(cfg.sources[0], table)
            args = (q, k, v, bias.detach(), [table.detach()], cid, None, 0.0)
            torch.library.opcheck(torch.ops.tgc.attention_fwd, args, test_utils="test_faketensor")
            o, lse, seeds = torch.ops.tgc.attention_fwd(*args)
            grads = torch.ops.tgc.attention_bwd(q, k, v, o, torch.randn_like(o), lse, seeds, bias.detach(),
                                                [table.detach()], cid, None, 0.0)
            self.assertEqual([tuple(g.shape) for g in grads][3:], [(1, 4, 16, 16), (4, 31)])
            torch.library.opcheck(torch.ops.tgc.attention_bwd,
                                  (q, k, v, o, torch.randn_like(o), lse, seeds, bias.detach(), [table.detach()], cid,
                                   None, 0.0),
                                  test_utils="test_faketensor")

    def test_learnable_view_made_in_the_callable_is_refused(self):
        q, k, v = (t.requires_grad_() for t in qkv())
        w = torch.zeros(31, 4, requires_grad=True)
        table = w.t()  # a view of a leaf: under torch.compile the graph that made it would be a stale one
        sm = lambda s, b, h, qi, ki: s + table[h, qi - ki + 15]  # noqa: E731
        with StubbedRun():
            with self.assertRaisesRegex(Exception, "requires grad but is not a leaf"):
                self.graphs_of(lambda q, k, v: tt.attention(q, k, v, score_mod=sm), q, k, v)


class CompiledLearnableParts(unittest.TestCase):
    """The torch.compile path's plain-Python parts (any torch): op schemas, the
    backward op's list and the autograd formula's return, which captured
    tensors become op inputs, and the plan a learnable config looks up."""

    def test_schemas(self):
        from tgc.torch import ops
        fwd = torch._C.parse_schema("tgc::attention_fwd" + ops.FWD_SCHEMA)
        self.assertEqual([a.name for a in fwd.arguments],
                         ["q", "k", "v", "attn_mask", "sources", "cid", "scale", "dropout_p"])
        self.assertEqual([str(a.type) for a in fwd.arguments][3:],
                         ["Optional[Tensor]", "List[Tensor]", "int", "Optional[float]", "float"])
        self.assertEqual(len(fwd.returns), 3)
        bwd = torch._C.parse_schema("tgc::attention_bwd" + ops.BWD_SCHEMA)
        self.assertEqual([a.name for a in bwd.arguments][-5:], ["attn_mask", "sources", "cid", "scale", "dropout_p"])
        self.assertEqual([str(r.type) for r in bwd.returns], ["List[Tensor]"])
        for schema in (fwd, bwd):
            self.assertFalse(any(a.alias_info is not None for a in schema.arguments))  # mutates_args=()

    def test_backward_list_round_trip(self):
        from tgc.torch import ops
        q, k, v = qkv()
        dq, dk, dv = torch.ones_like(q), 2 * torch.ones_like(k), 3 * torch.ones_like(v)
        mask = torch.zeros(1, 4, 16, 16)
        table = torch.zeros(4, 31)
        bias = torch.zeros(16, 4, 16)
        d_table, d_bias = torch.ones(4, 31), torch.ones(4, 16, 16).permute(1, 0, 2)  # not contiguous
        for mask_grad in (False, True):
            with self.subTest(mask_grad=mask_grad):
                packed = ops.pack_grads(dq, dk, dv, torch.ones_like(mask) if mask_grad else None, [d_table, None, d_bias],
                                        [table, table.t(), bias], mask_grad)
                self.assertEqual(len(packed), 3 + mask_grad + 3)
                self.assertTrue(all(t.is_contiguous() for t in packed[3:]))
                self.assertTrue((packed[-2] == 0).all() and packed[-2].shape == (31, 4))  # region read none of it
                gq, gk, gv, gm, gs, gcid, gscale, gdropout = ops.unpack_grads(packed, mask_grad, 3)
                self.assertTrue(gq is dq and gk is dk and gv is dv)
                self.assertEqual((gcid, gscale, gdropout), (None, None, None))
                self.assertEqual(gm is not None, mask_grad)
                self.assertEqual([tuple(g.shape) for g in gs], [(4, 31), (31, 4), (16, 4, 16)])
                self.assertTrue(torch.equal(gs[2], d_bias))
                fake = ops.fake_grads(q, k, v, mask, [table, table.t(), bias], mask_grad)
                self.assertEqual([(f.shape, f.stride(), f.dtype) for f in fake],
                                 [(t.shape, t.stride(), t.dtype) for t in packed])
        gq, gk, gv, gm, gs, *_ = ops.unpack_grads([dq, dk, dv], False, 0)
        self.assertEqual((gm, gs), (None, []))

    def test_which_captures_become_inputs(self):
        rel = torch.zeros(4, 16, 16, requires_grad=True)
        table = torch.zeros(4, 31, requires_grad=True)
        frozen = torch.zeros(4, 16)
        sm = lambda s, b, h, qi, ki: s + rel[h, qi, ki] + frozen[h, ki] + table[h, qi - ki + 15] + rel[h, ki, qi]  # noqa: E731
        grad, sources, grads = A.compiled_learnable(sm, False, True, False)
        self.assertTrue(grad)  # only the captures require grad: still a training call
        self.assertEqual(len(sources), 2)
        self.assertTrue(sources[0] is rel and sources[1] is table)
        # The flags are grad_key's: the compiled op finds the eager call's plan.
        self.assertEqual(grads, A.grad_key(sm, T.callable_key(sm)[0], None))
        self.assertEqual(A.compiled_learnable(sm, True, False, False), (True, [], None))  # grad disabled
        half = lambda s, b, h, qi, ki: s * 0.5  # noqa: E731
        self.assertEqual(A.compiled_learnable(half, True, True, False), (True, [], None))  # nothing learnable
        self.assertEqual(A.compiled_learnable(None, True, True, True), (True, [], (True,)))  # the mask only
        w = torch.zeros(31, 4, requires_grad=True)
        view = w.t()
        with self.assertRaisesRegex(NotImplementedError, r"'view' of shape \[4, 31\] read at computed indices.* "
                                                         "requires grad but is not a leaf"):
            A.compiled_learnable(lambda s, b, h, qi, ki: s + view[h, qi - ki + 15], True, True, False)

    def test_positions_and_attributes(self):
        from tgc.torch import learnable as L
        a, b = torch.zeros(2), torch.zeros(3)
        self.assertEqual(L.positions([b, a], (a, b)), [1, 0])
        with self.assertRaisesRegex(RuntimeError, r"learnable capture of shape \[3\] is not among the op's 1"):
            L.positions([b], (a,))
        L.store(10 ** 6, [a, b])
        self.assertIs(getattr(L, L.attribute(10 ** 6, 1)), b)
        delattr(L, L.attribute(10 ** 6, 0))
        delattr(L, L.attribute(10 ** 6, 1))

    def test_learnable_config_finds_the_eager_plan(self):
        # The op's tensors need not carry requires_grad: the config's flags decide.
        q, k, v = qkv(dtype=torch.bfloat16)
        bias = torch.zeros(1, 4, 16, 16, requires_grad=True)
        table = torch.zeros(4, 31, requires_grad=True)
        sm = lambda s, b, h, qi, ki: s + table[h, qi - ki + 15]  # noqa: E731
        sm_key, sm_keep = T.callable_key(sm)
        with StubbedRun() as run:
            grad, sources, grads = A.compiled_learnable(sm, True, True, True)
            cfg = A.Config(score_mod=sm, mask_mod=None, is_causal=False, enable_gqa=False, training=True,
                           return_lse=False, backend="auto", sm_key=sm_key, mm_key=None, keep=(sm_keep, ()),
                           learnable=True, grads=grads, mask_grad=True, sources=tuple(sources))
            plan = cfg.plan(q, k, v, bias.detach(), None, 0.0)
            self.assertEqual([cg.from_mask for cg in plan.capture_grads], [False, True])
            self.assertEqual(len(plan.grad_sources), 1)
            self.assertIs(plan.grad_sources[0], table)
            tt.attention(q, k, v, score_mod=sm, attn_mask=bias).float().sum().backward()
            self.assertEqual(tt.cache_info()["plans"], 1)
            self.assertEqual([n for n, _ in run.calls[-1]][-5:], ["dq", "dk", "dv", "dc0", "dc1"])
            # What the backward op returns from that plan's backward (the C run stubbed: shapes only).
            from tgc.torch import ops
            o, lse, saved = plan.forward(q, k, v, bias.detach())
            dq, dk, dv, dcaps = plan.backward(q, k, v, o, torch.randn_like(o), lse, saved)
            out = ops.backward_list(cfg, plan, dq, dk, dv, dcaps)
            self.assertEqual([tuple(t.shape) for t in out[3:]], [(1, 4, 16, 16), (4, 31)])
            self.assertEqual([t.dtype for t in out[3:]], [torch.float32, torch.float32])
            fake = ops.fake_grads(q, k, v, bias, list(cfg.sources), True)
            self.assertEqual([(f.shape, f.stride(), f.dtype) for f in fake],
                             [(t.shape, t.stride(), t.dtype) for t in out])
            # A non-learnable config keeps its plan (and key) as before.
            cfg.learnable, cfg.grads = False, None
            self.assertIsNot(cfg.plan(q, k, v, bias.detach(), None, 0.0), plan)


if __name__ == "__main__":
    unittest.main()
