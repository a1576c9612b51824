// Pieces of cuDNN attention graphs that the forward, the backward and the
// FP8 forward share: the attribute masks (padding, causal and sliding
// window) built as cudnn-frontend builds them from tg's mask value type
// (tg/Masks/AttentionMasks.h), the static checks on the rows they empty,
// and the head-dim layout rule. The FP8 forward and the composite forward's
// top-left / window-right band use diagonalBandMask (it emits the ops those
// graphs always had); the composite forward keeps its own padding mask,
// bottom-right diagonal and left bound (AttentionForward.cpp), in the op
// order measured on the H200, which differs from cudnn-frontend's
// backward spelling used here.
#ifndef TG_LIB_CUDNN_SCOREGRAPH_H
#define TG_LIB_CUDNN_SCOREGRAPH_H

#include "tg/Cudnn/GraphBuilder.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Masks/OpMasks.h"

#include <optional>
#include <string>

namespace mlir::tg::cudnn {

/// The attribute masks of tg.attention / tg.attention_grad (the masks'
/// value type, tg/Masks/AttentionMasks.h) with the static lengths.
struct AttributeMasks {
  ::tgc::masks::AttentionMasks rule;
  int64_t sq = 0, skv = 0;

  template <typename OpTy> static AttributeMasks of(OpTy op) {
    AttributeMasks m;
    m.rule = attentionMasks(op);
    m.sq = cast<RankedTensorType>(op.getQ().getType()).getDimSize(2);
    m.skv = cast<RankedTensorType>(op.getK().getType()).getDimSize(2);
    return m;
  }
  bool bottomRight() const { return rule.bottomRight(); }
  /// The diagonal band's right bound: kv_idx <= diag + bound (causal: 0).
  std::optional<int64_t> rightBound() const { return rule.rightBound(); }
  const std::optional<int64_t> &windowLeft() const { return rule.windowLeft; }
  bool any() const { return rule.anyDiagonal(); }
};

/// Why cuDNN cannot express the masks (cudnn-frontend's support checks),
/// or "". `padded` says whether sequence lengths are given.
std::string masksUnsupportedReason(const AttributeMasks &masks, bool padded);

/// Without padding: the first query row the masks leave without any kv
/// position (tg gives it zero gradients and -inf stats; cuDNN's kernels do
/// not promise that), if any.
std::optional<int64_t> firstEmptyRow(const AttributeMasks &masks);

/// The padding mask on the scores `s`: -inf where q_idx >= seq_len_q[b] or
/// kv_idx >= seq_len_kv[b] (`lenQ`, `lenKv`: int32 [B,1,1,1] tensors).
int64_t paddingMask(GraphBuilder &g, int64_t s, int64_t lenQ, int64_t lenKv);

/// How the band's left bound is spelled. The engines of the forward and
/// of the backward recognise different graphs (measured on the H200, cuDNN
/// 9.19: the forward finds no engine for the backward's spelling).
enum class LeftBoundSpelling {
  /// kv_idx + (L + 1) > diag in int32, diag the (bottom-right) diagonal.
  Forward,
  /// As cudnn-frontend's backward: the f32 kv_idx + (L + 1) > q_idx with the
  /// bottom-right shift folded into the constant (or, with padding, int32
  /// arithmetic on the lengths).
  Backward,
};

/// The causal/window masks on `s` as cudnn-frontend's diagonal band (right
/// bound, then left bound). `lenQ`/`lenKv` are the sequence-length tensors
/// when padding is given (0 otherwise; bottom-right alignment then uses the
/// shapes).
int64_t diagonalBandMask(GraphBuilder &g, int64_t s,
                         const AttributeMasks &masks, int64_t lenQ,
                         int64_t lenKv,
                         LeftBoundSpelling left = LeftBoundSpelling::Backward);

/// The strides `v`'s buffer is declared with: tg.strides of the graph
/// argument it is and of every graph result it is returned as.
SmallVector<SmallVector<int64_t>> declaredStrides(Value v);

/// Why the buffer of `v` does not suit cuDNN's attention (head dim not
/// contiguous), or "".
std::string headDimLayoutReason(Value v, StringRef name);

/// Whether `seqLen` is a tg.constant whose every element is `length`: the
/// full-length sequence lengths of the padding workaround, which mask
/// nothing.
bool isFullLength(Value seqLen, int64_t length);

} // namespace mlir::tg::cudnn

#endif // TG_LIB_CUDNN_SCOREGRAPH_H
