// The bloom_alibi attention in examples/models ([B·H, S, D] tensors, ALiBi
// by baddbmm) fuses to exactly one tg.attention (CHECK lines live in the
// example). The interpreter-equivalence test runs it unfused and fused.
// RUN: tg-opt %tgc_src/examples/models/bloom_alibi.mlir --tg-fuse-attention=report=true -verify-diagnostics | FileCheck %tgc_src/examples/models/bloom_alibi.mlir
// RUN: tg-opt %tgc_src/examples/models/bloom_alibi.mlir --tg-fuse-attention | FileCheck %s
// CHECK-COUNT-1: tg.attention
// CHECK-NOT: tg.attention
// CHECK-NOT: tg.softmax
// CHECK-NOT: tg.matmul
