// Building blocks shared by the tg.sdpa and tg.sdpa_grad decompositions:
// the attention options gathered from either op, the masked f32 score
// tensor, and the GQA head expansion/reduction.
#ifndef TG_TRANSFORMS_ATTENTIONSCORES_H
#define TG_TRANSFORMS_ATTENTIONSCORES_H

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Masks/OpMasks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <optional>

namespace mlir::tg::detail {

/// The operands and options of tg.sdpa / tg.sdpa_grad that decide the
/// scores, in one place so that both decompositions build them identically.
struct AttentionConfig {
  Value q, k, v, bias, seqLenQ, seqLenKv, seed, offset;
  double scale = 1.0;
  std::optional<double> softcap;
  bool alibi = false;
  CausalMode causal = CausalMode::none;
  std::optional<int64_t> windowLeft, windowRight;
  double dropout = 0.0;
  /// The attribute masks and padding as the masks' value type.
  ::tgc::masks::AttentionMasks masks() const {
    return {maskCausal(causal), windowLeft, windowRight, bool(seqLenQ),
            bool(seqLenKv)};
  }
  /// Applied to the scaled f32 scores before softcap, bias, ALiBi and masks
  /// (tg.attention's score region); null for tg.sdpa.
  std::function<Value(Value)> afterScale;
  /// FP8 attention: the rank-0 f32 descales of q and k, multiplied into the
  /// scaled scores (before `afterScale`); null otherwise.
  Value descaleQ, descaleK;

  static AttentionConfig from(SdpaOp op);
  static AttentionConfig from(SdpaGradOp op);
  /// The operands, scale and attribute masks of a tg.attention; its score
  /// region goes in `afterScale`.
  static AttentionConfig from(AttentionOp op);
  /// The same for a tg.attention_grad (its regions are the caller's).
  static AttentionConfig from(AttentionGradOp op);

  int64_t batch() const;
  int64_t queryHeads() const;
  int64_t kvHeads() const;
  int64_t seqQ() const;
  int64_t seqKv() const;
  /// [B, Hq, Sq, Skv]
  SmallVector<int64_t> scoreShape() const;
};

/// The score tensor after every option of step 1-5 of tg.sdpa's semantics.
struct MaskedScores {
  /// [B, Hq, Sq, Skv] f32; -inf at masked positions.
  Value scores;
  /// tanh(scale * q.kT / softcap) when softcap is set (the backward needs
  /// its derivative), else null.
  Value softcapTanh;
  /// k repeated to the Hq query heads: [B, Hq, Skv, D].
  Value kHeads;
};

/// Builds scale * q.kT in f32, then softcap, bias, ALiBi and the masks.
MaskedScores buildMaskedScores(OpBuilder &b, Location loc,
                               const AttentionConfig &config);

/// Repeats each kv head for the query heads that share it:
/// [B, Hkv, S, D] -> [B, Hkv, 1, S, D] -> [B, Hkv, G, S, D] -> [B, Hq, S, D]
/// with G = Hq / Hkv. Returns `kv` unchanged when G = 1.
Value expandKvHeads(OpBuilder &b, Location loc, Value kv, int64_t queryHeads);

/// The reverse for gradients: sums the G query heads of each kv head,
/// [B, Hq, S, D] -> [B, Hkv, G, S, D] -> [B, Hkv, S, D]. Unchanged when
/// G = 1.
Value sumToKvHeads(OpBuilder &b, Location loc, Value x, int64_t kvHeads);

/// `value` converted to element type `elementType` (no op if it already is).
Value castElements(OpBuilder &b, Location loc, Value value, Type elementType);

/// The results of FP8 attention's second half (AttentionFp8Tail.cpp).
struct Fp8Tail {
  Value output, amaxS, amaxO;
};

/// FP8 attention after the softmax (and dropout), as tg.sdpa specifies it:
/// amax_s = max|p|, p8 = cast(p * scale_s) to `pElementType`,
/// o_acc = (p8 . vHeads) * descale_s * descale_v (f32), amax_o = max|o_acc|,
/// output = cast(o_acc * scale_o) to `outputType`'s element type. `scales`
/// are the six fp8_scales in their operand order.
Fp8Tail buildFp8Tail(OpBuilder &b, Location loc, Value p, Value vHeads,
                     RankedTensorType outputType, Type pElementType,
                     ValueRange scales);

/// Rewrites an FP8 tg.sdpa straight into a tg.attention with the same
/// fp8_scales (SdpaFp8ToAttention.cpp): fusion cannot rebuild the fp8
/// scaling from primitive ops, so FP8 attention never takes that route.
LogicalResult rewriteFp8SdpaToAttention(SdpaOp op, PatternRewriter &rewriter);
/// A ragged tg.sdpa_grad -> tg.attention_grad, directly (its score region
/// from softcap, bias and ALiBi; score_grad derived; dbias as the bias
/// capture's gradient).
LogicalResult rewriteRaggedSdpaGradToAttentionGrad(SdpaGradOp op,
                                                   PatternRewriter &rewriter);

/// What the attention backward reads besides the scores' operands.
struct AttentionGradInputs {
  Value o, dO, stats;
  RankedTensorType dqType, dkType, dvType;
};

struct AttentionGradients {
  Value dq, dk, dv;
  /// P * (dP - D): the gradient of the masked scores, before the chain rule
  /// through the score math (a learnable bias's gradient sums it).
  Value dz;
};

/// The textbook attention backward (DecomposeSdpaGrad.cpp) from the masked
/// scores: P recomputed from the stats, dV, dP, D = rowsum(dO * O),
/// dS = P * (dP - D), then `throughScores` (the chain rule through the
/// score math after the scale: soft-cap, a score_grad region; null for
/// none), the scale, dQ and dK. Shared by tg.sdpa_grad's decomposition and
/// tg.attention_grad's expansion.
AttentionGradients buildAttentionGradients(
    OpBuilder &b, Location loc, const AttentionConfig &config,
    const MaskedScores &scores, const AttentionGradInputs &inputs,
    function_ref<Value(Value)> throughScores);

/// The rewrite of tg.sdpa_grad (DecomposeSdpaGrad.cpp).
void populateDecomposeSdpaGradPatterns(RewritePatternSet &patterns);

} // namespace mlir::tg::detail

#endif // TG_TRANSFORMS_ATTENTIONSCORES_H
