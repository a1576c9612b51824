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
    Value result = block.getTerminator()->getOperand(0);
    // Masks applied last: select(keep, x, -inf), and the masks inside x.
    for (int depth = 0; depth < 16; ++depth) {
      auto select = result.getDefiningOp<SelectOp>();
      if (!select || !isNegInfConstant(select.getOnFalse()))
        return std::nullopt;
      if (std::optional<DocumentIds> ids = inConjunction(select.getCond()))
        return ids;
      result = select.getOnTrue();
    }
    return std::nullopt;
  }

private:
  static bool isFalse(Value value) {
    ElementsAttr elements;
    return matchPattern(value, m_Constant(&elements)) && elements.isSplat() &&
           elements.getElementType().isInteger(1) &&
           elements.getSplatValue<APInt>().isZero();
  }

  /// A factor `id(q) == id(kv)` of the conjunction `keep`.
  std::optional<DocumentIds> inConjunction(Value keep, int depth = 0) {
    if (depth > 16)
      return std::nullopt;
    if (auto select = keep.getDefiningOp<SelectOp>()) {
      if (!isFalse(select.getOnFalse()))
        return std::nullopt;
      if (auto ids = inConjunction(select.getCond(), depth + 1))
        return ids;
      return inConjunction(select.getOnTrue(), depth + 1);
    }
    auto cmp = keep.getDefiningOp<CmpOp>();
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
      Value capture = captures()[*arg - AttentionOp::kNumIndexArgs];
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(capture.getType()).getShape();
      if (shape[other - 1] != 1)
        return std::nullopt;
      return readElement(argNames[*arg], side == Side::Query);
    }
    auto gather = value.getDefiningOp<GatherOp>();
    if (!gather)
      return std::nullopt;
    SmallVector<std::string> indices;
    for (Value index : gather.getIndices()) {
      std::optional<unsigned> n = argNumber(index);
      APInt constant;
      if (n && (*n == 1 || *n == 2 || *n == own))
        indices.push_back(argNames[*n]);
      else if (matchPattern(index, m_ConstantInt(&constant)))
        indices.push_back(cudaLiteral(
            constant, cast<RankedTensorType>(index.getType()).getElementType()));
      else
        return std::nullopt; // computed, or the other index
    }
    FailureOr<std::string> expr = emitGather(gather, indices);
    if (failed(expr))
      return std::nullopt;
    return *expr;
  }

  OperandRange captures() {
    if (auto forward = dyn_cast<AttentionOp>(op))
      return forward.getCaptures();
    return cast<AttentionGradOp>(op).getCaptures();
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
