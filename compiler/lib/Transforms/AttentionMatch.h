//===- AttentionMatch.h - What tg-fuse-attention recognises ----*- C++ -*-===//
//
// The pieces of an attention chain, found by the matchers and consumed by the
// rewrite. Matching never changes the IR; every new op is created by the
// rewrite once the whole chain is known to be fusable.
//
//   pv = matmul(P', V')            anchor (ProbabilityMatcher.cpp)
//   P' = casts/dropout/rescale(P)
//   P  = softmax(z)                tg.softmax or decomposed (SoftmaxMatcher)
//   z  = pointwise(S, leaves)      the score chain (ScoreChain.cpp)
//   S  = matmul(Q', K')            operands (AttentionOperands.cpp)
//
//===----------------------------------------------------------------------===//
#ifndef TG_TRANSFORMS_ATTENTIONMATCH_H
#define TG_TRANSFORMS_ATTENTIONMATCH_H

#include "FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tg::fusion {

/// A tg.dropout folded into the attention.
struct DropoutMatch {
  DropoutOp op;

  double prob() const {
    return const_cast<DropoutOp &>(op).getProb().convertToDouble();
  }
};

/// The softmax and everything between it and the output matmul.
struct ProbabilityMatch {
  /// z: the value whose softmax along the last axis is taken (precision
  /// casts in front of the softmax already skipped).
  Value input;
  /// The softmax is of `input * inputFactor` (exp2/pow forms, a constant
  /// folded into the exponent).
  double inputFactor = 1.0;
  /// The value the attention's log-sum-exp replaces (training form).
  Value stats;
  std::optional<DropoutMatch> dropout;
  /// Every op from the softmax to the output matmul (exclusive), including
  /// the log-sum-exp ops. Their results may only be used inside the chain.
  llvm::SetVector<Operation *> ops;
};

/// How to produce an attention operand from a value already in the graph:
/// `source`, optionally reshaped, then optionally transposed.
struct OperandPlan {
  Value source;
  std::optional<SmallVector<int64_t>> reshapeTo;
  SmallVector<int64_t> perm; // empty: no transpose

  SmallVector<int64_t> shape() const;
};

/// q, k, v of the attention and the scale taken from Q/K.
struct OperandsMatch {
  OperandPlan q, k, v;
  double scale = 1.0;
};

/// The pointwise ops between the QK matmul and the softmax input.
struct ScoreChain {
  MatmulOp qk;
  /// Ops whose results depend on S, in block order (S itself excluded).
  SmallVector<Operation *> ops;
  /// Leading `S * c` / `S / c` ops folded into the scale attribute, and the
  /// value that stands for the scaled score in the region.
  SmallVector<Operation *> scaleOps;
  Value scaledScore;
  double scale = 1.0;
  llvm::DenseSet<Value> derived; // S and every value depending on it
};

/// Everything the rewrite needs.
struct AttentionMatch {
  MatmulOp pv;
  ProbabilityMatch probs;
  ScoreChain chain;
  OperandsMatch operands;
};

/// The last-axis index of a rank-4 score tensor.
constexpr int64_t kKvAxis = 3;

/// Matches P' = casts/dropout/rescale(softmax(z)) from the output matmul's
/// left operand.
FailureOr<ProbabilityMatch> matchProbabilities(Value pvLhs, Refusal &refusal);

/// Matches P = softmax(z) at `probs` (tg.softmax or decomposed), adding its
/// ops to `match`.
LogicalResult matchSoftmax(Value probs, ProbabilityMatch &match,
                           Refusal &refusal);

/// Collects the score chain feeding `z` from the QK matmul. `vValues` are the
/// values V is read from: leaves may not depend on them.
FailureOr<ScoreChain> matchScoreChain(Value z, ArrayRef<Value> vValues,
                                      Refusal &refusal);

/// Finds q, k, v behind the QK matmul's operands and the output matmul's
/// right operand (scales, K transposes and GQA head expansion stripped).
FailureOr<OperandsMatch> matchOperands(MatmulOp qk, MatmulOp pv,
                                       Refusal &refusal);

/// Undoes a GQA/MQA head expansion of the rank-4 `x` along dim 1 (a
/// broadcast of one head, or reshape-broadcast-reshape mapping head h to
/// h / G); nullopt when `x` is not such an expansion.
std::optional<OperandPlan> stripHeadExpansion(Value x);

/// The whole chain anchored at `pv`.
FailureOr<AttentionMatch> matchAttention(MatmulOp pv, Refusal &refusal);

/// Cheap test used for reporting: does `pv` look like the output matmul of
/// an attention (a softmax-like op and another matmul behind its lhs)?
bool looksLikeAttention(MatmulOp pv);

/// Creates the ops that `plan` describes, at the rewriter's insertion point.
Value materializeOperand(RewriterBase &rewriter, Location loc,
                         const OperandPlan &plan);

/// True when `value` is computed from one of `targets` (memoised).
bool dependsOn(Value value, const llvm::DenseSet<Value> &targets,
               llvm::DenseMap<Value, bool> &memo);

/// Rewrites attention written on [B·H, S, D] tensors (rank-3 matmuls with
/// views to [B, H, Sq, Skv] around the softmax) into the rank-4 form the
/// matchers take (RaiseBatchedAttention.cpp).
void raiseBatchedAttention(func::FuncOp fn);

/// Replaces the matched chain by one tg.attention; returns it.
AttentionOp rewriteAttention(RewriterBase &rewriter,
                             AttentionMatch &match,
                             llvm::DenseSet<Operation *> &erased);

} // namespace mlir::tg::fusion

#endif // TG_TRANSFORMS_ATTENTIONMATCH_H
