// The t5_compute_bias attention in examples/models fuses to exactly one tg.attention
// (CHECK lines live in the example). The interpreter-equivalence test runs it
// unfused and fused.
// RUN: tg-opt %tgc_src/examples/models/t5_compute_bias.mlir --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %tgc_src/examples/models/t5_compute_bias.mlir
// RUN: tg-opt %tgc_src/examples/models/t5_compute_bias.mlir --tg-fuse-attention | FileCheck %s
// CHECK-COUNT-1: tg.attention
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.softmax
