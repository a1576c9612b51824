// examples/mixed_attention_matmul.mlir under --backend=auto: the attention
// goes to cuDNN (the fused sdpa_fwd op, else the composite graph), the
// int8 x bf16 output projection goes to cuDNN as a mixed-input matmul
// (identity conversion of the weights, per-channel scale, bias and residual
// in the epilogue), the head merge stays an NVRTC kernel (no remark: it is
// not a candidate). With --backend=nvrtc nothing goes to cuDNN. The graph
// text is that of the fused plan (--mixed-matmul=fused): under auto the
// measured table may send the projection to the dequant plan instead.
// RUN: tg-compile %tgc_src/examples/mixed_attention_matmul.mlir --explain-backend -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %tgc_src/examples/mixed_attention_matmul.mlir --emit=cudnn --mixed-matmul=fused | FileCheck %s --check-prefix=CUDNN
// RUN: tg-compile %tgc_src/examples/mixed_attention_matmul.mlir --backend=nvrtc --emit=cudnn | FileCheck %s --check-prefix=NVRTC --allow-empty

// EXPLAIN: mixed_attention_matmul.mlir:30:8: remark: backend cudnn:
// EXPLAIN: mixed_attention_matmul.mlir:37:8: remark: backend cudnn: cuDNN matmul is faster than the generic matmul kernel
// EXPLAIN-NOT: remark: backend

// CUDNN: ===== step {{[0-9]+}} (cudnn), fallback kernel
// CUDNN-NEXT: graph "attention fwd (sdpa_fwd)"
// CUDNN: op sdpa_fwd
// CUDNN: graph "attention fwd (composite)"
// CUDNN: ===== step {{[0-9]+}} (cudnn), fallback kernel
// CUDNN-NEXT: graph "tg.fused_matmul bf16 x i8 -> bf16"
// CUDNN-DAG: tensor [[X:[0-9]+]] bf16 [1,256,512] [131072,512,1] buffer "t{{[0-9]+}}"
// CUDNN-DAG: tensor [[W:[0-9]+]] i8 [1,512,512] [262144,512,1] buffer "w_o"
// CUDNN-DAG: tensor [[S:[0-9]+]] bf16 [1,1,512] [512,512,1] buffer "w_o_scale"
// CUDNN-DAG: tensor [[B:[0-9]+]] f32 [1,1,512] [512,512,1] buffer "b_o"
// CUDNN-DAG: tensor [[R:[0-9]+]] bf16 [1,256,512] [131072,512,1] buffer "residual"
// CUDNN-DAG: tensor [[Y:[0-9]+]] bf16 [1,256,512] [131072,512,1] buffer "y"
// CUDNN: op pointwise identity compute f32 x [[W]] y [[WH:[0-9]+]]
// CUDNN-NEXT: op pointwise mul compute f32 x [[WH]] b [[S]] y [[WD:[0-9]+]]
// CUDNN-NEXT: op pointwise mul compute f32 x [[WD]] b {{[0-9]+}} y [[WS:[0-9]+]]
// CUDNN-NEXT: op matmul compute f32 a [[X]] b [[WS]] c [[ACC:[0-9]+]]
// CUDNN-NEXT: op pointwise add compute f32 x [[ACC]] b [[B]] y [[BIASED:[0-9]+]]
// The bf16 residual widened to f32 needs no identity op: the add reads it.
// CUDNN-NEXT: op pointwise add compute f32 x [[BIASED]] b [[R]] y [[SUM:[0-9]+]]
// CUDNN-NEXT: op pointwise identity compute f32 x [[SUM]] y [[Y]]
// CUDNN-NEXT: end
// CUDNN-NOT: graph

// NVRTC-NOT: cudnn
