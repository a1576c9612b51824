// A key bound in the score region's masks (prefix-LM: `kv_idx < prefix[b]
// or kv_idx <= q_idx`) makes the fused kernels end each query tile's keys
// (forward) and start each key tile's query rows (backward) at the bound
// (docs/kernels.md, "Key bounds"); masks that bound no key do not.
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --backend=nvrtc --entry=prefix_lm --emit=cuda | FileCheck %s --check-prefix=PREFIX
// RUN: tg-compile %s --backend=nvrtc --entry=limit_only --emit=cuda | FileCheck %s --check-prefix=LIMIT
// RUN: tg-compile %s --backend=nvrtc --entry=rows_either_side --emit=cuda | FileCheck %s --check-prefix=ROWS
// RUN: tg-compile %s --backend=nvrtc --entry=not_bounds --emit=cuda | FileCheck %s --check-prefix=NONE
// RUN: tg-compile %s --backend=nvrtc --entry=prefix_grad --emit=cuda | FileCheck %s --check-prefix=GRAD
// RUN: tg-compile %s --backend=nvrtc --entry=prefix_grad --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX

// PREFIX: padding q no kv no, key bound
// PREFIX: static constexpr bool kKeyLimit = true;
// PREFIX-NEXT: static constexpr bool kKeyBoundRows = true;
// PREFIX-NEXT: static constexpr int kKeyBoundRowOffset = 1;
// PREFIX: long long key_limit(long long b, long long h) const {
// PREFIX-NEXT: using namespace tg::device;
// PREFIX-NEXT: return capture0_at(captures, b);

// A limit alone, written `limit[b, h] >= kv_idx` (an i32 table widened to
// the i64 index).
// LIMIT: static constexpr bool kKeyLimit = true;
// LIMIT-NEXT: static constexpr bool kKeyBoundRows = false;
// LIMIT: return (capture0_at(captures, b, h)) + 1;

// The row term alone, written `q_idx >= kv_idx`, or'd with itself as
// select(a, a, b): the causal bound (q + 1).
// ROWS: static constexpr bool kKeyLimit = false;
// ROWS-NEXT: static constexpr bool kKeyBoundRows = true;
// ROWS-NEXT: static constexpr int kKeyBoundRowOffset = 1;

// NONE: static constexpr bool kKeyLimit = false;
// NONE-NEXT: static constexpr bool kKeyBoundRows = false;
// NONE-NOT: key_limit(long long b

// GRAD: key bound
// GRAD: static constexpr bool kKeyLimit = true;
// GRAD-NEXT: static constexpr bool kKeyBoundRows = true;
// GRAD-NEXT: static constexpr int kKeyBoundRowOffset = 1;
// GRAD: long long key_limit(long long b, long long h) const {
// GRAD-NEXT: return capture0_at(captures, b);

// PTX: .visible .entry tg_attention_bwd_bf16_dqk64_dv64_

func.func @limit_only(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>,
                      %len: tensor<2x2xi32>) -> tensor<2x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%len : tensor<2x2xi32>) {scale = 0.125 : f64}
      : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x2xi32>):
    %l = tg.gather %t[%b, %h] : tensor<2x2xi32>[tensor<i64>, tensor<i64>]
    %l64 = tg.cast %l : tensor<i32> to tensor<i64>
    %keep = tg.cmp ge, %l64, %ki : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %keep, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<2x2x64x64xbf16>
}

func.func @rows_either_side(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>)
    -> tensor<2x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c = tg.cmp ge, %qi, %ki : tensor<i64>, tensor<i64>
    %keep = tg.select %c, %c, %c : tensor<i1>, tensor<i1>, tensor<i1>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %keep, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<2x2x64x64xbf16>
}

// Not key bounds: a lower bound (kv_idx > limit), a row term with an offset
// the finder does not take (kv_idx <= q_idx + 3), and a disjunction with a
// term that bounds nothing (a document test).
func.func @not_bounds(%q: tensor<2x2x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>,
                      %pre: tensor<2xi64>, %doc: tensor<2x64xi32>) -> tensor<2x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%pre, %doc : tensor<2xi64>, tensor<2x64xi32>) {scale = 0.125 : f64}
      : tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2xi64>,
       %d: tensor<2x64xi32>):
    %l = tg.gather %t[%b] : tensor<2xi64>[tensor<i64>]
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %after = tg.cmp gt, %ki, %l : tensor<i64>, tensor<i64>
    %z1 = tg.select %after, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    %c3 = tg.constant dense<3> : tensor<i64>
    %q3 = tg.add %qi, %c3 : tensor<i64>, tensor<i64>
    %near = tg.cmp le, %ki, %q3 : tensor<i64>, tensor<i64>
    %z2 = tg.select %near, %z1, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    %dq = tg.gather %d[%b, %qi] : tensor<2x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<2x64xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
    %inprefix = tg.cmp lt, %ki, %l : tensor<i64>, tensor<i64>
    %true = tg.constant dense<true> : tensor<i1>
    %either = tg.select %inprefix, %true, %same : tensor<i1>, tensor<i1>, tensor<i1>
    %z3 = tg.select %either, %z2, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z3 : tensor<f32>
  }
  return %o : tensor<2x2x64x64xbf16>
}

func.func @prefix_grad(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %pre: tensor<2xi64> {tg.name = "prefix"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%pre : tensor<2xi64>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2xi64>):
    %l = tg.gather %t[%b] : tensor<2xi64>[tensor<i64>]
    %inprefix = tg.cmp lt, %ki, %l : tensor<i64>, tensor<i64>
    %causal = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>
    %true = tg.constant dense<true> : tensor<i1>
    %vis = tg.select %inprefix, %true, %causal : tensor<i1>, tensor<i1>, tensor<i1>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %vis, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}
