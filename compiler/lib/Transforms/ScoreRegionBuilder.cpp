//===- ScoreRegionBuilder.cpp - the score chain as rank-0 region math -----===//
//
// Each chain op is cloned with rank-0 operands. Score values are computed in
// f32: the scores of tg.attention are f32, so precision casts of the scores
// become no-ops and float leaves combined with them are converted to f32.
// Leaves keep their own types, so a mask computed in i32 or bf16 outside is
// computed the same way inside.
//
//===----------------------------------------------------------------------===//
#include "ScoreRegion.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

namespace {
class RegionBuilder {
public:
  /// `trailingArgs` block arguments follow the captures (score_grad's dz);
  /// captures already in `region` keep their arguments.
  RegionBuilder(MLIRContext *ctx, Location loc, const ScoreChain &chain,
                ScoreRegion &region, unsigned trailingArgs = 0)
      : inside(ctx), loc(loc), chain(chain), region(region),
        trailingArgs(trailingArgs) {
    inside.setInsertionPointToEnd(region.block.get());
    for (auto [i, capture] : llvm::enumerate(region.captures))
      captureArgs[capture] = kFirstCaptureArg + i;
  }

  /// Makes `value` (a chain value) stand for `regionValue` in the region.
  void mapDerived(Value value, Value regionValue) {
    derived.map(value, regionValue);
  }

  /// Emits the region for the chain ending at `z` and yields it.
  void build(Value z, double inputFactor);

private:
  static RankedTensorType scalarType(Type element) {
    return RankedTensorType::get({}, element);
  }
  Value toF32(Value value);
  Value constant(Type element, Attribute splat);
  Value leaf(Value value);
  Value capture(Value value);
  Value operandOf(Value value);
  void emitChainOp(Operation *op);

  OpBuilder inside;
  Location loc;
  const ScoreChain &chain;
  ScoreRegion &region;
  IRMapping derived; // chain values -> region values
  llvm::DenseMap<Value, Value> leaves;
  llvm::DenseMap<Value, unsigned> captureArgs;
  unsigned trailingArgs;
};
} // namespace

Value RegionBuilder::toF32(Value value) {
  Type f32 = inside.getF32Type();
  if (elementTypeOf(value) == f32)
    return value;
  return CastOp::create(inside, loc, scalarType(f32), value);
}

Value RegionBuilder::constant(Type element, Attribute splat) {
  auto attr = DenseElementsAttr::get(scalarType(element), splat);
  return ConstantOp::create(inside, loc, cast<ElementsAttr>(attr));
}

Value RegionBuilder::capture(Value value) {
  auto it = captureArgs.find(value);
  if (it != captureArgs.end())
    return region.block->getArgument(it->second);
  region.captures.push_back(value);
  BlockArgument arg = region.block->insertArgument(
      region.block->getNumArguments() - trailingArgs,
      scalarType(elementTypeOf(value)), loc);
  captureArgs[value] = arg.getArgNumber();
  return arg;
}

Value RegionBuilder::leaf(Value value) {
  if (Value known = leaves.lookup(value))
    return known;
  Operation *def = value.getDefiningOp();
  Type element = elementTypeOf(value);
  int64_t rank = rankOf(value);
  Value result;
  ElementsAttr elements;
  if (def && matchPattern(value, m_Constant(&elements)) &&
      elements.isSplat()) {
    result = constant(element, elements.getSplatValue<Attribute>());
  } else if (auto index = dyn_cast_or_null<GenIndexOp>(def);
             index && rank == 4) {
    int64_t axis = index.getAxis();
    if (shapeOf(value)[axis] == 1) {
      // One position along the axis: the index is always 0.
      result = constant(element, inside.getIntegerAttr(element, 0));
    } else {
      result = region.block->getArgument(kBatchArg + axis);
      if (element != inside.getI64Type())
        result = CastOp::create(inside, loc, scalarType(element), result);
    }
  } else if (auto broadcast = dyn_cast_or_null<BroadcastOp>(def);
             broadcast && (rankOf(broadcast.getInput()) == 0 ||
                           rankOf(broadcast.getInput()) == rank)) {
    result = leaf(broadcast.getInput());
  } else if (def && def->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(def) &&
             def->getNumResults() == 1 && (rank == 4 || rank == 0) &&
             def->getNumRegions() == 0) {
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, leaf(operand));
    Operation *clone = inside.clone(*def, mapping);
    clone->getResult(0).setType(scalarType(element));
    result = clone->getResult(0);
  } else {
    result = capture(value);
  }
  leaves[value] = result;
  return result;
}

