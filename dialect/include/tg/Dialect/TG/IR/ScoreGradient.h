#ifndef TG_DIALECT_TG_IR_SCOREGRADIENT_H
#define TG_DIALECT_TG_IR_SCOREGRADIENT_H

// The chain rule through a per-score region (tg.attention's `score`): what
// tg.attention_grad computes when its `score_grad` region is empty, for the
// reference interpreter, the fused backward kernels and the expansion alike.

#include "mlir/IR/Block.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace mlir::tg {
class AttentionGradOp;

/// A new block (not in any region) whose arguments are those of `score` plus
/// the gradient `dz` of its result (rank-0 f32, last) and that yields the
/// gradient of argument `wrt` (0: the score; a captured element's index for
/// a captured tensor's gradient) as a rank-0 f32. Reverse mode over the
/// region's ops: forward values the derivative needs are recomputed inside,
/// ops it does not need are left out, adjoints are f32 (operands of other
/// float types are cast). Integer and boolean values carry no gradient; a
/// float -> float cast passes it through; max/min send it to the operand
/// they chose (the first on ties), select to the branch it took, except
/// that a yielded select against -inf (a mask) passes it unmasked: where
/// the score is -inf, P = 0 and tg.attention_grad's dS is 0 anyway. Fails,
/// and sets `whyNot`, on an op it has no derivative for.
FailureOr<std::unique_ptr<Block>> deriveScoreGradient(Block &score, unsigned wrt,
                                                      std::string *whyNot = nullptr);
/// The same with respect to `wrt`, an argument of `score` or the result of
/// one of its ops (a tg.gather of a table capture: the gradient of the
/// region's result with respect to the element that gather read).
FailureOr<std::unique_ptr<Block>> deriveScoreGradient(Block &score, Value wrt,
                                                      std::string *whyNot = nullptr);

/// Whether the result of `score` depends on argument `wrt` through float
/// values (otherwise its gradient is zero).
bool scoreDependsOn(Block &score, unsigned wrt);

/// The block tg.attention_grad applies to dZ: its `score_grad` region's, or,
/// when that is empty, the derivative of `score` (kept in `derived`). Fails
/// like deriveScoreGradient.
FailureOr<Block *> scoreGradientBlock(AttentionGradOp op,
                                      std::unique_ptr<Block> &derived,
                                      std::string *whyNot = nullptr);

} // namespace mlir::tg

#endif // TG_DIALECT_TG_IR_SCOREGRADIENT_H
