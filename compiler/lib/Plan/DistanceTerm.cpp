// Finds a distance term in a score region and writes its C++
// (DistanceTerm.h).
#include "DistanceTerm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tg;

namespace {
constexpr unsigned kB = 1, kH = 2, kQ = 3, kKv = 4;

/// +1 for q_idx - kv_idx, -1 for kv_idx - q_idx, 0 for anything else.
int distanceSign(Operation *op, Block &block) {
  auto sub = dyn_cast<SubOp>(op);
  if (!sub)
    return 0;
  auto argAt = [&](Value v) -> int {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &block ? int(arg.getArgNumber()) : -1;
  };
  int lhs = argAt(sub.getLhs()), rhs = argAt(sub.getRhs());
  if (lhs == int(kQ) && rhs == int(kKv))
    return 1;
  if (lhs == int(kKv) && rhs == int(kQ))
    return -1;
  return 0;
}

/// Ops whose per-score cost a shared-memory read undercuts. (Not an
/// int-to-float conversion: ALiBi's slope * (kv - q) tabulated ran 3-10%
/// slower on the H200, forward and backward.)
bool costly(Operation *op) {
  return isa<GatherOp, ExpOp, LogOp, TanhOp, DivOp, PowOp, SqrtOp, RsqrtOp, RecipOp, SigmoidOp>(op);
}

bool isFloatScalar(Value v) {
  return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}
} // namespace

std::optional<DistanceTerm>
mlir::tg::findDistanceTerm(Operation *op, ArrayRef<std::string> argNames, GatherEmitter emitGather,
                           ArrayRef<std::optional<IndexRange>> argRanges, int64_t seqQ,
                           int64_t seqKv, bool approximate,
                           function_ref<std::string(const std::string &)> readElement) {
  Block &block = op->getRegion(0).front();
  // Values that are functions of (b, h, d) and the tables only, and whether
  // they involve d at all.
  llvm::DenseSet<Value> pure, involvesD;
  pure.insert(block.getArgument(kB));
  pure.insert(block.getArgument(kH));
  // (tables, and element captures of one value per (b, h): [B|1, H|1, 1, 1])
  OperandRange captures = attentionCaptures(op);
  auto perHead = [&](unsigned i) {
    auto type = cast<RankedTensorType>(captures[i - AttentionOp::kNumIndexArgs].getType());
    return type.getRank() == 4 && type.getDimSize(2) == 1 && type.getDimSize(3) == 1;
  };
  for (unsigned i = AttentionOp::kNumIndexArgs; i < block.getNumArguments(); ++i)
    if (isTableCapture(op, i - AttentionOp::kNumIndexArgs) || perHead(i))
      pure.insert(block.getArgument(i));
  for (Operation &inner : block.without_terminator()) {
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0)
      continue;
    Value result = inner.getResult(0);
    if (distanceSign(&inner, block) != 0) {
      pure.insert(result);
      involvesD.insert(result);
      continue;
    }
    if (!llvm::all_of(inner.getOperands(), [&](Value v) { return pure.contains(v); }))
      continue;
    pure.insert(result);
    if (llvm::any_of(inner.getOperands(), [&](Value v) { return involvesD.contains(v); }))
      involvesD.insert(result);
  }

  // Candidates: float values of d read by a score-dependent op. The
  // costliest (most ops, at least one costly) is tabulated.
  Operation *best = nullptr;
  llvm::SetVector<Operation *> bestSlice;
  for (Operation &inner : block.without_terminator()) {
    if (inner.getNumResults() != 1 || !involvesD.contains(inner.getResult(0)) ||
        !isFloatScalar(inner.getResult(0)))
      continue;
    bool readOutside = llvm::any_of(inner.getResult(0).getUsers(), [&](Operation *user) {
      return isa<YieldOp>(user) || user->getNumResults() != 1 || !pure.contains(user->getResult(0));
    });
    if (!readOutside)
      continue;
    llvm::SetVector<Operation *> slice;
    SmallVector<Operation *> work{&inner};
    while (!work.empty()) {
      Operation *next = work.pop_back_val();
      if (!slice.insert(next) || distanceSign(next, block) != 0)
        continue;
      for (Value operand : next->getOperands())
        if (Operation *def = operand.getDefiningOp())
          work.push_back(def);
    }
    if (!llvm::any_of(slice, costly) || slice.size() <= bestSlice.size())
      continue;
    best = &inner;
    bestSlice = std::move(slice);
  }
  if (!best)
    return std::nullopt;

  // The term as a region of its own: the score block's arguments and d
  // last, the slice in block order, each distance read as d or -d.
  auto termBlock = std::make_unique<Block>();
  for (BlockArgument arg : block.getArguments())
    termBlock->addArgument(arg.getType(), arg.getLoc());
  Value d = termBlock->addArgument(block.getArgument(kQ).getType(), op->getLoc());
  OpBuilder builder(op->getContext());
  builder.setInsertionPointToEnd(termBlock.get());
  IRMapping mapping;
  for (BlockArgument arg : block.getArguments())
    mapping.map(arg, termBlock->getArgument(arg.getArgNumber()));
  for (Operation &inner : block.without_terminator()) {
    if (!bestSlice.contains(&inner))
      continue;
    if (int sign = distanceSign(&inner, block)) {
      mapping.map(inner.getResult(0), sign > 0 ? d : Value(NegOp::create(builder, inner.getLoc(), d)));
      continue;
    }
    builder.clone(inner, mapping);
  }
  YieldOp::create(builder, op->getLoc(), ValueRange{mapping.lookup(best->getResult(0))});
  Region region;
  region.push_back(termBlock.release());

  SmallVector<std::string> names(argNames.begin(), argNames.end());
  names.push_back("d");
  SmallVector<std::optional<IndexRange>> ranges(argRanges.begin(), argRanges.end());
  ranges.resize(names.size());
  ranges.back() = IndexRange{-(seqKv - 1), seqQ - 1};
  // (a term the C++ writer cannot translate is no reason to fail: the
  // region is then computed in full)
  FailureOr<std::string> body =
      emitScalarRegion(region, names, "value", emitGather, ranges, approximate);
  if (failed(body))
    return std::nullopt;
  // The per-head element captures the term reads, declared first.
  std::string loads;
  for (unsigned i = AttentionOp::kNumIndexArgs; i < block.getNumArguments(); ++i) {
    if (isTableCapture(op, i - AttentionOp::kNumIndexArgs))
      continue;
    BlockArgument arg = block.getArgument(i);
    if (llvm::any_of(arg.getUsers(), [&](Operation *user) { return bestSlice.contains(user); }))
      loads += "const " + cudaComputeType(cast<ShapedType>(arg.getType()).getElementType()).str() + " " +
               argNames[i] + " = " + readElement(argNames[i]) + ";\n";
  }
  return DistanceTerm{best, loads + *body};
}
