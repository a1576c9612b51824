// RUN: tg-opt %s -split-input-file --tg-fuse-attention=numerics=true -verify-diagnostics | FileCheck %s

// Scores in f32 throughout: nothing is dropped, no remark.
// CHECK-LABEL: func.func @f32_scores
// CHECK: tg.attention
func.func @f32_scores(%q: tensor<1x2x32x16xbf16>, %k: tensor<1x2x32x16xbf16>,
                      %v: tensor<1x2x32x16xbf16>) -> tensor<1x2x32x16xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x32x16xbf16> -> tensor<1x2x16x32xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x32x16xbf16>, tensor<1x2x16x32xbf16> -> tensor<1x2x32x32xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x32x32xf32>, tensor<f32>
  %p32 = tg.softmax %ss axis = 3 : tensor<1x2x32x32xf32>
  %p = tg.cast %p32 : tensor<1x2x32x32xf32> to tensor<1x2x32x32xbf16>
  %o = tg.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x32x16xbf16>
  return %o : tensor<1x2x32x16xbf16>
}

// -----

// HF's eager form: the QK matmul, the scaling and the softcap in bf16.
// CHECK-LABEL: func.func @bf16_softcap
// CHECK: tg.attention
func.func @bf16_softcap(%q: tensor<1x2x32x16xbf16>, %k: tensor<1x2x32x16xbf16>,
                        %v: tensor<1x2x32x16xbf16>) -> tensor<1x2x32x16xbf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x32x16xbf16> -> tensor<1x2x16x32xbf16>
  // expected-remark @below {{fused with the scores in f32; the graph as written rounds them 5 time(s), which the fused op does not: bf16 after tg.matmul at 27:8, bf16 after tg.mul at 30:9, bf16 after tg.div at 31:9, bf16 after tg.tanh at 32:9, bf16 after tg.mul at 33:9}}
  %s = tg.matmul %q, %kt : tensor<1x2x32x16xbf16>, tensor<1x2x16x32xbf16> -> tensor<1x2x32x32xbf16>
  %c = tg.constant dense<0.25> : tensor<bf16>
  %cap = tg.constant dense<30.0> : tensor<bf16>
  %ss = tg.mul %s, %c : tensor<1x2x32x32xbf16>, tensor<bf16>
  %s1 = tg.div %ss, %cap : tensor<1x2x32x32xbf16>, tensor<bf16>
  %s2 = tg.tanh %s1 : tensor<1x2x32x32xbf16>
  %s3 = tg.mul %s2, %cap : tensor<1x2x32x32xbf16>, tensor<bf16>
  %s32 = tg.cast %s3 : tensor<1x2x32x32xbf16> to tensor<1x2x32x32xf32>
  %p32 = tg.softmax %s32 axis = 3 : tensor<1x2x32x32xf32>
  %p = tg.cast %p32 : tensor<1x2x32x32xf32> to tensor<1x2x32x32xbf16>
  %o = tg.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x32x16xbf16>
  return %o : tensor<1x2x32x16xbf16>
}

// -----

// f32 scores rounded through f16 before the softmax, and a softmax in f16:
// both named; the cast of P to V's type is not (the kernels round P too).
// CHECK-LABEL: func.func @f16_softmax
// CHECK: tg.attention
func.func @f16_softmax(%q: tensor<1x2x32x16xf16>, %k: tensor<1x2x32x16xf16>,
                       %v: tensor<1x2x32x16xf16>) -> tensor<1x2x32x16xf16> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x32x16xf16> -> tensor<1x2x16x32xf16>
  // expected-remark @below {{the graph as written rounds them 2 time(s), which the fused op does not: f16 after tg.cast at 54:9, f16 after tg.softmax at 55:9}}
  %s = tg.matmul %q, %kt : tensor<1x2x32x16xf16>, tensor<1x2x16x32xf16> -> tensor<1x2x32x32xf32>
  %c = tg.constant dense<0.25> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x32x32xf32>, tensor<f32>
  %sh = tg.cast %ss : tensor<1x2x32x32xf32> to tensor<1x2x32x32xf16>
  %ph = tg.softmax %sh axis = 3 : tensor<1x2x32x32xf16>
  %o = tg.matmul %ph, %v : tensor<1x2x32x32xf16>, tensor<1x2x32x16xf16> -> tensor<1x2x32x16xf16>
  return %o : tensor<1x2x32x16xf16>
}
