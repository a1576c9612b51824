// RUN: tg-opt %s --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %s
// RUN: tg-opt %s --tg-fuse-attention="absorb-layout=false" | FileCheck %s --check-prefix=COPY

// q, k, v arrive as [B,S,H,D] buffers and the output leaves as [B,S,H,D]:
// the transposes become tg.strides on the arguments and the result.
// CHECK-LABEL: func.func @bshd_buffers
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x2x16x8xbf16> {tg.name = "q", tg.strides = array<i64: 256, 8, 16, 1>}, %[[K:[^:]*]]: tensor<2x2x16x8xbf16> {tg.name = "k", tg.strides = array<i64: 256, 8, 16, 1>}, %[[V:[^:]*]]: tensor<2x2x16x8xbf16> {tg.name = "v", tg.strides = array<i64: 256, 8, 16, 1>})
// CHECK-SAME: -> (tensor<2x2x16x8xbf16> {tg.name = "o", tg.strides = array<i64: 256, 8, 16, 1>})
// CHECK-NEXT: %[[O:.*]] = tg.attention %[[Q]], %[[K]], %[[V]]
// CHECK-NOT: tg.transpose
// CHECK: return %[[O]]
// COPY-LABEL: func.func @bshd_buffers
// COPY-COUNT-4: tg.transpose
func.func @bshd_buffers(%q: tensor<2x16x2x8xbf16> {tg.name = "q"}, %k: tensor<2x16x2x8xbf16> {tg.name = "k"}, %v: tensor<2x16x2x8xbf16> {tg.name = "v"}) -> (tensor<2x16x2x8xbf16> {tg.name = "o"}) {
  %qt = tg.transpose %q perm = [0, 2, 1, 3] : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %kt = tg.transpose %k perm = [0, 2, 3, 1] : tensor<2x16x2x8xbf16> -> tensor<2x2x8x16xbf16>
  %vt = tg.transpose %v perm = [0, 2, 1, 3] : tensor<2x16x2x8xbf16> -> tensor<2x2x16x8xbf16>
  %s = tg.matmul %qt, %kt : tensor<2x2x16x8xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<2x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<2x2x16x16xf32>
  %pc = tg.cast %p : tensor<2x2x16x16xf32> to tensor<2x2x16x16xbf16>
  %o = tg.matmul %pc, %vt : tensor<2x2x16x16xbf16>, tensor<2x2x16x8xbf16> -> tensor<2x2x16x8xbf16>
  %ot = tg.transpose %o perm = [0, 2, 1, 3] : tensor<2x2x16x8xbf16> -> tensor<2x16x2x8xbf16>
  return %ot : tensor<2x16x2x8xbf16>
}

// K given already transposed ([B,H,D,S]), as some exporters (and Bloom)
// write it: absorbing the transpose would leave K's head dim strided, which
// the kernels cannot read, so the transpose stays and is materialised once.
// CHECK-LABEL: func.func @k_transposed_by_layout
// CHECK-SAME: %[[KT:[^:]*]]: tensor<1x2x8x16xf32>
// CHECK: %[[K:.*]] = tg.transpose %[[KT]] perm = [0, 1, 3, 2]
// CHECK: tg.attention %{{.*}}, %[[K]], %{{.*}}
func.func @k_transposed_by_layout(%q: tensor<1x2x16x8xf32>, %kt: tensor<1x2x8x16xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32> {
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// Projections' flat [B,S,H*D] outputs viewed as [B,S,H,D] and transposed;
// the output reshaped back to [B,S,H*D]. Reshapes of contiguous buffers and
// the transposes are all absorbed.
// CHECK-LABEL: func.func @flat_heads
// CHECK-SAME: (%{{[^:]*}}: tensor<1x2x16x8xf16> {tg.strides = array<i64: 256, 8, 16, 1>}
// CHECK-SAME: -> (tensor<1x2x16x8xf16> {tg.strides = array<i64: 256, 8, 16, 1>})
// CHECK-NOT: tg.reshape
// CHECK-NOT: tg.transpose
func.func @flat_heads(%qf: tensor<1x16x16xf16>, %kf: tensor<1x16x16xf16>, %vf: tensor<1x16x16xf16>) -> tensor<1x16x16xf16> {
  %q4 = tg.reshape %qf : tensor<1x16x16xf16> -> tensor<1x16x2x8xf16>
  %k4 = tg.reshape %kf : tensor<1x16x16xf16> -> tensor<1x16x2x8xf16>
  %v4 = tg.reshape %vf : tensor<1x16x16xf16> -> tensor<1x16x2x8xf16>
  %q = tg.transpose %q4 perm = [0, 2, 1, 3] : tensor<1x16x2x8xf16> -> tensor<1x2x16x8xf16>
  %k = tg.transpose %k4 perm = [0, 2, 1, 3] : tensor<1x16x2x8xf16> -> tensor<1x2x16x8xf16>
  %v = tg.transpose %v4 perm = [0, 2, 1, 3] : tensor<1x16x2x8xf16> -> tensor<1x2x16x8xf16>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf16> -> tensor<1x2x8x16xf16>
  %s = tg.matmul %q, %kt : tensor<1x2x16x8xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x16x16xf32>
  %c = tg.constant dense<0.353553385> : tensor<f32>
  %ss = tg.mul %s, %c : tensor<1x2x16x16xf32>, tensor<f32>
  %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
  %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xf16>
  %o = tg.matmul %pc, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x8xf16> -> tensor<1x2x16x8xf16>
  %ot = tg.transpose %o perm = [0, 2, 1, 3] : tensor<1x2x16x8xf16> -> tensor<1x16x2x8xf16>
  %of = tg.reshape %ot : tensor<1x16x2x8xf16> -> tensor<1x16x16xf16>
  return %of : tensor<1x16x16xf16>
}

// An argument with another user keeps its shape: the transpose stays.
// CHECK-LABEL: func.func @shared_argument_keeps_copy
// CHECK: %[[QT:.*]] = tg.transpose
// CHECK: tg.attention %[[QT]]
func.func @shared_argument_keeps_copy(%q: tensor<1x16x2x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x16x2x8xf32>) {
  %qt = tg.transpose %q perm = [0, 2, 1, 3] : tensor<1x16x2x8xf32> -> tensor<1x2x16x8xf32>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x16x8xf32> -> tensor<1x2x8x16xf32>
  %s = tg.matmul %qt, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x16x16xf32>
  %p = tg.softmax %s axis = 3 : tensor<1x2x16x16xf32>
  %o = tg.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %q2 = tg.add %q, %q : tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>
  return %o, %q2 : tensor<1x2x16x8xf32>, tensor<1x16x2x8xf32>
}

