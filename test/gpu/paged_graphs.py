"""Paged K/V cache configurations of the GPU suite (`suite.py --set
paged`): tg.sdpa with a page table on the fused NVRTC forward, checked
against the CPU reference by `tg-run --check`.

  paged_decode   Sq 1-16 (decode, speculative decoding) against caches of
                 uneven cached lengths, GQA 8 and 4, pages of 16 to 256
                 keys (smaller and larger than a key tile), bottom-right
                 causal, f16 and bf16, hd 64 and 128
  paged_prefill  a prompt's queries against its cached pages (Sq = Skv,
                 bottom-right causal), a sliding window
  decode_dense   the split-KV decode kernel (a GQA group's queries packed
                 into one tile, key tiles split among CTAs, a combine
                 kernel) on dense caches, with windows, padded lengths and
                 score modifiers (ALiBi, softcap)
  paged_edge     page tables given as inputs: pages shared between
                 sequences, out of order, and indices outside the cache
                 (clamped alike by kernel and reference)

tg-run's random inputs give page tables of existing pages and random
lengths up to max_pages * page_size."""
import os

import attention_graphs as ag

ttype = ag.ttype


def dense_text(c):
    """A decode step against a dense cache [B, Hkv, Skv, D] (the split-KV
    decode kernel without pages)."""
    p = c["paged"]
    B, Hq, Hkv, Sq, Skv, D, dt = c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Skv"], c["D"], c["dtype"]
    q, kv, lens = ttype([B, Hq, Sq, D], dt), ttype([B, Hkv, Skv, D], dt), ttype([B], "i32")
    args = ['%%q: %s {tg.name = "q"}' % q, '%%k: %s {tg.name = "k"}' % kv, '%%v: %s {tg.name = "v"}' % kv]
    operands = ""
    if p.get("lengths"):
        args.append('%%seq_len_kv: %s {tg.name = "seq_len_kv"}' % lens)
        operands = " seq_len_kv(%%seq_len_kv : %s)" % lens
    attrs = []
    if p.get("causal"):
        attrs.append("causal = #tg<causal %s>" % p["causal"])
    if "window_left" in p:
        attrs.append("window_left = %d : i64" % p["window_left"])
    if p.get("alibi"):
        attrs.append("alibi")
    if p.get("softcap"):
        attrs.append("softcap = %r : f64" % p["softcap"])
    attr_text = " {%s}" % ", ".join(attrs) if attrs else ""
    return "\n".join([
        'func.func @decode(%s) -> (%s {tg.name = "o"}) {' % (", ".join(args), q),
        "  %%o = tg.sdpa %%q, %%k, %%v%s%s : %s, %s, %s -> %s" % (operands, attr_text, q, kv, kv, q),
        "  return %%o : %s" % q,
        "}", ""])


def graph_text(c):
    p = c["paged"]
    if p.get("dense"):
        return dense_text(c)
    B, Hq, Hkv, Sq, D, dt = c["B"], c["Hq"], c["Hkv"], c["Sq"], c["D"], c["dtype"]
    pages, ps, maxp = p["pages"], p["page_size"], p["max_pages"]
    q, o = ttype([B, Hq, Sq, D], dt), ttype([B, Hq, Sq, D], dt)
    kv = ttype([pages, ps, Hkv, D], dt)
    table, lens = ttype([B, maxp], "i32"), ttype([B], "i32")
    args = ['%%q: %s {tg.name = "q"}' % q, '%%k: %s {tg.name = "k"}' % kv, '%%v: %s {tg.name = "v"}' % kv,
            '%%seq_len_kv: %s {tg.name = "seq_len_kv"}' % lens, '%%page_table: %s {tg.name = "page_table"}' % table]
    attrs = []
    if p.get("causal"):
        attrs.append("causal = #tg<causal %s>" % p["causal"])
    if "window_left" in p:
        attrs.append("window_left = %d : i64" % p["window_left"])
    if p.get("softcap"):
        attrs.append("softcap = %r : f64" % p["softcap"])
    attr_text = " {%s}" % ", ".join(attrs) if attrs else ""
    return "\n".join([
        'func.func @paged(%s) -> (%s {tg.name = "o"}) {' % (", ".join(args), o),
        "  %%o = tg.sdpa %%q, %%k, %%v seq_len_kv(%%seq_len_kv : %s) page_table(%%page_table : %s)%s"
        % (lens, table, attr_text),
        "      : %s, %s, %s -> %s" % (q, kv, kv, o),
        "  return %%o : %s" % o,
        "}", ""])


