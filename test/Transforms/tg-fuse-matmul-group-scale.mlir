// RUN: tg-opt %s --tg-fuse-matmul --mlir-disable-threading=false | FileCheck %s
// Group-wise dequantisation as model code writes it: the weight viewed as
// [K / G, G, N], scaled (and shifted) by [K / G, 1, N] tensors, viewed back
// as [K, N]. The ops are rebuilt on [K, N] and fuse as prologue_b; each
// tensor becomes a [K, N] broadcast-and-reshape of itself (a view the
// lowering reads at row / G).

// int4, cast first (a reshape takes no i4), then scale per group of 128.
// CHECK-LABEL: func.func @i4_group_scale
// CHECK-SAME: (%[[X:[^:]*]]: tensor<16x256xbf16>, %[[W:[^:]*]]: tensor<256x64xi4>, %[[S:[^:]*]]: tensor<2x1x64xbf16>)
// CHECK: %[[B:.*]] = tg.broadcast %[[S]] : tensor<2x1x64xbf16> -> tensor<2x128x64xbf16>
// CHECK: %[[V:.*]] = tg.reshape %[[B]] : tensor<2x128x64xbf16> -> tensor<256x64xbf16>
// CHECK: tg.fused_matmul %[[X]], %[[W]] b_captures(%[[V]] : tensor<256x64xbf16>)
// CHECK: prologue_b {
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<i4>, %[[C:.*]]: tensor<bf16>):
// CHECK-NEXT: %[[H:.*]] = tg.cast %[[E]] : tensor<i4> to tensor<bf16>
// CHECK-NEXT: %[[D:.*]] = tg.mul %[[H]], %[[C]] : tensor<bf16>, tensor<bf16>
// CHECK-NEXT: tg.yield %[[D]]
// CHECK-NOT: tg.matmul
func.func @i4_group_scale(%x: tensor<16x256xbf16>, %w: tensor<256x64xi4>, %s: tensor<2x1x64xbf16>) -> tensor<16x64xbf16> {
  %wf = tg.cast %w : tensor<256x64xi4> to tensor<256x64xbf16>
  %wg = tg.reshape %wf : tensor<256x64xbf16> -> tensor<2x128x64xbf16>
  %ws = tg.mul %wg, %s : tensor<2x128x64xbf16>, tensor<2x1x64xbf16>
  %wd = tg.reshape %ws : tensor<2x128x64xbf16> -> tensor<256x64xbf16>
  %y = tg.matmul %x, %wd : tensor<16x256xbf16>, tensor<256x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// int8 viewed before its cast; zero points then scales per group of 32;
// a splat constant and a per-column tensor keep their own forms.
// CHECK-LABEL: func.func @i8_zero_points
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x128xf16>, %[[W:[^:]*]]: tensor<128x32xi8>, %[[Z:[^:]*]]: tensor<4x1x32xf16>, %[[S:[^:]*]]: tensor<4x1x32xf16>, %[[COL:[^:]*]]: tensor<1x1x32xf16>)
// CHECK-DAG: %[[ZV:.*]] = tg.reshape %{{.*}} : tensor<4x32x32xf16> -> tensor<128x32xf16>
// CHECK-DAG: %[[SV:.*]] = tg.reshape %{{.*}} : tensor<4x32x32xf16> -> tensor<128x32xf16>
// CHECK-DAG: %[[CV:.*]] = tg.reshape %[[COL]] : tensor<1x1x32xf16> -> tensor<1x32xf16>
// CHECK: tg.fused_matmul %[[X]], %[[W]] b_captures(%[[ZV]], %[[SV]], %[[CV]] : tensor<128x32xf16>, tensor<128x32xf16>, tensor<1x32xf16>)
// CHECK: prologue_b {
// CHECK-NEXT: ^bb0(%[[E:.*]]: tensor<i8>, %[[CZ:.*]]: tensor<f16>, %[[CS:.*]]: tensor<f16>, %[[CC:.*]]: tensor<f16>):
// CHECK-NEXT: %[[H:.*]] = tg.cast %[[E]] : tensor<i8> to tensor<f16>
// CHECK-NEXT: %[[SUB:.*]] = tg.sub %[[H]], %[[CZ]]
// CHECK-NEXT: %[[MUL:.*]] = tg.mul %[[SUB]], %[[CS]]
// CHECK-NEXT: %[[HALF:.*]] = tg.constant dense<5.000000e-01> : tensor<f16>
// CHECK-NEXT: %[[M2:.*]] = tg.mul %[[MUL]], %[[HALF]]
// CHECK-NEXT: %[[M3:.*]] = tg.mul %[[M2]], %[[CC]]
// CHECK-NEXT: tg.yield %[[M3]]
// CHECK-NOT: tg.matmul
func.func @i8_zero_points(%x: tensor<4x128xf16>, %w: tensor<128x32xi8>, %z: tensor<4x1x32xf16>,
                          %s: tensor<4x1x32xf16>, %col: tensor<1x1x32xf16>) -> tensor<4x32xf16> {
  %half = tg.constant dense<0.5> : tensor<1x1x1xf16>
  %wg = tg.reshape %w : tensor<128x32xi8> -> tensor<4x32x32xi8>
  %wf = tg.cast %wg : tensor<4x32x32xi8> to tensor<4x32x32xf16>
  %wz = tg.sub %wf, %z : tensor<4x32x32xf16>, tensor<4x1x32xf16>
  %ws = tg.mul %wz, %s : tensor<4x32x32xf16>, tensor<4x1x32xf16>
  %wh = tg.mul %ws, %half : tensor<4x32x32xf16>, tensor<1x1x1xf16>
  %wc = tg.mul %wh, %col : tensor<4x32x32xf16>, tensor<1x1x32xf16>
  %wd = tg.reshape %wc : tensor<4x32x32xf16> -> tensor<128x32xf16>
  %y = tg.matmul %x, %wd : tensor<4x128xf16>, tensor<128x32xf16> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// A tensor that varies inside a group has no [K, N] view: the graph stays
// as written (the scaled weight is computed, then the matmul reads it).
// CHECK-LABEL: func.func @varies_inside_group
// CHECK: tg.reshape %{{.*}} : tensor<128x32xf16> -> tensor<4x32x32xf16>
// CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<4x32x32xf16>, tensor<1x32x32xf16>
// CHECK: tg.reshape %{{.*}} : tensor<4x32x32xf16> -> tensor<128x32xf16>
// CHECK: tg.matmul
func.func @varies_inside_group(%x: tensor<4x128xf16>, %w: tensor<128x32xf16>, %s: tensor<1x32x32xf16>) -> tensor<4x32xf16> {
  %wg = tg.reshape %w : tensor<128x32xf16> -> tensor<4x32x32xf16>
  %ws = tg.mul %wg, %s : tensor<4x32x32xf16>, tensor<1x32x32xf16>
  %wd = tg.reshape %ws : tensor<4x32x32xf16> -> tensor<128x32xf16>
  %y = tg.matmul %x, %wd : tensor<4x128xf16>, tensor<128x32xf16> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// The scaled view has another user: it is computed once, as written.
// CHECK-LABEL: func.func @shared_view
// CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<4x32x32xf16>, tensor<4x1x32xf16>
// CHECK: tg.matmul
func.func @shared_view(%x: tensor<4x128xf16>, %w: tensor<128x32xf16>, %s: tensor<4x1x32xf16>) -> (tensor<4x32xf16>, tensor<4x32x32xf16>) {
  %wg = tg.reshape %w : tensor<128x32xf16> -> tensor<4x32x32xf16>
  %ws = tg.mul %wg, %s : tensor<4x32x32xf16>, tensor<4x1x32xf16>
  %wd = tg.reshape %ws : tensor<4x32x32xf16> -> tensor<128x32xf16>
  %y = tg.matmul %x, %wd : tensor<4x128xf16>, tensor<128x32xf16> -> tensor<4x32xf16>
  return %y, %ws : tensor<4x32xf16>, tensor<4x32x32xf16>
}
