// Every graph of attention-grad-gpu.mlir compiles with its backward on
// cuDNN (what the GPU run then checks numerically).
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=plain_bf16 --emit=cudnn | FileCheck %s
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=causal_f16_s100 --emit=cudnn | FileCheck %s
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=gqa_causal_br_bf16 --emit=cudnn | FileCheck %s
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=hd256_bf16 --emit=cudnn | FileCheck %s
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=gqa_s200_f16 --emit=cudnn | FileCheck %s
// RUN: tg-compile %S/attention-grad-gpu.mlir --entry=training_step_causal_bf16 --emit=cudnn | FileCheck %s

// CHECK: graph "attention bwd (composite)"
// CHECK: end
