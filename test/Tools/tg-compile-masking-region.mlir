// A score region that only masks (each score kept or set to -inf, by
// conditions that do not read it) keeps the score scale folded into the
// softmax's exponent, in the forward and in the fused backward's
// probabilities (docs/kernels.md, "Regions that only mask"). A region that
// reads the score in a condition or changes it, or a negative scale, keeps
// the score pass.
// RUN: tg-compile %s --backend=nvrtc --entry=document_mask --emit=cuda | FileCheck %s --check-prefix=FOLD
// RUN: tg-compile %s --backend=nvrtc --entry=masks_either_side --emit=cuda | FileCheck %s --check-prefix=FOLD
// Prefix-LM as models write it: the -inf of a bf16 masked_fill reaches the
// f32 region through a cast.
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --backend=nvrtc --entry=prefix_lm --emit=cuda | FileCheck %s --check-prefix=FOLD
// RUN: tg-compile %s --backend=nvrtc --entry=condition_reads_score --emit=cuda | FileCheck %s --check-prefix=PASS
// RUN: tg-compile %s --backend=nvrtc --entry=masked_bias --emit=cuda | FileCheck %s --check-prefix=PASS
// RUN: tg-compile %s --backend=nvrtc --entry=negative_scale --emit=cuda | FileCheck %s --check-prefix=PASS
// RUN: tg-compile %s --backend=nvrtc --entry=document_mask_grad --emit=cuda | FileCheck %s --check-prefix=BWD
// RUN: tg-compile %s --backend=nvrtc --entry=masked_bias_grad --emit=cuda | FileCheck %s --check-prefix=BWDPASS

// FOLD: score modifier yes (masks only, scale folded)
// FOLD: static constexpr bool kScoreMod = true;
// FOLD-NEXT: static constexpr float kScoreScale = 1.0f;
// FOLD: static constexpr float kSoftmaxScaleLog2 = 0.180336878f;
// FOLD: static constexpr bool kSubtractMaxFirst = false;
// FOLD: static constexpr float kSoftmaxScale = 0.125f;

// PASS: static constexpr bool kScoreMod = true;
// PASS-NEXT: static constexpr float kScoreScale = {{(\(-)?}}0.125f
// PASS: static constexpr float kSoftmaxScaleLog2 = 1.44269502f;
// PASS: static constexpr bool kSubtractMaxFirst = true;
// PASS: static constexpr float kSoftmaxScale = 1.0f;

// BWD: score modifier yes (masks only, scale folded)
// BWD: static constexpr bool kScoreMod = true;
// BWD-NEXT: static constexpr bool kScoreMasksOnly = true;

// BWDPASS: static constexpr bool kScoreMod = true;
// BWDPASS-NEXT: static constexpr bool kScoreMasksOnly = false;

// Packed documents: the ids gathered, equal ids kept.
func.func @document_mask(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                         %doc: tensor<1x64xi32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// Two masks, -inf on either side of the select: other documents, then keys
// more than 16 before the query.
func.func @masks_either_side(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                             %doc: tensor<1x64xi32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %other = tg.cmp ne, %dq, %dk : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z1 = tg.select %other, %ninf, %s : tensor<i1>, tensor<f32>, tensor<f32>
    %c16 = tg.constant dense<16> : tensor<i64>
    %dist = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %near = tg.cmp le, %dist, %c16 : tensor<i64>, tensor<i64>
    %z2 = tg.select %near, %z1, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z2 : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// The condition reads the score: max(s) over kept scores is not scale * max.
func.func @condition_reads_score(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>)
    -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %zero = tg.constant dense<0.0> : tensor<f32>
    %pos = tg.cmp gt, %s, %zero : tensor<f32>, tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %pos, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// The kept score is changed (a bias added before the mask).
func.func @masked_bias(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                       %doc: tensor<1x64xi32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>) {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %biased = tg.add %s, %one : tensor<f32>, tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %biased, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// A negative scale: max(scale * x) is scale * min(x), so nothing folds.
func.func @negative_scale(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                          %doc: tensor<1x64xi32>) -> tensor<1x2x64x64xbf16> {
  %o = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>) {scale = -0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

// The fused backward: the document mask's probabilities keep the scale in
// their one FMA; a masked bias recomputes scale * s and the region.
func.func @document_mask_grad(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %doc: tensor<2x100xi32> {tg.name = "doc"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%doc : tensor<2x100xi32>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<2x100xi32>):
    %dq_id = tg.gather %d[%b, %qi] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %dk_id = tg.gather %d[%b, %ki] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq_id, %dk_id : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}

func.func @masked_bias_grad(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %doc: tensor<2x100xi32> {tg.name = "doc"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%doc : tensor<2x100xi32>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<2x100xi32>):
    %dq_id = tg.gather %d[%b, %qi] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %dk_id = tg.gather %d[%b, %ki] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq_id, %dk_id : tensor<i32>, tensor<i32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %biased = tg.add %s, %one : tensor<f32>, tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %biased, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}
