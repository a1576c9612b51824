// Attention masks and layout rules shared by the cuDNN attention graphs
// (ScoreGraph.h). The masks follow cudnn-frontend's padding and diagonal
// band masks (utils/attn_score_modifiers.h, node/diagonal_band_mask.h), read
// not copied: cuDNN's fused-attention engines recognise that structure.
#include "ScoreGraph.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

std::string cudnn::masksUnsupportedReason(const AttributeMasks &m,
                                          bool padded) {
  std::optional<int64_t> right = m.rightBound();
  if ((right && *right < 0) || (m.windowLeft() && *m.windowLeft() < 0))
    return "cuDNN's diagonal band takes non-negative bounds (the causal "
           "diagonal or window_right >= 0, window_left >= 0)";
  if (m.bottomRight() && !padded && m.sq > m.skv)
    return "cuDNN has no bottom-right causal mask with Sq > Skv (" +
           std::to_string(m.sq) + " > " + std::to_string(m.skv) +
           ") without padding (cudnn-frontend refuses it)";
  if (m.windowLeft() && !padded && m.sq > m.skv)
    return "cuDNN's sliding window needs Sq <= Skv without padding (Sq = " +
           std::to_string(m.sq) + ", Skv = " + std::to_string(m.skv) +
           "; cudnn-frontend refuses it)";
  if (m.windowLeft() && m.rule.causal == ::tgc::masks::Causal::None &&
      m.skv > 1024)
    return "cuDNN 9.14.0 computes a non-causal sliding window over more "
           "than 1024 keys wrongly (cudnn-frontend refuses it there)";
  return "";
}

std::optional<int64_t> cudnn::firstEmptyRow(const AttributeMasks &m) {
  for (int64_t i = 0; i < m.sq; ++i) {
    auto [first, last] = m.rule.visibleKeys(i, m.sq, m.skv);
    if (first > last)
      return i;
  }
  return std::nullopt;
}

namespace {
int64_t negativeInfinity(GraphBuilder &g) {
  return g.scalar(DType::F32, -std::numeric_limits<double>::infinity(), 4);
}
} // namespace

int64_t cudnn::paddingMask(GraphBuilder &g, int64_t s, int64_t lenQ,
                           int64_t lenKv) {
  int64_t row = g.genIndex(s, 2);
  g.setLastCompute(DType::I32);
  int64_t col = g.genIndex(s, 3);
  g.setLastCompute(DType::I32);
  int64_t rowKeep = g.binary("cmp_lt", row, lenQ, DType::I1);
  g.setLastCompute(DType::I1);
  int64_t colKeep = g.binary("cmp_lt", col, lenKv, DType::I1);
  g.setLastCompute(DType::I1);
  int64_t keep = g.binary("logical_and", rowKeep, colKeep, DType::I1);
  g.setLastCompute(DType::I1);
  return g.select(keep, s, negativeInfinity(g));
}

