// tgc::masks::AttentionMasks of a tg.attention / tg.attention_grad (the
// attributes and which sequence lengths are given).
#ifndef TG_MASKS_OPMASKS_H
#define TG_MASKS_OPMASKS_H

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Masks/AttentionMasks.h"

namespace mlir::tg {

inline ::tgc::masks::Causal maskCausal(CausalMode mode) {
  switch (mode) {
  case CausalMode::none:
    return ::tgc::masks::Causal::None;
  case CausalMode::top_left:
    return ::tgc::masks::Causal::TopLeft;
  case CausalMode::bottom_right:
    return ::tgc::masks::Causal::BottomRight;
  }
  return ::tgc::masks::Causal::None;
}

/// The masks of `op` (AttentionOp or AttentionGradOp).
template <typename OpTy> ::tgc::masks::AttentionMasks attentionMasks(OpTy op) {
  ::tgc::masks::AttentionMasks m;
  m.causal = maskCausal(op.getCausal());
  if (auto left = op.getWindowLeft())
    m.windowLeft = static_cast<int64_t>(*left);
  if (auto right = op.getWindowRight())
    m.windowRight = static_cast<int64_t>(*right);
  m.paddedQ = static_cast<bool>(op.getSeqLenQ());
  m.paddedKv = static_cast<bool>(op.getSeqLenKv());
  return m;
}

} // namespace mlir::tg

#endif // TG_MASKS_OPMASKS_H
