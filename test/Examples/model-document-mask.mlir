// The document_mask attention in examples/models fuses to one tg.attention per function
// (CHECK lines live in the example). The interpreter-equivalence test runs it
// unfused and fused.
// RUN: tg-opt %tgc_src/examples/models/document_mask.mlir --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %tgc_src/examples/models/document_mask.mlir
// RUN: tg-opt %tgc_src/examples/models/document_mask.mlir --tg-fuse-attention | FileCheck %s
// CHECK-COUNT-3: tg.attention
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.softmax
