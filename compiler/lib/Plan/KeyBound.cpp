// Finds a key bound (prefix-LM) in a score region's masks (KeyBound.h).
#include "KeyBound.h"

#include "MaskingRegion.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tg;
using KeyBound = ::tg::codegen::AttentionForwardSpec::KeyBound;

namespace {
constexpr unsigned kQueryArg = 3, kKeyArg = 4;

class KeyBoundFinder {
public:
  KeyBoundFinder(Operation *op, ArrayRef<std::string> argNames, GatherEmitter emitGather,
                 ScalarCaptureReader readElement)
      : op(op), block(op->getRegion(0).front()), argNames(argNames), emitGather(emitGather),
        readElement(std::move(readElement)) {}

  std::optional<KeyBound> run() {
    std::optional<KeyBound> found;
    forEachFinalMaskFactor(op->getRegion(0), [&](Value factor) {
      KeyBound bound;
      if (inDisjunction(factor, bound) && (!bound.limit.empty() || bound.rowOffset))
        found = bound;
      return found.has_value();
    });
    return found;
  }

private:
  /// Adds the terms of the disjunction `value` to `bound`; false when one is
  /// not a key bound (or a second term of its kind).
  bool inDisjunction(Value value, KeyBound &bound, int depth = 0) {
    if (depth > 16)
      return false;
    if (auto select = value.getDefiningOp<SelectOp>()) {
      // a or b: select(a, true, b), or select(a, a, b).
      if (!isBoolConstant(select.getOnTrue(), true) && select.getOnTrue() != select.getCond())
        return false;
      return inDisjunction(select.getCond(), bound, depth + 1) &&
             inDisjunction(select.getOnFalse(), bound, depth + 1);
    }
    auto cmp = value.getDefiningOp<CmpOp>();
    if (!cmp)
      return false;
    // kv < X, kv <= X, X > kv, X >= kv.
    Value other;
    int offset = 0;
    CmpPredicate pred = cmp.getPredicate();
    if (isArg(cmp.getLhs(), kKeyArg) && (pred == CmpPredicate::lt || pred == CmpPredicate::le)) {
      other = cmp.getRhs();
      offset = pred == CmpPredicate::le;
    } else if (isArg(cmp.getRhs(), kKeyArg) && (pred == CmpPredicate::gt || pred == CmpPredicate::ge)) {
      other = cmp.getLhs();
      offset = pred == CmpPredicate::ge;
    } else {
      return false;
    }
    if (isArg(other, kQueryArg)) {
      if (bound.rowOffset)
        return false;
      bound.rowOffset = offset;
      return true;
    }
    if (!bound.limit.empty())
      return false;
    std::optional<std::string> limit = indexFree(other);
    if (!limit)
      return false;
    bound.limit = offset ? "(" + *limit + ") + 1" : *limit;
    return true;
  }

  bool isArg(Value value, unsigned number) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner() == &block && arg.getArgNumber() == number;
  }

  /// `value` as a C++ expression of b, h and captures that vary along
  /// neither index; nullopt for anything else.
  std::optional<std::string> indexFree(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return cudaLiteral(constant, getElementTypeOrSelf(value.getType()));
    if (auto cast = value.getDefiningOp<CastOp>()) {
      // Integer widening (an i32 length table compared with the i64 index).
      auto from = dyn_cast<IntegerType>(getElementTypeOrSelf(cast.getInput().getType()));
      auto to = dyn_cast<IntegerType>(getElementTypeOrSelf(cast.getType()));
      if (!from || !to || from.getWidth() > to.getWidth())
        return std::nullopt;
      return indexFree(cast.getInput());
    }
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != &block)
        return std::nullopt;
      unsigned n = arg.getArgNumber();
      if (n == 1 || n == 2)
        return argNames[n];
      if (n < AttentionOp::kNumIndexArgs || isTableCapture(op, n - AttentionOp::kNumIndexArgs))
        return std::nullopt;
      // An element capture read at (b, h, 0, 0): it must not vary along q or kv.
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(attentionCaptures(op)[n - AttentionOp::kNumIndexArgs].getType()).getShape();
      if (shape[2] != 1 || shape[3] != 1)
        return std::nullopt;
      return readElement(argNames[n]);
    }
    auto gather = value.getDefiningOp<GatherOp>();
    if (!gather)
      return std::nullopt;
    return gatherExpression(gather, emitGather, [&](Value index) { return indexFree(index); });
  }

  Operation *op;
  Block &block;
  ArrayRef<std::string> argNames;
  GatherEmitter emitGather;
  ScalarCaptureReader readElement;
};
} // namespace

std::optional<KeyBound> mlir::tg::findKeyBound(Operation *op, ArrayRef<std::string> argNames,
                                               GatherEmitter emitGather,
                                               ScalarCaptureReader readElement) {
  assert((isa<AttentionOp, AttentionGradOp>(op)) && "an attention op");
  return KeyBoundFinder(op, argNames, emitGather, std::move(readElement)).run();
}
