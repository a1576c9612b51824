// A training step (forward with stats, then its backward) in one graph: the
// compile pipeline fuses both (CSE runs only after attention fusion, so the
// backward's recomputed scores stay apart from the forward's), and the
// backward goes to cuDNN; with --backend=nvrtc to the fused backward kernels.
// RUN: tg-compile %s --emit=mlir | FileCheck %s
// RUN: tg-compile %s --backend=nvrtc --emit=mlir | FileCheck %s --check-prefix=NVRTC

// CHECK-LABEL: func.func @training_step
// CHECK: %[[O:[^,]*]], %[[LSE:[^ ]*]] = tg.attention {{.*}}training
// CHECK: tg.attention_grad %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[O]], %{{[^,]*}}, %[[LSE]] {causal = #tg<causal top_left>, {{.*}}tg.backend = #tg<backend cudnn>
// NVRTC-LABEL: func.func @training_step
// NVRTC: tg.attention {{.*}}training
// NVRTC: tg.attention_grad {{.*}}tg.backend = #tg<backend nvrtc>
// NVRTC-NOT: tg.matmul
func.func @training_step(%q: tensor<1x2x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>, %do: tensor<1x2x128x64xbf16>)
    -> (tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>) {
  %o, %lse = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>, training}
      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x2x128x64xbf16>, tensor<1x2x128x1xf32>
  %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>}
      : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x1xf32>
  return %o, %dq, %dk, %dv : tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>
}