Value RegionBuilder::operandOf(Value value) {
  if (chain.derived.contains(value))
    return derived.lookup(value);
  return leaf(value);
}

void RegionBuilder::emitChainOp(Operation *op) {
  Value result = op->getResult(0);
  Type element = elementTypeOf(result);
  Type regionElement = isa<FloatType>(element) ? inside.getF32Type() : element;
  if (auto castOp = dyn_cast<CastOp>(op)) {
    Value input = operandOf(castOp.getInput());
    if (elementTypeOf(input) != regionElement)
      input = CastOp::create(inside, loc, scalarType(regionElement), input);
    derived.map(result, input);
    return;
  }
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    Value mapped = operandOf(operand);
    // Float operands of a score op are computed in f32 like the scores.
    if (isa<FloatType>(elementTypeOf(operand)))
      mapped = toF32(mapped);
    mapping.map(operand, mapped);
  }
  Operation *clone = inside.clone(*op, mapping);
  clone->getResult(0).setType(scalarType(regionElement));
  derived.map(result, clone->getResult(0));
}

void RegionBuilder::build(Value z, double inputFactor) {
  derived.map(chain.scaledScore, region.block->getArgument(0));
  for (Operation *op : chain.ops)
    if (!llvm::is_contained(chain.scaleOps, op))
      emitChainOp(op);
  Value yielded = toF32(derived.lookup(z));
  if (inputFactor != 1.0) {
    Value factor = ConstantOp::createScalar(inside, loc, inside.getF32Type(),
                                            inputFactor);
    yielded = MulOp::create(inside, loc, yielded, factor);
  }
  YieldOp::create(inside, loc, ValueRange{yielded});
}

ScoreRegion mlir::tg::fusion::buildScoreRegion(MLIRContext *ctx, Location loc,
                                               const ScoreChain &chain,
                                               Value z, double inputFactor) {
  ScoreRegion region;
  region.block = std::make_unique<Block>();
  Type i64 = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  region.block->addArgument(RankedTensorType::get({}, Float32Type::get(ctx)),
                            loc);
  for (int i = 0; i < 4; ++i)
    region.block->addArgument(i64, loc);
  RegionBuilder(ctx, loc, chain, region).build(z, inputFactor);
  return region;
}

static void eraseUnusedOps(Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty()) {
        op->erase();
        changed = true;
      }
  }
}

void mlir::tg::fusion::pruneScoreRegion(ScoreRegion &region, Block *grad) {
  Block &block = *region.block;
  eraseUnusedOps(block);
  if (grad)
    eraseUnusedOps(*grad);
  for (unsigned c = region.captures.size(); c-- > 0;) {
    unsigned arg = kFirstCaptureArg + c;
    if (!block.getArgument(arg).use_empty() ||
        (grad && !grad->getArgument(arg).use_empty()))
      continue;
    block.eraseArgument(arg);
    if (grad)
      grad->eraseArgument(arg);
    region.captures.erase(region.captures.begin() + c);
  }
}

std::unique_ptr<Block> mlir::tg::fusion::buildScoreGradRegion(
    MLIRContext *ctx, Location loc, const ScoreChain &gradChain, Value dz,
    Value gradient, double factor, ScoreRegion &score) {
  // Arguments: those of the score region (same captures), then dz.
  ScoreRegion grad;
  grad.block = std::make_unique<Block>();
  for (BlockArgument arg : score.block->getArguments())
    grad.block->addArgument(arg.getType(), loc);
  grad.captures = score.captures;
  BlockArgument dzArg = grad.block->addArgument(
      RankedTensorType::get({}, Float32Type::get(ctx)), loc);
  RegionBuilder builder(ctx, loc, gradChain, grad, /*trailingArgs=*/1);
  builder.mapDerived(dz, dzArg);
  builder.build(gradient, factor);
  // Captures only the gradient needed become arguments of score too.
  for (Value capture :
       ArrayRef<Value>(grad.captures).drop_front(score.captures.size())) {
    score.block->addArgument(
        RankedTensorType::get({}, elementTypeOf(capture)), loc);
    score.captures.push_back(capture);
  }
  return std::move(grad.block);
}
