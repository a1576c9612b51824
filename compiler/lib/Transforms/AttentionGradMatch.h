//===- AttentionGradMatch.h - The backward chain -> tg.attention_grad -*- C++ -*-===//
//
// The textbook attention backward (what tg-decompose-sdpa writes for
// tg.sdpa_grad), anchored at the recomputed probabilities:
//
//   P   = exp(z - R)          R = stats or select(stats == -inf, c, stats)
//   z   = the forward score chain from S = matmul(Q', transpose(K'))
//   Pd  = dropout(P)?         dV  = headsum(matmul(transpose(Pd), dO))
//   dP  = dropout?(matmul(dO, transpose(V')))
//   D   = rowsum(dO * O)      dZ  = P * (dP - D)
//   G   = grad ops(dZ) [* scale]    (chain rule through the score math)
//   dQ  = matmul(G, K')       dK  = headsum(matmul(transpose(G), Q'))
//   dB  = casts(sum(dZ, broadcast dims))?   for a captured B added to z
//
//===----------------------------------------------------------------------===//
#ifndef TG_TRANSFORMS_ATTENTIONGRADMATCH_H
#define TG_TRANSFORMS_ATTENTIONGRADMATCH_H

#include "AttentionMatch.h"

namespace mlir::tg::fusion {

struct AttentionGradMatch {
  ExpOp probs;
  Value stats, o, dO;
  ScoreChain chain;
  Value z;
  OperandsMatch operands; // q, k, v (scale stays in the chain)
  DropoutOp dropout;      // on P (the dP dropout matches it)
  /// The region math of the chain rule: `gradChain.ops` are the forward
  /// chain's ops, the score math only the gradient uses, and the ops from
  /// `dz` to `gradient`.
  ScoreChain gradChain;
  Value dz, gradient;
  /// score_grad yields `gradient * gradFactor` (the graph's final scale over
  /// the attention's scale).
  double gradFactor = 1.0;
  bool hasGradMath = false;
  Value dq, dk, dv;
  /// Gradients of captured tensors branching off dZ (a learnable bias's:
  /// dZ summed over its broadcast dimensions, rounded): the graph's value
  /// and the captured tensor it is the gradient of.
  SmallVector<Value> captureGrads, captureGradSources;
  /// Ops replaced by the fused op (forward recomputation included).
  llvm::SetVector<Operation *> ops;
  /// The op before which the fused op goes (the last gradient's).
  Operation *insertionPoint = nullptr;
};

/// Matches the backward chain whose probabilities `exp` recomputes.
FailureOr<AttentionGradMatch> matchAttentionGrad(ExpOp exp, Refusal &refusal);

/// Cheap test used for reporting: `exp(x - y)` with `y` a per-row value not
/// produced by a max reduction, and P feeding a transpose.
bool looksLikeAttentionGrad(ExpOp exp);

/// Replaces the matched chain by one tg.attention_grad.
AttentionGradOp rewriteAttentionGrad(RewriterBase &rewriter,
                                     AttentionGradMatch &match,
                                     llvm::DenseSet<Operation *> &erased);

} // namespace mlir::tg::fusion

#endif // TG_TRANSFORMS_ATTENTIONGRADMATCH_H
