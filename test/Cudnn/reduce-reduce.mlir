// tg.reduce on cuDNN (--backend=cudnn; auto keeps reductions with the
// generated kernels): one reduction op from the bound input into the bound
// result, described with the reduced dims kept as 1 (a result without
// keepdim is the same buffer). Ranks below 3 gain leading unit dims.
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=sum_keepdim | FileCheck %s --check-prefix=SUM
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=max_dropdims | FileCheck %s --check-prefix=MAX
// RUN: tg-compile %s --emit=cudnn --backend=cudnn --entry=min_rank2 | FileCheck %s --check-prefix=MIN
// RUN: tg-opt %s --tg-select-backend=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PINNED

// AUTO: remark: backend nvrtc: the generated kernels fuse it with neighbouring ops
// PINNED: remark: backend cudnn: requested (cudnn)
// SUM-LABEL: graph "tg.reduce sum tensor<2x8x128x64xf32>"
// SUM-DAG: tensor [[X:[0-9]+]] f32 [2,8,128,64] [65536,8192,64,1] buffer "arg0"
// SUM-DAG: tensor [[Y:[0-9]+]] f32 [2,8,128,1] [1024,128,1,1] buffer "result0"
// SUM: op reduction add compute f32 x [[X]] y [[Y]]
// SUM-NEXT: end
func.func @sum_keepdim(%x: tensor<2x8x128x64xf32>) -> tensor<2x8x128x1xf32> {
  %s = tg.reduce sum %x dims = [3] keepdim : tensor<2x8x128x64xf32> -> tensor<2x8x128x1xf32>
  return %s : tensor<2x8x128x1xf32>
}

// AUTO: remark: backend nvrtc: the generated kernels fuse it with neighbouring ops
// PINNED: remark: backend cudnn: requested (cudnn)
// MAX-LABEL: graph "tg.reduce max tensor<2x8x128x64xbf16>"
// MAX-DAG: tensor [[X:[0-9]+]] bf16 [2,8,128,64] [65536,8192,64,1] buffer "arg0"
// MAX-DAG: tensor [[Y:[0-9]+]] bf16 [1,8,1,64] [512,64,64,1] buffer "result0"
// MAX: op reduction max compute f32 x [[X]] y [[Y]]
func.func @max_dropdims(%x: tensor<2x8x128x64xbf16>) -> tensor<8x64xbf16> {
  %m = tg.reduce max %x dims = [0, 2] : tensor<2x8x128x64xbf16> -> tensor<8x64xbf16>
  return %m : tensor<8x64xbf16>
}

// AUTO: remark: backend nvrtc: the generated kernels fuse it with neighbouring ops
// PINNED: remark: backend cudnn: requested (cudnn)
// MIN-LABEL: graph "tg.reduce min tensor<16x32xf16>"
// MIN-DAG: tensor [[X:[0-9]+]] f16 [1,16,32] [512,32,1] buffer "arg0"
// MIN-DAG: tensor [[Y:[0-9]+]] f16 [1,16,1] [16,1,1] buffer "result0"
// MIN: op reduction min compute f32 x [[X]] y [[Y]]
func.func @min_rank2(%x: tensor<16x32xf16>) -> tensor<16xf16> {
  %m = tg.reduce min %x dims = [1] : tensor<16x32xf16> -> tensor<16xf16>
  return %m : tensor<16xf16>
}
