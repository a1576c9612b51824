//===- ScoreRegion.h - Building and simplifying the score region -*- C++ -*-=//
#ifndef TG_TRANSFORMS_SCOREREGION_H
#define TG_TRANSFORMS_SCOREREGION_H

#include "AttentionMatch.h"

namespace mlir::tg::fusion {

/// A score region under construction: a detached block with the arguments
/// (s f32, b, h, q_idx, kv_idx i64, one per capture) and the outside values
/// it captures.
struct ScoreRegion {
  std::unique_ptr<Block> block;
  SmallVector<Value> captures;
};

/// Index of the first capture argument of the score block.
constexpr unsigned kFirstCaptureArg = 5;
/// Block argument numbers of the indices.
constexpr unsigned kBatchArg = 1, kHeadArg = 2, kQueryArg = 3, kKeyArg = 4;

/// Rebuilds the chain's ops as rank-0 math on the scaled score. Values
/// computed from the scores are f32 in the region (precision casts vanish);
/// leaves keep their types: splat constants become scalar constants,
/// gen_index becomes an index argument, pointwise leaf ops are rebuilt, and
/// anything else is captured (rank 0 or rank 4; the rewrite views rank-0
/// captures as [1,1,1,1]). The region yields `z * inputFactor`.
ScoreRegion buildScoreRegion(MLIRContext *ctx, Location loc,
                             const ScoreChain &chain, Value z,
                             double inputFactor);

/// Masks lifted from the region into attributes and operands.
struct LiftedMasks {
  CausalMode causal = CausalMode::none;
  std::optional<int64_t> windowLeft, windowRight;
  Value seqLenQ, seqLenKv;
};

/// Removes the trailing masks of the region that are provably equal to
/// tg.attention's causal / sliding-window / padding masks and returns the
/// attributes that replace them. Unused captures are dropped afterwards.
/// `scoreShape` is [B, Hq, Sq, Skv].
/// A `grad` region sharing the captures (tg.attention_grad) is pruned along.
LiftedMasks liftMasks(ScoreRegion &region, ArrayRef<int64_t> scoreShape,
                      Block *grad = nullptr);

/// Builds tg.attention_grad's `score_grad` region: `gradChain` holds the
/// forward chain's ops followed by the ops that turn `dz` (the gradient of
/// the score region's result) into `gradient`; it yields `gradient * factor`
/// (the gradient of the scaled score). Captures are shared with `score`; new
/// ones are added to both.
std::unique_ptr<Block> buildScoreGradRegion(MLIRContext *ctx, Location loc,
                                            const ScoreChain &gradChain,
                                            Value dz, Value gradient,
                                            double factor, ScoreRegion &score);

/// Erases unused pure ops, then captures used by neither the region nor the
/// optional `grad` region (whose arguments mirror the region's).
void pruneScoreRegion(ScoreRegion &region, Block *grad = nullptr);

} // namespace mlir::tg::fusion

#endif // TG_TRANSFORMS_SCOREREGION_H
