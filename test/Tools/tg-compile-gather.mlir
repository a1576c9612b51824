// Score regions that gather from table captures reach the NVRTC attention
// kernel as clamping table readers (pointer, sizes, strides); cuDNN refuses
// them with the reason; an attention the kernel cannot take (f32) expands
// into graph-level tg.gather kernels. (Table gradients:
// tg-compile-gather-grad.mlir.)
// RUN: tg-compile %s --entry=relative_bias --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tg-compile %s --entry=relative_bias --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --entry=relative_bias --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: tg-compile %s --entry=relative_bias --emit=mlir --explain-backend 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s --entry=expanded --emit=cuda | FileCheck %s --check-prefix=EXPANDED

// CUDA: // ===== kernel {{.*}}: tg_attention_fwd_bf16_d64
// CUDA: const unsigned short *capture0;  // bf16 table of rank 2
// CUDA-NEXT: long long capture0_size[2], capture0_stride[2];
// CUDA: const long long *capture1;  // i64 table of rank 2
// CUDA: __device__ __forceinline__ long long capture0_offset(const Captures &captures, const long long (&stride)[2], long long i0, long long i1) {
// CUDA: offset += (i0 < 0 ? 0 : i0 < captures.capture0_size[0] ? i0 : captures.capture0_size[0] - 1) * stride[0];
// CUDA: __device__ __forceinline__ float capture0_at(const Captures &captures, long long i0, long long i1) {
// CUDA-NEXT: const unsigned short raw = captures.capture0[capture0_offset(captures, captures.capture0_stride, i0, i1)];
// CUDA: const float capture2 = load_capture_capture2(captures, b, h, q_idx, kv_idx);
// CUDA: --- score modifier ---
// CUDA: = capture0_at(captures, h, [[REL:s_[0-9]+]]); // tg.gather
// CUDA: = (capture1_in_range(captures, b, q_idx) ? capture1_at(captures, b, q_idx) : (-1LL)); // tg.gather
// CUDA: --- end of score modifier ---
// CUDA: const {{.*}} *__restrict__ capture_capture0, long long capture0_size0, long long capture0_size1, long long capture0_stride0, long long capture0_stride1,
// CUDA: const Captures captures{capture_capture0, {capture0_size0, capture0_size1}, {capture0_stride0, capture0_stride1},

// The launch arguments of a table: buffer, sizes, strides (the bias is an
// element capture: buffer and four broadcast strides).
// PLAN: arg buffer "table"
// PLAN-NEXT: arg i64 4
// PLAN-NEXT: arg i64 95
// PLAN-NEXT: arg i64 95
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg buffer "doc"
// PLAN-NEXT: arg i64 2
// PLAN-NEXT: arg i64 48
// PLAN-NEXT: arg i64 48
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg buffer "bias"
// PLAN-NEXT: arg i64 0
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg i64 0
// PLAN-NEXT: arg i64 0

// PTX: .visible .entry tg_attention_fwd_bf16_d64

// EXPLAIN: remark: backend nvrtc: cuDNN cannot run it: capture #0 (tensor<4x95xbf16>) is a table read by tg.gather at computed indices; cuDNN's pointwise operation graph cannot gather (its operands are read only at the score's position)
func.func @relative_bias(%q: tensor<2x4x48x64xbf16> {tg.name = "q"}, %k: tensor<2x4x48x64xbf16> {tg.name = "k"},
                         %v: tensor<2x4x48x64xbf16> {tg.name = "v"}, %table: tensor<4x95xbf16> {tg.name = "table"},
                         %doc: tensor<2x48xi64> {tg.name = "doc"}, %bias: tensor<1x4x1x1xf32> {tg.name = "bias"})
    -> (tensor<2x4x48x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v captures(%table, %doc, %bias : tensor<4x95xbf16>, tensor<2x48xi64>, tensor<1x4x1x1xf32>)
      {scale = 0.125 : f64}
      : tensor<2x4x48x64xbf16>, tensor<2x4x48x64xbf16>, tensor<2x4x48x64xbf16> -> tensor<2x4x48x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>,
       %t: tensor<4x95xbf16>, %d: tensor<2x48xi64>, %be: tensor<f32>):
    %rel = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c47 = tg.constant dense<47> : tensor<i64>
    %r = tg.add %rel, %c47 : tensor<i64>, tensor<i64>
    %e = tg.gather %t[%h, %r] : tensor<4x95xbf16>[tensor<i64>, tensor<i64>]
    %ef = tg.cast %e : tensor<bf16> to tensor<f32>
    %dq = tg.gather %d[%b, %qi] fill(-1) : tensor<2x48xi64>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<2x48xi64>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i64>, tensor<i64>
    %s1 = tg.add %s, %ef : tensor<f32>, tensor<f32>
    %s2 = tg.add %s1, %be : tensor<f32>, tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s2, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<2x4x48x64xbf16>
}

// f32 q/k/v: the fused kernel does not take it, so tg-expand-attention
// writes the region over [B, H, Sq, Skv] tensors: the gather becomes a
// graph-level tg.gather fused into a pointwise kernel.
// EXPANDED: Fused pointwise kernel: {{.*}}gather{{.*}} over [1, 2, 8, 8]
// EXPANDED: // tg.gather
// EXPANDED-NEXT: const float t{{[0-9]+}} = (({{.*}}) ? tg_load(in{{[0-9]+}}, {{.*}}) : __int_as_float(0xff800000));
func.func @expanded(%q: tensor<1x2x8x16xf32>, %table: tensor<2x15xf32>) -> tensor<1x2x8x16xf32> {
  %o = tg.attention %q, %q, %q captures(%table : tensor<2x15xf32>)
      : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x15xf32>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c = tg.constant dense<7> : tensor<i64>
    %r = tg.add %d, %c : tensor<i64>, tensor<i64>
    %e = tg.gather %tt[%h, %r] fill(-inf) : tensor<2x15xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x8x16xf32>
}
