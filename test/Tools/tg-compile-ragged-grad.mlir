// A ragged tg.sdpa_grad becomes a tg.attention_grad with the offsets (no
// dense decomposition exists) and compiles to the fused NVRTC backward's
// three kernels, which take them; cuDNN is refused with the reason.
// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s --check-prefix=IR
// RUN: tg-compile %s --explain-backend --emit=cuda 2>&1 | FileCheck %s

// IR: tg.attention_grad %{{.*}} cu_seqlens_q(%{{.*}} : tensor<4xi32>) cu_seqlens_kv(%{{.*}} : tensor<4xi32>) {{.*}}max_seqlen_kv = 400 : i64, max_seqlen_q = 300 : i64
// IR: tg.tanh
// IR: score_grad {
// IR-NEXT: }
// CHECK: remark: backend nvrtc: cuDNN cannot run it: the ragged layout (cu_seqlens) is not lowered to cuDNN's ragged offsets; the fused NVRTC backward runs it
// CHECK-DAG: attention_bwd_preprocess<tg::device::Elem::BF16, 64, 64, true>
// CHECK-DAG: {cu_seqlens_q, tokens_q, lse, lse_rows}
// CHECK-DAG: static constexpr bool kRagged = true;  // packed sequences
// CHECK-DAG: attention_bwd_convert<tg::device::Elem::BF16, 64, true, true>
func.func @grad(%q: tensor<700x8x64xbf16>, %k: tensor<900x2x64xbf16>, %v: tensor<900x2x64xbf16>,
                %o: tensor<700x8x64xbf16>, %do: tensor<700x8x64xbf16>, %lse: tensor<700x8x1xf32>,
                %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> (tensor<700x8x64xbf16>, tensor<900x2x64xbf16>, tensor<900x2x64xbf16>) {
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_kv(%ck : tensor<4xi32>)
      {causal = #tg<causal bottom_right>, softcap = 30.0 : f64, max_seqlen_q = 300 : i64, max_seqlen_kv = 400 : i64}
      : tensor<700x8x64xbf16>, tensor<900x2x64xbf16>, tensor<900x2x64xbf16>, tensor<700x8x64xbf16>, tensor<700x8x64xbf16>, tensor<700x8x1xf32>
  return %dq, %dk, %dv : tensor<700x8x64xbf16>, tensor<900x2x64xbf16>, tensor<900x2x64xbf16>
}