def write_inputs(c, workdir):
    """Explicit page tables and lengths (paged_edge)."""
    import numpy as np
    out = []
    p = c["paged"]
    for name, key, dtype in (("page_table", "table", np.int32), ("seq_len_kv", "lens", np.int32)):
        if key in p:
            path = os.path.join(workdir, "%s_%s.npy" % (c["name"], name))
            np.save(path, np.array(p[key], dtype))
            out.append("--input=%s=%s" % (name, path))
    return out


def paged_configs():
    out = []

    def add(kind, name, B, Sq, paged, Hq=16, Hkv=2, D=128, dtype="bf16"):
        out.append(dict(kind=kind, name="%s_%s" % (kind, name), B=B, Hq=Hq, Hkv=Hkv, Sq=Sq,
                        Skv=paged["max_pages"] * paged["page_size"], D=D, dtype=dtype, paged=paged))

    add("paged_decode", "page16_gqa8", 4, 1, dict(pages=64, page_size=16, max_pages=40, causal="bottom_right"))
    add("paged_decode", "page64_gqa8_f16_hd64", 3, 1,
        dict(pages=20, page_size=64, max_pages=12, causal="bottom_right"), D=64, dtype="f16")
    add("paged_decode", "page256_gqa4", 2, 1, dict(pages=6, page_size=256, max_pages=3), Hq=8)
    add("paged_decode", "speculative_16_page32", 3, 16,
        dict(pages=40, page_size=32, max_pages=20, causal="bottom_right"))
    add("paged_decode", "speculative_4_softcap_page16", 2, 4,
        dict(pages=50, page_size=16, max_pages=30, causal="bottom_right", softcap=30.0), Hq=8)
    add("paged_prefill", "causal_page64", 2, 512, dict(pages=24, page_size=64, max_pages=8, causal="bottom_right"),
        Hq=8, Hkv=8)
    add("paged_prefill", "window_page16_hd64", 2, 300,
        dict(pages=64, page_size=16, max_pages=20, causal="bottom_right", window_left=100), Hq=4, Hkv=4, D=64)
    # The split-KV decode kernel on dense caches: GQA groups of 8 and 4
    # packed into one tile (8 to 64 rows), windows, padded cache lengths.
    def dense(name, B, Sq, Skv, Hq, Hkv, D=128, dtype="bf16", **kw):
        out.append(dict(kind="decode_dense", name="decode_dense_" + name, B=B, Hq=Hq, Hkv=Hkv, Sq=Sq,
                        Skv=Skv, D=D, dtype=dtype, paged=dict(dense=True, **kw)))
    dense("gqa8_sq1", 3, 1, 2000, 16, 2, causal="bottom_right")
    dense("gqa8_sq2_lengths_f16", 4, 2, 1500, 16, 2, dtype="f16", causal="bottom_right", lengths=True)
    dense("gqa4_sq16_window_hd64", 2, 16, 1200, 8, 2, D=64, causal="bottom_right", window_left=300)
    dense("mha_sq4_no_mask_hd256", 2, 4, 700, 4, 4, D=256)
    # Score modifiers in the decode kernel: ALiBi reads each packed row's
    # head and query (row r = query r % Sq of head h0 + r / Sq), softcap.
    dense("gqa4_sq3_alibi_softcap_lengths", 3, 3, 900, 8, 2, causal="bottom_right", alibi=True,
          softcap=20.0, lengths=True)
    dense("gqa8_sq1_alibi_f16", 2, 1, 1300, 16, 2, dtype="f16", alibi=True)
    add("paged_edge", "shared_out_of_order_clamped", 3, 2,
        dict(pages=6, page_size=16, max_pages=4, causal="bottom_right",
             table=[[5, 0, 3, 3], [0, 0, 1, 2], [-4, 99, 2, 1]], lens=[64, 20, 50]))
    return out
