// The GPU suite's graph generators (test/gpu/attention_graphs.py): the
// configuration list, the forms of the backward graphs, and a sample of
// every kind compiled by tg-compile (suite.py --compile-only, no GPU). This
// file has no function, so `suite.py --graphs` skips it.
//
// RUN: python3 %tgc_src/test/gpu/suite.py --list | FileCheck %s --check-prefix=LIST
// LIST-LABEL: hd64_bf16
// LIST: everything
// LIST: bwd_hd64_bf16_full
// LIST: bwd_padding_causal_br
// LIST: train_layout_bshd
//
// RUN: rm -rf %t && python3 %tgc_src/test/gpu/suite.py --emit-graphs %t --only bwd_padding_causal_br,train_padding_causal_br
// RUN: FileCheck %s --check-prefix=BWD < %t/bwd_padding_causal_br.mlir
// BWD-LABEL: func.func @attention_bwd(
// BWD-SAME: %o: tensor<3x2x200x128xbf16> {tg.name = "o"}, %do: tensor<3x2x200x128xbf16> {tg.name = "do"}, %stats: tensor<3x2x200x1xf32> {tg.name = "stats"}, %seq_len_q: tensor<3xi32>
// BWD-SAME: -> (tensor<3x2x200x128xbf16> {tg.name = "dq"}, tensor<3x2x333x128xbf16> {tg.name = "dk"}, tensor<3x2x333x128xbf16> {tg.name = "dv"})
// BWD: %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %stats seq_len_q(%seq_len_q : tensor<3xi32>) seq_len_kv(%seq_len_kv : tensor<3xi32>) {causal = #tg<causal bottom_right>}
// BWD: return %dq, %dk, %dv
// RUN: FileCheck %s --check-prefix=TRAIN < %t/train_padding_causal_br.mlir
// TRAIN-LABEL: func.func @attention_fwd_bwd(
// TRAIN-SAME: %do: tensor<3x2x200x128xbf16> {tg.name = "do"}
// TRAIN: %o, %stats = tg.sdpa %q, %k, %v seq_len_q(%seq_len_q : tensor<3xi32>) seq_len_kv(%seq_len_kv : tensor<3xi32>) {causal = #tg<causal bottom_right>, training}
// TRAIN: %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %stats seq_len_q(%seq_len_q : tensor<3xi32>) seq_len_kv(%seq_len_kv : tensor<3xi32>) {causal = #tg<causal bottom_right>}
// TRAIN: return %o, %stats, %dq, %dk, %dv
//
// RUN: python3 %tgc_src/test/gpu/suite.py --compile-only --bin %tgc_obj/bin --jobs 2 --out %t --only hd64_bf16,s17x128_bottom_right,gqa4,everything,layout_bshd_f16,bwd_hd128_f16_top_left,bwd_padding_causal_br,bwd_layout_bshd,bwd_dropout,train_hd64 | FileCheck %s --check-prefix=COMPILE
// COMPILE: summary (grid all, backend default, compile only): 15 passed, 0 failed
//
// The fused NVRTC backward's set: what cuDNN does not take runs there.
// RUN: python3 %tgc_src/test/gpu/suite.py --set fused --compile-only --bin %tgc_obj/bin --jobs 2 --out %t --only bwd_everything,bwd_bias_grad,train_bias_grad | FileCheck %s --check-prefix=FUSED
// FUSED: bwd_everything {{.*}}PASS {{.*}}planned: attention_grad:nvrtc(fused)
// FUSED: summary (grid fused, backend default, compile only): 5 passed, 0 failed
