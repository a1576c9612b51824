// The GPU suite's graph generators (test/gpu/attention_graphs.py): the
// configuration list, the form of a backward graph, and a sample of every
// kind compiled by tg-compile (suite.py --compile-only, no GPU). This file
// has no function, so `suite.py --graphs` skips it.
//
// RUN: python3 %tgc_src/test/gpu/suite.py --list | FileCheck %s --check-prefix=LIST
// LIST-LABEL: hd64_bf16
// LIST: everything
// LIST: bwd_hd64_bf16_full
// LIST: bwd_padding_causal_br
// LIST: bwd_grad_only_gqa_s1000_f16
//
// RUN: rm -rf %t && python3 %tgc_src/test/gpu/suite.py --emit-graphs %t --only bwd_padding_causal_br,bwd_grad_only_causal
// RUN: FileCheck %s --check-prefix=BWD < %t/bwd_padding_causal_br.mlir
// BWD-LABEL: func.func @attention_fwd_bwd(
// BWD-SAME: %do: tensor<3x2x200x128xbf16> {tg.name = "do"}
// BWD-SAME: %seq_len_q: tensor<3xi32>
// BWD: %o, %stats = tg.sdpa %q, %k, %v seq_len_q(%seq_len_q : tensor<3xi32>) seq_len_kv(%seq_len_kv : tensor<3xi32>) {causal = #tg<causal bottom_right>, training}
// BWD: %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %stats seq_len_q(%seq_len_q : tensor<3xi32>) seq_len_kv(%seq_len_kv : tensor<3xi32>) {causal = #tg<causal bottom_right>}
// BWD: return %o, %stats, %dq, %dk, %dv
// RUN: FileCheck %s --check-prefix=GRAD < %t/bwd_grad_only_causal.mlir
// GRAD-LABEL: func.func @attention_bwd(
// GRAD-SAME: %o: tensor<2x2x128x128xbf16> {tg.name = "o"}, %do: tensor<2x2x128x128xbf16> {tg.name = "do"}, %stats: tensor<2x2x128x1xf32> {tg.name = "stats"})
// GRAD-SAME: -> (tensor<2x2x128x128xbf16> {tg.name = "dq"}
// GRAD: tg.sdpa_grad %q, %k, %v, %o, %do, %stats {causal = #tg<causal top_left>}
//
// RUN: python3 %tgc_src/test/gpu/suite.py --compile-only --bin %tgc_obj/bin --jobs 2 --out %t --only hd64_bf16,s17x128_bottom_right,gqa4,everything,layout_bshd_f16,bwd_hd128_f16_top_left,bwd_padding_causal_br,bwd_layout_bshd,bwd_grad_only_causal | FileCheck %s --check-prefix=COMPILE
// COMPILE: summary (grid all, backend default, compile only): 13 passed, 0 failed
