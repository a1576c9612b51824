// Binding names and memory layouts on graph arguments and results.
// RUN: tg-opt %s | tg-opt | FileCheck %s
// RUN: tg-opt %s --mlir-print-op-generic | tg-opt | FileCheck %s

// A [B,S,H,D] buffer fed as logical [B,H,S,D] without a copy, a padded row
// pitch, and size-1 dimensions whose stride does not matter.
// CHECK-LABEL: func.func @bindings
// CHECK-SAME: (%{{.*}}: tensor<2x8x128x64xbf16> {tg.name = "q", tg.strides = array<i64: 65536, 64, 512, 1>},
// CHECK-SAME: %{{.*}}: tensor<4x6xf32> {tg.name = "padded", tg.strides = array<i64: 8, 1>},
// CHECK-SAME: %{{.*}}: tensor<1x5x1xf32> {tg.strides = array<i64: 1, 1, 7>},
// CHECK-SAME: %{{.*}}: tensor<f32> {tg.strides = array<i64>})
// CHECK-SAME: -> (tensor<2x8x128x64xbf16> {tg.name = "out", tg.strides = array<i64: 65536, 8192, 64, 1>})
func.func @bindings(%q: tensor<2x8x128x64xbf16> {tg.name = "q", tg.strides = array<i64: 65536, 64, 512, 1>},
                    %p: tensor<4x6xf32> {tg.name = "padded", tg.strides = array<i64: 8, 1>},
                    %u: tensor<1x5x1xf32> {tg.strides = array<i64: 1, 1, 7>},
                    %s: tensor<f32> {tg.strides = array<i64>})
    -> (tensor<2x8x128x64xbf16> {tg.name = "out", tg.strides = array<i64: 65536, 8192, 64, 1>}) {
  return %q : tensor<2x8x128x64xbf16>
}

// Column-major is a valid layout too.
// CHECK-LABEL: func.func @column_major
// CHECK-SAME: tensor<3x4xf16> {tg.strides = array<i64: 1, 3>}
func.func @column_major(%x: tensor<3x4xf16> {tg.strides = array<i64: 1, 3>}) -> tensor<3x4xf16> {
  return %x : tensor<3x4xf16>
}

// A declaration has no entry block: its attributes are checked against its
// signature (the verifier used to read the missing block and crash).
// CHECK-LABEL: func.func private @declared
// CHECK-SAME: (tensor<2x3xf32> {tg.name = "x", tg.strides = array<i64: 4, 1>}) -> (tensor<2xf32> {tg.name = "y"})
func.func private @declared(tensor<2x3xf32> {tg.name = "x", tg.strides = array<i64: 4, 1>}) -> (tensor<2xf32> {tg.name = "y"})