int64_t cudnn::diagonalBandMask(GraphBuilder &g, int64_t s,
                                const AttributeMasks &m, int64_t lenQ,
                                int64_t lenKv, LeftBoundSpelling left) {
  int64_t row = g.genIndex(s, 2);
  int64_t col = g.genIndex(s, 3);
  auto lengthKv = [&] {
    return lenKv ? lenKv : g.scalar(DType::I32, double(m.skv), 4);
  };
  auto lengthQ = [&] {
    return lenQ ? lenQ : g.scalar(DType::I32, double(m.sq), 4);
  };
  auto intOp = [&](StringRef mode, int64_t x, int64_t y) {
    int64_t r = g.binary(mode, x, y, DType::I32);
    g.setLastCompute(DType::I32);
    return r;
  };
  // The diagonal kv index of each row: q_idx, or q_idx + Lkv - Lq
  // (bottom-right), computed once.
  int64_t diagonal = 0;
  auto diag = [&] {
    if (!diagonal) {
      diagonal = row;
      if (m.bottomRight()) {
        diagonal = intOp("add", diagonal, lengthKv());
        diagonal = intOp("sub", diagonal, lengthQ());
      }
    }
    return diagonal;
  };
  // Right bound: keep kv_idx <= diag + bound, as diag + bound >= kv_idx.
  if (std::optional<int64_t> right = m.rightBound()) {
    int64_t bound = diag();
    if (*right != 0)
      bound = intOp("add", bound, g.scalar(DType::I32, double(*right), 4));
    int64_t keep = g.binary("cmp_ge", bound, col, DType::I1);
    g.setLastCompute(DType::I1);
    s = g.select(keep, s, negativeInfinity(g));
  }
  if (m.windowLeft() && left == LeftBoundSpelling::Forward) {
    int64_t shifted = intOp(
        "add", col, g.scalar(DType::I32, double(*m.windowLeft() + 1), 4));
    int64_t keep = g.binary("cmp_gt", shifted, diag(), DType::I1);
    g.setLastCompute(DType::I1);
    return g.select(keep, s, negativeInfinity(g));
  }
  // Left bound: tg keeps kv_idx >= diag - L, i.e. kv_idx + (L + 1) > diag
  // (cuDNN's left bound counts the diagonal, so it is L + 1).
  if (m.windowLeft()) {
    int64_t bound = *m.windowLeft() + 1;
    int64_t shifted;
    if (!m.bottomRight()) {
      shifted = g.binary("add", col, g.scalar(DType::F32, double(bound), 4),
                         DType::F32);
    } else if (!lenQ && !lenKv) {
      shifted = g.binary(
          "add", col,
          g.scalar(DType::F32, double(bound - m.skv + m.sq), 4), DType::F32);
    } else {
      shifted = intOp("add", col, g.scalar(DType::I32, double(bound), 4));
      shifted = intOp("sub", shifted, lengthKv());
      shifted = intOp("add", shifted, lengthQ());
    }
    int64_t keep = g.binary("cmp_gt", shifted, row, DType::I1);
    g.setLastCompute(DType::I1);
    s = g.select(keep, s, negativeInfinity(g));
  }
  return s;
}

SmallVector<SmallVector<int64_t>> cudnn::declaredStrides(Value v) {
  SmallVector<SmallVector<int64_t>> out;
  auto take = [&](Operation *fn, StringRef attrName, unsigned index) {
    auto all = fn ? fn->getAttrOfType<ArrayAttr>(attrName) : ArrayAttr();
    if (!all || index >= all.size())
      return;
    if (auto dict = dyn_cast<DictionaryAttr>(all[index]))
      if (auto strides = dict.getAs<DenseI64ArrayAttr>("tg.strides"))
        out.emplace_back(strides.asArrayRef());
  };
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (arg.getOwner()->isEntryBlock())
      take(arg.getOwner()->getParentOp(), "arg_attrs", arg.getArgNumber());
  for (OpOperand &use : v.getUses())
    if (use.getOwner()->getName().getStringRef() == "func.return")
      take(use.getOwner()->getParentOp(), "res_attrs", use.getOperandNumber());
  return out;
}

std::string cudnn::headDimLayoutReason(Value v, StringRef name) {
  for (ArrayRef<int64_t> strides : declaredStrides(v))
    if (strides.empty() || strides.back() != 1)
      return name.str() + " has head-dim stride " +
             (strides.empty() ? std::string("?")
                              : std::to_string(strides.back())) +
             " (tg.strides); cuDNN's attention needs the head dim "
             "contiguous (stride 1)";
  return "";
}

bool cudnn::isFullLength(Value seqLen, int64_t length) {
  auto constant = seqLen ? seqLen.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant)
    return false;
  auto elements = dyn_cast<DenseIntElementsAttr>(constant.getValue());
  if (!elements)
    return false;
  return llvm::all_of(elements.getValues<APInt>(), [&](const APInt &v) {
    return v.getSExtValue() == length;
  });
}
