"""Packed sequences (the ragged layout, cu_seqlens) on tgc's CPU reference
interpreter (tg-run --ref), forward and backward, against float64 torch
autograd run sequence by sequence on the unpacked slices: what a packed
batch means, checked by a form no one here wrote."""
import unittest

from tgc_testing import max_err, reference, run_ref, torch

TOL = 2e-5  # f32 inputs; the interpreter computes in float64 and rounds once


def ttype(shape, elem="f32"):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elem + ">"


def graph(Tq, Tkv, B, H, Hkv, D, max_q, max_kv, attrs):
    q, kv, cu = ttype([Tq, H, D]), ttype([Tkv, Hkv, D]), ttype([B + 1], "i32")
    stats = ttype([Tq, H, 1])
    ragged = ("cu_seqlens_q(%%cq : %s) cu_seqlens_kv(%%ck : %s)" % (cu, cu))
    attr = ", ".join(attrs + ["max_seqlen_q = %d : i64" % max_q, "max_seqlen_kv = %d : i64" % max_kv])
    return "\n".join([
        'func.func @train(%%q: %s {tg.name = "q"}, %%k: %s {tg.name = "k"}, %%v: %s {tg.name = "v"},' % (q, kv, kv),
        '    %%cq: %s {tg.name = "cq"}, %%ck: %s {tg.name = "ck"}, %%do: %s {tg.name = "do"})' % (cu, cu, q),
        '    -> (%s {tg.name = "o"}, %s {tg.name = "lse"}, %s {tg.name = "dq"}, %s {tg.name = "dk"}, %s {tg.name = "dv"}) {'
        % (q, stats, q, kv, kv),
        "  %%o, %%lse = tg.sdpa %%q, %%k, %%v %s {training, %s} : %s, %s, %s -> %s, %s"
        % (ragged, attr, q, kv, kv, q, stats),
        "  %%dq, %%dk, %%dv = tg.sdpa_grad %%q, %%k, %%v, %%o, %%do, %%lse %s {%s} : %s, %s, %s, %s, %s, %s"
        % (ragged, attr, q, kv, kv, q, q, stats),
        "  return %%o, %%lse, %%dq, %%dk, %%dv : %s, %s, %s, %s, %s" % (q, stats, q, kv, kv),
        "}", ""])


class Ragged(unittest.TestCase):
    def check(self, lens_q, lens_kv, H=4, Hkv=2, D=8, causal=None, softcap=None, window_left=None):
        B = len(lens_q)
        cq = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), dtype=torch.int32)
        ck = torch.tensor([0] + list(torch.tensor(lens_kv).cumsum(0)), dtype=torch.int32)
        Tq, Tkv = int(cq[-1]), int(ck[-1])
        g = torch.Generator().manual_seed(B + Tq)
        q = torch.randn(Tq, H, D, generator=g)
        k = torch.randn(Tkv, Hkv, D, generator=g)
        v = torch.randn(Tkv, Hkv, D, generator=g)
        do = torch.randn(Tq, H, D, generator=g)
        attrs = []
        if causal:
            attrs.append("causal = #tg<causal %s>" % causal)
        if softcap:
            attrs.append("softcap = %r : f64" % softcap)
        if window_left is not None:
            attrs.append("window_left = %d : i64" % window_left)
        text = graph(Tq, Tkv, B, H, Hkv, D, max(lens_q), max(lens_kv), attrs)
        got = run_ref(text, dict(q=q, k=k, v=v, cq=cq, ck=ck, do=do), ["o", "lse", "dq", "dk", "dv"])
        # torch, one sequence at a time ([1, H, L, D] slices of the packed tensors).
        want = {n: torch.zeros_like(t, dtype=torch.float64)
                for n, t in dict(o=q, dq=q, dk=k, dv=v).items()}
        want["lse"] = torch.zeros(Tq, H, 1, dtype=torch.float64)
        for b in range(B):
            qs, ks = slice(int(cq[b]), int(cq[b + 1])), slice(int(ck[b]), int(ck[b + 1]))
            lq, lkv = lens_q[b], lens_kv[b]
            qb, kb, vb = (t[s].double().transpose(0, 1)[None].requires_grad_()
                          for t, s in ((q, qs), (k, ks), (v, ks)))
            shift = lkv - lq if causal == "bottom_right" else 0

            def mask_mod(b_, h_, qi, ki):
                keep = torch.ones_like(qi + ki, dtype=torch.bool)
                if causal:
                    keep = keep & (ki <= qi + shift)
                if window_left is not None:
                    keep = keep & (ki >= qi + shift - window_left)
                return keep
            score_mod = (lambda s, *_: softcap * torch.tanh(s / softcap)) if softcap else None
            o, lse = reference(qb, kb, vb, score_mod=score_mod, mask_mod=mask_mod)
            o.backward(do[qs].double().transpose(0, 1)[None])
            want["o"][qs] = o[0].transpose(0, 1).detach()
            want["lse"][qs] = lse[0].transpose(0, 1)[..., None].detach()
            want["dq"][qs] = qb.grad[0].transpose(0, 1)
            want["dk"][ks] = kb.grad[0].transpose(0, 1)
            want["dv"][ks] = vb.grad[0].transpose(0, 1)
        for name in ("o", "lse", "dq", "dk", "dv"):
            err = max_err(got[name], want[name])
            self.assertLess(err, TOL, "%s differs from torch by %s" % (name, err))

    def test_plain(self):
        self.check([5, 9, 3], [5, 9, 3])

    def test_causal_top_left_gqa(self):
        self.check([7, 4, 12], [7, 4, 12], causal="top_left")

    def test_causal_bottom_right_q_shorter(self):
        self.check([3, 6, 1], [8, 6, 10], causal="bottom_right")

    def test_softcap_window(self):
        self.check([10, 6], [10, 6], H=2, Hkv=2, causal="bottom_right", softcap=5.0, window_left=3)


if __name__ == "__main__":
    unittest.main()
