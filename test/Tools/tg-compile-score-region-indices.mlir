// The score region's index arithmetic: integer ops whose values provably
// fit int32 (indices within the scores' sizes, constants exact) compute in
// 32 bits, and so do their casts to float; a product that may leave that
// range stays a wrapping 64-bit op. A capture broadcast over the query and key dims is
// read without their terms (once per head, not per score).
// RUN: tg-compile %s --emit=cuda --backend=nvrtc | FileCheck %s

// CHECK: // ===== kernel {{.*}}: tg_attention_fwd_bf16_d64
// CHECK: const float raw = captures.capture0[h * captures.capture0_stride_h];
// CHECK: const long long kv_idx = imin(
// CHECK: const int s_0 = (int)(kv_idx) - (int)(q_idx); // tg.sub
// CHECK-NEXT: const int s_1 = (int)(s_0) + (int)((-3LL)); // tg.add
// CHECK-NEXT: const int s_2 = max((int)(s_1), (int)(0LL)); // tg.max
// CHECK-NEXT: const float s_3 = (float)((int)(s_2)); // tg.cast
// CHECK-NEXT: const int s_4 = (int)(q_idx) * (int)(kv_idx); // tg.mul
// CHECK-NEXT: const long long s_5 = tg_imul(q_idx, 1073741824LL); // tg.mul
// CHECK-NEXT: const float s_6 = (float)(s_5); // tg.cast
func.func @indices(%q: tensor<1x4x40x64xbf16> {tg.name = "q"}, %k: tensor<1x4x50x64xbf16> {tg.name = "k"},
                   %v: tensor<1x4x50x64xbf16> {tg.name = "v"}, %slope: tensor<1x4x1x1xf32> {tg.name = "slope"})
    -> (tensor<1x4x40x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v captures(%slope : tensor<1x4x1x1xf32>) {scale = 0.125 : f64}
      : tensor<1x4x40x64xbf16>, tensor<1x4x50x64xbf16>, tensor<1x4x50x64xbf16> -> tensor<1x4x40x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %m: tensor<f32>):
    %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
    %c = tg.constant dense<-3> : tensor<i64>
    %e = tg.add %d, %c : tensor<i64>, tensor<i64>
    %z = tg.constant dense<0> : tensor<i64>
    %r = tg.max %e, %z : tensor<i64>, tensor<i64>
    %rf = tg.cast %r : tensor<i64> to tensor<f32>
    %p = tg.mul %qi, %ki : tensor<i64>, tensor<i64>
    %big = tg.constant dense<1073741824> : tensor<i64>
    %p2 = tg.mul %qi, %big : tensor<i64>, tensor<i64>
    %pf = tg.cast %p2 : tensor<i64> to tensor<f32>
    %pq = tg.cast %p : tensor<i64> to tensor<f32>
    %t = tg.mul %rf, %m : tensor<f32>, tensor<f32>
    %u = tg.add %s, %t : tensor<f32>, tensor<f32>
    %w = tg.add %u, %pf : tensor<f32>, tensor<f32>
    %x = tg.add %w, %pq : tensor<f32>, tensor<f32>
    tg.yield %x : tensor<f32>
  }
  return %o : tensor<1x4x40x64xbf16>
}
