#ifndef TG_LIB_CUDNN_REGIONTOPOINTWISE_H
#define TG_LIB_CUDNN_REGIONTOPOINTWISE_H

// Translation of a per-element tg region (the prologues and epilogue of
// tg.fused_matmul; usable for attention score regions) into cuDNN pointwise
// operations, one op per tg op, each computing in f32 and producing a
// virtual tensor of the tg value's element type.
//
// What has no exact cuDNN pointwise equivalent is refused with a reason:
// integer arithmetic (tg wraps, cuDNN computes in float), results in fp8
// (tg saturates), casts to integers or i1, and non-splat constants. The
// second operand (b) of a cuDNN pointwise op broadcasts but the first (x)
// must already have the result's dims, so operands are swapped where that
// keeps the value exact (commutative ops, comparisons, x - b = -b + x) and
// the rest is refused.

#include "tg/Cudnn/GraphBuilder.h"
#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Block.h"

#include <string>

namespace mlir::tg::cudnn {

/// cuDNN's pointwise mode for a tg comparison (lt -> cmp_lt, ne -> cmp_neq).
StringRef cmpMode(CmpPredicate predicate);
/// cuDNN's pointwise mode for a tg unary (exp, tanh, recip, ...) or binary
/// (add, sub, pow, ...) op; "" for any other op.
StringRef unaryMode(Operation *op);
StringRef binaryMode(Operation *op);

/// Emits the ops of `block` (ending in a tg.yield of one value) into
/// `graph`. `args` are the tensors of the block arguments: the element
/// first (its dims are the dims of every result), then the captures (of
/// equal rank, broadcasting). When `into` is nonzero, the op that computes
/// the yielded value writes that tensor (an identity op is added when the
/// block yields an argument). Returns the tensor holding the yielded value,
/// or 0 with `reason` set.
int64_t translateRegion(GraphBuilder &graph, Block &block,
                        ArrayRef<int64_t> args, int64_t into,
                        std::string &reason);

} // namespace mlir::tg::cudnn

#endif
