// RUN: tg-emit-kernels %s | FileCheck %s

// A graph-level tg.gather is pointwise in its indices: it fuses with the ops
// of its shape, loads each index, and reads the table at the clamped values
// (no load is ever out of bounds); fill mode tests the unclamped indices.
// (The add has another shape: a kernel of its own.)
// CHECK-LABEL: // ===== @relative_bias: kernels: 2
// CHECK: Fused pointwise kernel: gather+cast over [1, 8, 16, 16]
// CHECK: const long long x0 = tg_load(in0, c1); // tensor<1x8x1x1xi64>
// CHECK-NEXT: const long long x1 = tg_load(in1, c2 * 16 + c3); // tensor<1x1x16x16xi64>
// CHECK: // tg.gather
// CHECK-NEXT: const float t0 = tg_load(in2, (x0 < 0LL ? 0LL : x0 > 7LL ? 7LL : x0) * 31 + (x1 < 0LL ? 0LL : x1 > 30LL ? 30LL : x1));
// CHECK: // tg.cast
// CHECK: Fused pointwise kernel: add over [2, 8, 16, 16]
func.func @relative_bias(%t: tensor<8x31xbf16>, %h: tensor<1x8x1x1xi64>, %r: tensor<1x1x16x16xi64>,
                         %s: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  %b = tg.gather %t[%h, %r] : tensor<8x31xbf16>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  %bf = tg.cast %b : tensor<1x8x16x16xbf16> to tensor<1x8x16x16xf32>
  %z = tg.add %s, %bf : tensor<2x8x16x16xf32>, tensor<1x8x16x16xf32>
  return %z : tensor<2x8x16x16xf32>
}

// The table is read through its view (a transpose folds into the strides);
// gen_index indices are the coordinates themselves.
// CHECK-LABEL: // ===== @document_ids: kernels: 1
// CHECK: const long long x0 = c0; // tensor<2x1xi64>
// CHECK-NEXT: const long long x1 = tg_load(in0, c1); // tensor<1x64xi64>
// CHECK: const long long t0 = ((x0 >= 0LL && x0 <= 1LL && x1 >= 0LL && x1 <= 63LL) ? tg_load(in1, (x0 < 0LL ? 0LL : x0 > 1LL ? 1LL : x0) + (x1 < 0LL ? 0LL : x1 > 63LL ? 63LL : x1) * 2) : (-1LL));
func.func @document_ids(%doc: tensor<64x2xi32>, %pos: tensor<1x64xi64>) -> tensor<2x64xi1> {
  %dt = tg.transpose %doc perm = [1, 0] : tensor<64x2xi32> -> tensor<2x64xi32>
  %b = tg.gen_index axis = 0 : tensor<2x1xi64>
  %g = tg.gather %dt[%b, %pos] fill(-1) : tensor<2x64xi32>[tensor<2x1xi64>, tensor<1x64xi64>]
  %c = tg.constant dense<3> : tensor<i32>
  %e = tg.cmp eq, %g, %c : tensor<2x64xi32>, tensor<i32>
  return %e : tensor<2x64xi1>
}

// A table computed by a pointwise op of the same shape is not fused into the
// gather (it is read at other positions): it gets its own kernel first.
// CHECK-LABEL: // ===== @computed_table: kernels: 2
// CHECK: Fused pointwise kernel: add over [4, 4]
// CHECK: Fused pointwise kernel: gather over [4, 4]
func.func @computed_table(%x: tensor<4x4xi64>, %i: tensor<4x4xi64>) -> tensor<4x4xi64> {
  %t = tg.add %x, %x : tensor<4x4xi64>, tensor<4x4xi64>
  %g = tg.gather %t[%i, %i] : tensor<4x4xi64>[tensor<4x4xi64>, tensor<4x4xi64>]
  return %g : tensor<4x4xi64>
}
