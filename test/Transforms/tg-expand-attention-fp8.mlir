// tg-expand-attention expands an FP8 tg.attention (not on cuDNN) into tg
// ops the generic kernels run: fp8 x fp8 matmul with f32 accumulation, the
// descales, softmax, amax as abs + reduce max, P scaled and cast to q's fp8
// format, the second fp8 matmul, the descales, amax of O, scale_o and the
// cast to the output type. An FP8 attention assigned to cuDNN stays.
// RUN: tg-opt %s --tg-expand-attention | FileCheck %s

// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[Q:[^:]*]]: {{.*}}, %[[K:[^:]*]]: {{.*}}, %[[V:[^:]*]]: {{.*}}, %[[DQ:[^:]*]]: tensor<f32>, %[[DK:[^:]*]]: tensor<f32>, %[[DV:[^:]*]]: tensor<f32>, %[[DS:[^:]*]]: tensor<f32>, %[[SS:[^:]*]]: tensor<f32>, %[[SO:[^:]*]]: tensor<f32>)
// CHECK-NOT: tg.attention
// CHECK: %[[KT:.*]] = tg.transpose %[[K]]
// CHECK: %[[S:.*]] = tg.matmul %[[Q]], %[[KT]] : tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x32x24xf8E4M3FN> -> tensor<1x2x16x24xf32>
// CHECK: %[[SCALED:.*]] = tg.mul %[[S]], %{{.*}} : tensor<1x2x16x24xf32>, tensor<f32>
// CHECK: %[[S1:.*]] = tg.mul %[[SCALED]], %[[DQ]]
// CHECK: %[[S2:.*]] = tg.mul %[[S1]], %[[DK]]
// CHECK: %[[P:[^,]*]], %[[LSE:[^ ]*]] = tg.softmax %{{.*}} axis = 3
// CHECK: %[[ABSP:.*]] = tg.abs %[[P]]
// CHECK: %[[AS:.*]] = tg.reduce max %[[ABSP]] dims = [0, 1, 2, 3] : tensor<1x2x16x24xf32> -> tensor<f32>
// CHECK: %[[PS:.*]] = tg.mul %[[P]], %[[SS]]
// CHECK: %[[P8:.*]] = tg.cast %[[PS]] : tensor<1x2x16x24xf32> to tensor<1x2x16x24xf8E4M3FN>
// CHECK: %[[PV:.*]] = tg.matmul %[[P8]], %[[V]] : tensor<1x2x16x24xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN> -> tensor<1x2x16x32xf32>
// CHECK: %[[O1:.*]] = tg.mul %[[PV]], %[[DS]]
// CHECK: %[[O2:.*]] = tg.mul %[[O1]], %[[DV]]
// CHECK: %[[ABSO:.*]] = tg.abs %[[O2]]
// CHECK: %[[AO:.*]] = tg.reduce max %[[ABSO]] dims = [0, 1, 2, 3] : tensor<1x2x16x32xf32> -> tensor<f32>
// CHECK: %[[O3:.*]] = tg.mul %[[O2]], %[[SO]]
// CHECK: %[[O:.*]] = tg.cast %[[O3]] : tensor<1x2x16x32xf32> to tensor<1x2x16x32xbf16>
// CHECK: return %[[O]], %[[LSE]], %[[AS]], %[[AO]]
func.func @expanded(%q: tensor<1x2x16x32xf8E4M3FN>, %k: tensor<1x2x24x32xf8E4M3FN>, %v: tensor<1x2x24x32xf8E4M3FN>,
                    %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
    -> (tensor<1x2x16x32xbf16>, tensor<1x2x16x1xf32>, tensor<f32>, tensor<f32>) {
  %o, %lse, %as, %ao = tg.attention %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, scale = 0.125 : f64, training}
      : tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>
      -> tensor<1x2x16x32xbf16>, tensor<1x2x16x1xf32> amax(tensor<f32>, tensor<f32>) score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %lse, %as, %ao : tensor<1x2x16x32xbf16>, tensor<1x2x16x1xf32>, tensor<f32>, tensor<f32>
}

// e5m2 inputs: P is cast to e5m2; without amax results no reduction is made
// for them (the reduce max here is the softmax's, inside tg.softmax).
// CHECK-LABEL: func.func @e5m2
// CHECK: tg.cast %{{.*}} : tensor<1x2x16x16xf32> to tensor<1x2x16x16xf8E5M2>
// CHECK: %[[O:.*]] = tg.cast %{{.*}} : tensor<1x2x16x32xf32> to tensor<1x2x16x32xf8E5M2>
// CHECK-NEXT: return %[[O]]
func.func @e5m2(%q: tensor<1x2x16x32xf8E5M2>, %s: tensor<f32>) -> tensor<1x2x16x32xf8E5M2> {
  %o = tg.attention %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      : tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2>, tensor<1x2x16x32xf8E5M2> -> tensor<1x2x16x32xf8E5M2> score {
  ^bb0(%sc: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %sc : tensor<f32>
  }
  return %o : tensor<1x2x16x32xf8E5M2>
}

// CHECK-LABEL: func.func @on_cudnn
// CHECK: tg.attention {{.*}} fp8_scales(
// CHECK-SAME: tg.backend = #tg<backend cudnn>
// CHECK-NOT: tg.matmul
func.func @on_cudnn(%q: tensor<1x2x16x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<1x2x16x32xf8E4M3FN> {
  %o = tg.attention %q, %q, %q fp8_scales(%s, %s, %s, %s, %s, %s : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {tg.backend = #tg<backend cudnn>}
      : tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN>, tensor<1x2x16x32xf8E4M3FN> -> tensor<1x2x16x32xf8E4M3FN> score {
  ^bb0(%sc: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %sc : tensor<f32>
  }
  return %o : tensor<1x2x16x32xf8E4M3FN>
}
