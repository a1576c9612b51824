//===- AttentionCaptures.h - capture rules of the attention ops -*- C++ -*-===//
//
// Shared by the verifiers of tg.attention and tg.attention_grad: element
// captures broadcast to the scores, table captures (read by tg.gather) have
// any shape.
//
//===----------------------------------------------------------------------===//
#ifndef TG_DIALECT_TG_IR_ATTENTIONCAPTURES_H
#define TG_DIALECT_TG_IR_ATTENTIONCAPTURES_H

#include "tg/Dialect/TG/IR/TGOps.h"

namespace mlir::tg::detail {
/// Element captures must broadcast to `scores` ([B, Hq, Sq, Skv]).
LogicalResult verifyAttentionCaptures(Operation *op, ValueRange captures,
                                      ArrayRef<int64_t> scores);
/// The score region's argument types: the score (f32), b, h, q_idx, kv_idx
/// (i64), then one per capture (captureArgType).
SmallVector<Type> scoreRegionArgTypes(Operation *op, ValueRange captures);
/// The ragged layout's rules (rank-3 packed q, k, v; offsets and maximum
/// lengths together; no padding lengths), and q, k, v as [B, H, S, D]
/// views for the other rules.
LogicalResult verifyRaggedAttention(
    Operation *op, Value q, Value k, Value v, Value seqLenQ, Value seqLenKv,
    Value cuSeqlensQ, Value cuSeqlensKv, std::optional<uint64_t> maxSeqlenQ,
    std::optional<uint64_t> maxSeqlenKv, SmallVectorImpl<int64_t> &qView,
    SmallVectorImpl<int64_t> &kView, SmallVectorImpl<int64_t> &vView);
/// A table capture's argument in `block` is used only as a tg.gather table.
LogicalResult verifyTableUses(Operation *op, Block &block,
                              StringRef regionName, ValueRange captures);
} // namespace mlir::tg::detail

#endif // TG_DIALECT_TG_IR_ATTENTIONCAPTURES_H
