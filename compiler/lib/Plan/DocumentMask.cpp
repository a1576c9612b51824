// Finds a document mask (doc[b, q_idx] == doc[b, kv_idx]) at the end of a
// score region, so that the NVRTC kernel can skip the key tiles of other
// documents (docs/kernels.md, "Document masks").
#include "DocumentMask.h"

#include "MaskingRegion.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
/// Which score index an id is read at.
enum class Side { Query, Key };

class DocumentMaskFinder {
public:
  DocumentMaskFinder(Operation *op, ArrayRef<std::string> argNames,
                     GatherEmitter emitGather, ElementReader readElement)
      : op(op), block(op->getRegion(0).front()), argNames(argNames),
        emitGather(emitGather), readElement(readElement) {}

  std::optional<DocumentIds> run() {
    std::optional<DocumentIds> ids;
    forEachFinalMaskFactor(op->getRegion(0), [&](Value factor) {
      ids = atFactor(factor);
      return ids.has_value();
    });
    return ids;
  }

private:
  /// The ids if `factor` is `id(q) == id(kv)`.
  std::optional<DocumentIds> atFactor(Value factor) {
    auto cmp = factor.getDefiningOp<CmpOp>();
    if (!cmp || cmp.getPredicate() != CmpPredicate::eq ||
        !isa<IntegerType>(
            cast<RankedTensorType>(cmp.getLhs().getType()).getElementType()))
      return std::nullopt;
    for (auto [a, b] : {std::pair{cmp.getLhs(), cmp.getRhs()},
                        {cmp.getRhs(), cmp.getLhs()}}) {
      std::optional<std::string> query = idAt(a, Side::Query);
      std::optional<std::string> key = idAt(b, Side::Key);
      if (query && key)
        return DocumentIds{*query, *key, cmp};
    }
    return std::nullopt;
  }

  /// The argument number of `value` if it is an argument of the score block.
  std::optional<unsigned> argNumber(Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || arg.getOwner() != &block)
      return std::nullopt;
    return arg.getArgNumber();
  }

  /// `value` as an expression of (b, h) and the index of `side` only.
  std::optional<std::string> idAt(Value value, Side side) {
    unsigned own = side == Side::Query ? 3 : 4, other = 7 - own;
    std::optional<unsigned> arg = argNumber(value);
    if (arg && *arg >= AttentionOp::kNumIndexArgs &&
        !isTableCapture(op, *arg - AttentionOp::kNumIndexArgs)) {
      // An element capture: it must not vary along the other index.
      Value capture = attentionCaptures(op)[*arg - AttentionOp::kNumIndexArgs];
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(capture.getType()).getShape();
      if (shape[other - 1] != 1)
        return std::nullopt;
      return readElement(argNames[*arg], side == Side::Query);
    }
    auto gather = value.getDefiningOp<GatherOp>();
    if (!gather)
      return std::nullopt;
    return gatherExpression(gather, emitGather, [&](Value index) -> std::optional<std::string> {
      std::optional<unsigned> n = argNumber(index);
      APInt constant;
      if (n && (*n == 1 || *n == 2 || *n == own))
        return argNames[*n];
      if (matchPattern(index, m_ConstantInt(&constant)))
        return cudaLiteral(constant, cast<RankedTensorType>(index.getType()).getElementType());
      return std::nullopt; // computed, or the other index
    });
  }

  Operation *op;
  Block &block;
  ArrayRef<std::string> argNames;
  GatherEmitter emitGather;
  ElementReader readElement;
};
} // namespace

std::optional<DocumentIds>
mlir::tg::findDocumentMask(Operation *op, ArrayRef<std::string> argNames,
                           GatherEmitter emitGather, ElementReader readElement) {
  assert((isa<AttentionOp, AttentionGradOp>(op)) && "an attention op");
  return DocumentMaskFinder(op, argNames, emitGather, readElement).run();
}
