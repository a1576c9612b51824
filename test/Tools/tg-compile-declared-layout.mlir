// Fusion folds the output transpose of Llama's attention into tg.strides
// (a new logical shape over the same bytes); the plan's bound buffers keep
// the layout the graph declares, so bindings are checked against it.
// RUN: tg-compile %tgc_src/examples/models/llama_gqa.mlir --emit=mlir | FileCheck %s --check-prefix=FUSED
// RUN: tg-compile %tgc_src/examples/models/llama_gqa.mlir --emit=plan | FileCheck %s

// FUSED: -> (tensor<1x4x16x16xbf16> {tg.name = "attn_output", tg.strides = array<i64: 1024, 16, 64, 1>})
// CHECK: buffer "attn_output" output bf16 shape [1,16,4,16] strides [1024,64,16,1]
