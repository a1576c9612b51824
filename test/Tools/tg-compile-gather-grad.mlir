// tg.attention_grad returning a table's gradient (grad_captures of a table
// capture): the fused NVRTC backward computes it, each gather's derivative
// added with f32 atomics where that gather read (clamped; nothing for a
// fill-mode read out of range) into a zeroed f32 accumulator, then rounded to
// the table's type. What cannot compute it refuses with the reason, never a
// silently missing result: the expansion into tg ops (no scatter-add), cuDNN
// (no gather) and the deterministic backward (atomics at computed positions);
// the expansion's refusal: test/Transforms/tg-expand-attention-table-grad.mlir.
// RUN: tg-compile %s --entry=table_gradient --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --entry=table_gradient --backend=cudnn --emit=plan | FileCheck %s --check-prefix=PLAN
// RUN: tg-compile %s --entry=table_gradient --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: tg-compile %s --entry=table_gradient --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tg-opt %s --tg-select-backend="backend=cudnn explain=true" 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: tg-compile %s --emit=mlir --explain-backend --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=FUSED
// RUN: not tg-compile %s --entry=table_gradient --deterministic -o /dev/null 2>&1 | FileCheck %s --check-prefix=DET

// EXPLAIN: remark: backend nvrtc: cudnn was requested but capture #0 (tensor<2x15xbf16>) is a table read by tg.gather at computed indices; cuDNN's pointwise operation graph cannot gather (its operands are read only at the score's position), nor scatter-add the table gradients

// FUSED: remark: backend nvrtc: cuDNN cannot run it: capture #0 (tensor<2x15xbf16>) is a table read by tg.gather at computed indices; {{.*}}; fused kernel

// The bf16 table's f32 accumulator [2, 15] is zeroed, passed with its dense
// strides after the table (buffer, sizes, strides), then rounded into dt.
// PLAN: buffer "[[ACC:t[0-9]+]]" intermediate f32 shape [2,15]
// PLAN: kernel "[[CONV:k[0-9]+]]" entry "tg_attention_bwd_capture_grad_bf16" target portable 80
// PLAN: memset "[[ACC]]" 0
// PLAN-NEXT: {{^}}launch{{$}}
// PLAN: arg buffer "table"
// PLAN-NEXT: arg i64 2
// PLAN-NEXT: arg i64 15
// PLAN-NEXT: arg i64 15
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg buffer "[[ACC]]"
// PLAN-NEXT: arg i64 15
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: {{^}}launch{{$}}
// PLAN-NEXT: variant "[[CONV]]" grid [1,1,1] block [256,1,1] smem 0
// PLAN-NEXT: arg buffer "[[ACC]]"
// PLAN-NEXT: arg buffer "dt"
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg i64 1
// PLAN-NEXT: arg i64 30

// Where each gather read is recorded by evaluating the region again; each
// gather's derivative (the other factor times dz) is added there, the fill
// read only where it was in range.
// CUDA: void capture0_grad_add(float value, long long i0, long long i1) const {
// CUDA-NEXT: atomicAdd(grad_capture0 + capture0_offset(captures, capture0_grad_stride, i0, i1), value);
// CUDA: --- gradient of table capture0 (through capture0_grad_add) ---
// CUDA: long long dcap_at0[2];
// CUDA-NEXT: bool dcap_read0 = true;
// CUDA-NEXT: long long dcap_at1[2];
// CUDA-NEXT: bool dcap_read1 = true;
// CUDA: = (dcap_at0[0] = h, dcap_at0[1] = q_idx, capture0_at(captures, h, q_idx)); // tg.gather
// CUDA: = (dcap_at1[0] = h, dcap_at1[1] = kv_idx, dcap_read1 = capture0_in_range(captures, h, kv_idx), (capture0_in_range(captures, h, kv_idx) ? capture0_at(captures, h, kv_idx) : 0.0f)); // tg.gather
// CUDA: if (dcap_read0) {  // gather 0
// CUDA: capture0_grad_add(dcap, dcap_at0[0], dcap_at0[1]);
// CUDA: if (dcap_read1) {  // gather 1
// CUDA: capture0_grad_add(dcap, dcap_at1[0], dcap_at1[1]);
// CUDA: const unsigned short *__restrict__ capture_capture0, long long capture0_size0, long long capture0_size1, long long capture0_stride0, long long capture0_stride1,
// CUDA-NEXT: float *__restrict__ grad_capture0, long long capture0_grad_stride0, long long capture0_grad_stride1) {

// PTX: .entry tg_attention_bwd_bf16_dqk16_dv16_
// PTX: atom.global.add.f32

// DET: error: 'tg.attention_grad' op the deterministic backward cannot add the gradient of table capture 0: its elements are sums of f32 atomics at positions the score region computes, in no fixed order; compile without --deterministic

func.func @table_gradient(%q: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %lse: tensor<1x2x8x1xf32>,
                          %table: tensor<2x15xbf16> {tg.name = "table"}) -> (tensor<2x15xbf16> {tg.name = "dt"}) {
  %dq, %dk, %dv, %dt = tg.attention_grad %q, %q, %q, %o, %o, %lse captures(%table : tensor<2x15xbf16>)
      {grad_captures = array<i64: 0>}
      : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>,
        tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x15xbf16>):
    %e = tg.gather %t[%h, %qi] : tensor<2x15xbf16>[tensor<i64>, tensor<i64>]
    %f = tg.gather %t[%h, %ki] fill(0.0) : tensor<2x15xbf16>[tensor<i64>, tensor<i64>]
    %e32 = tg.cast %e : tensor<bf16> to tensor<f32>
    %f32 = tg.cast %f : tensor<bf16> to tensor<f32>
    %ef = tg.mul %e32, %f32 : tensor<f32>, tensor<f32>
    %z = tg.add %s, %ef : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  } capture_grads(tensor<2x15xbf16>)
  return %dt : tensor<2x15xbf16>
}
