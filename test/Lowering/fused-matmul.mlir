// RUN: tg-emit-kernels %s | FileCheck %s

// Prologues run on each staged element (captures read at the operand's
// coordinates), the epilogue on each accumulator before the store. (N = 24
// is no multiple of 16, so the mixed-input kernel of mixed-matmul.mlir
// does not take this one.)
// CHECK-LABEL: // ===== @dequant: kernels: 1
// CHECK: // ----- kernel 0: tg.fused_matmul 16x24x64 wmma f16
// CHECK: // args: %{{.*}} (in) %[[W:.*]] (in) %[[SCALE:.*]] (in) %[[BIAS:.*]] (in) %{{.*}} (out)
// CHECK: const long long b_elem = tg_load(in1, k * 24 + n);
// CHECK-NEXT: // prologue_b
// CHECK-NEXT: const float b_cap0 = tg_load(in2, n);
// CHECK-NEXT: float b_pro;
// CHECK-NEXT: {
// CHECK-NEXT: const float b_pro_0 = tg_round_f16((float)(b_elem)); // tg.cast
// CHECK-NEXT: const float b_pro_1 = tg_round_f16(b_pro_0 * b_cap0); // tg.mul
// CHECK-NEXT: b_pro = b_pro_1;
// CHECK-NEXT: }
// CHECK-NEXT: staged = __float2half_rn(b_pro);
// CHECK: const float acc_elem = tileC[r][c];
// CHECK-NEXT: // epilogue
// CHECK-NEXT: const float epi_cap0 = tg_load(in3, n);
// CHECK-NEXT: float result;
// CHECK-NEXT: {
// CHECK-NEXT: const float result_0 = acc_elem + epi_cap0; // tg.add
// CHECK-NEXT: const float result_1 = tg_fmax(result_0, 0.0f); // tg.max
// CHECK-NEXT: const float result_2 = tg_round_bf16(result_1); // tg.cast
// CHECK-NEXT: result = result_2;
// CHECK-NEXT: }
// CHECK-NEXT: tg_store(out0, m * kN + n, result);
func.func @dequant(%x: tensor<16x64xf16>, %w: tensor<64x24xi8>, %scale: tensor<1x24xf16>, %bias: tensor<1x24xf32>) -> tensor<16x24xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x24xf16>) epilogue_captures(%bias : tensor<1x24xf32>)
      : tensor<16x64xf16>, tensor<64x24xi8> -> tensor<16x24xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %d = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %z = tg.constant dense<0.0> : tensor<f32>
      %a = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %r = tg.max %a, %z : tensor<f32>, tensor<f32>
      %c = tg.cast %r : tensor<f32> to tensor<bf16>
      tg.yield %c : tensor<bf16>
    }
  return %y : tensor<16x24xbf16>
}

// A prologue that yields f32 selects the SIMT engine; a scalar capture is
// read at offset 0; batched captures use the batch coordinates.
// CHECK-LABEL: // ===== @f32_prologue: kernels: 1
// CHECK: tg.fused_matmul 17x5x9 batch 3 simt
// CHECK: const float a_elem = tg_load(in0, b0 * 153 + m * 9 + k);
// CHECK-NEXT: // prologue_a
// CHECK-NEXT: const float a_cap0 = tg_load(in1, 0);
// CHECK-NEXT: float a_pro;
// CHECK: const float a_pro_0 = a_elem; // tg.cast
// CHECK-NEXT: const float a_pro_1 = a_pro_0 * a_cap0; // tg.mul
// CHECK: staged = a_pro;
// CHECK: const float epi_cap0 = tg_load(in3, b0 * 17 + m);
// CHECK: const float result_0 = tg_round_bf16(acc_elem); // tg.cast
func.func @f32_prologue(%x: tensor<3x17x9xbf16>, %w: tensor<3x9x5xbf16>, %s: tensor<f32>, %rowscale: tensor<3x17x1xf32>) -> tensor<3x17x5xbf16> {
  %y = tg.fused_matmul %x, %w a_captures(%s : tensor<f32>) epilogue_captures(%rowscale : tensor<3x17x1xf32>)
      : tensor<3x17x9xbf16>, tensor<3x9x5xbf16> -> tensor<3x17x5xbf16>
    prologue_a {
    ^bb0(%e: tensor<bf16>, %c: tensor<f32>):
      %f = tg.cast %e : tensor<bf16> to tensor<f32>
      %m = tg.mul %f, %c : tensor<f32>, tensor<f32>
      tg.yield %m : tensor<f32>
    }
    prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %r: tensor<f32>):
      %b = tg.cast %acc : tensor<f32> to tensor<bf16>
      %rb = tg.cast %r : tensor<f32> to tensor<bf16>
      %p = tg.mul %b, %rb : tensor<bf16>, tensor<bf16>
      tg.yield %p : tensor<bf16>
    }
  return %y : tensor<3x17x5xbf16>
}
