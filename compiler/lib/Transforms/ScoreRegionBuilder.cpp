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

#include <map>

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
    for (auto [i, capture] : llvm::enumerate(region.captures)) {
      unsigned arg = kFirstCaptureArg + i;
      bool table = region.block->getArgument(arg).getType() ==
                       capture.getType() &&
                   rankOf(capture) > 0;
      (table ? tableArgs : captureArgs)[capture] = arg;
    }
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
  Value indexConstant(int64_t value);
  Value leaf(Value value);
  Value leafAt(Value value, ArrayRef<Value> coords);
  Value capture(Value value, bool table = false);
  Value operandOf(Value value);
  void emitChainOp(Operation *op);
  bool atScorePosition(Value value, ArrayRef<Value> coords);
  bool reachesGather(Value value);
  SmallVector<Value> broadcastCoords(Value operand, ArrayRef<Value> coords);
  SmallVector<Value> reshapeCoords(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to,
                                   ArrayRef<Value> coords);

  OpBuilder inside;
  Location loc;
  const ScoreChain &chain;
  ScoreRegion &region;
  IRMapping derived; // chain values -> region values
  llvm::DenseMap<Value, Value> leaves;
  // Leaves read at computed coordinates (the indices of a gather).
  std::map<std::pair<void *, SmallVector<void *>>, Value> leavesAt;
  llvm::DenseMap<Value, bool> gatherBehind;
  llvm::DenseMap<int64_t, Value> indexConstants;
  // Linear indices built by reshapeCoords: the sizes and coordinates merged.
  llvm::DenseMap<Value, std::pair<SmallVector<int64_t>, SmallVector<Value>>>
      linearParts;
  llvm::DenseMap<Value, unsigned> captureArgs; // element captures
  llvm::DenseMap<Value, unsigned> tableArgs;   // table captures
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

Value RegionBuilder::indexConstant(int64_t value) {
  // One constant per value, so that equal coordinates are equal values
  // (leavesAt is keyed by them).
  if (Value known = indexConstants.lookup(value))
    return known;
  Type i64 = inside.getI64Type();
  OpBuilder::InsertionGuard guard(inside);
  inside.setInsertionPointToStart(region.block.get());
  Value c = constant(i64, inside.getIntegerAttr(i64, value));
  indexConstants[value] = c;
  return c;
}

Value RegionBuilder::capture(Value value, bool table) {
  // A value read both ways gets two captures (an element and a table).
  llvm::DenseMap<Value, unsigned> &args = table ? tableArgs : captureArgs;
  auto it = args.find(value);
  if (it != args.end())
    return region.block->getArgument(it->second);
  region.captures.push_back(value);
  Type type = table ? value.getType() : scalarType(elementTypeOf(value));
  BlockArgument arg = region.block->insertArgument(
      region.block->getNumArguments() - trailingArgs, type, loc);
  args[value] = arg.getArgNumber();
  return arg;
}

/// True when `coords` are the score's own indices for `value` (rank 4,
/// index arguments along every dimension that is not size 1): the value can
/// be an element capture, broadcast to the scores.
bool RegionBuilder::atScorePosition(Value value, ArrayRef<Value> coords) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() != 4 || coords.size() != 4)
    return false;
  for (unsigned d = 0; d < 4; ++d) {
    if (shape[d] == 1)
      continue;
    auto arg = dyn_cast<BlockArgument>(coords[d]);
    if (!arg || arg.getOwner() != region.block.get() ||
        arg.getArgNumber() != kBatchArg + d)
      return false;
  }
  return true;
}

/// Whether a tg.gather is reached from `value` through layout and pointwise
/// ops: only then are layout ops looked through (a plain tensor behind a
/// view stays an element capture, which cuDNN can still read).
bool RegionBuilder::reachesGather(Value value) {
  auto it = gatherBehind.find(value);
  if (it != gatherBehind.end())
    return it->second;
  bool found = false;
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<GatherOp>(def))
    found = true;
  else if (def && (isa<TransposeOp, ReshapeOp, BroadcastOp>(def) ||
                   (def->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(def))))
    found = llvm::any_of(def->getOperands(),
                         [&](Value v) { return reachesGather(v); });
  gatherBehind[value] = found;
  return found;
}

/// The coordinates of `operand` (broadcast against a result read at
/// `coords`): 0 along its size-1 dimensions, nothing for a rank-0 operand.
SmallVector<Value> RegionBuilder::broadcastCoords(Value operand,
                                                  ArrayRef<Value> coords) {
  ArrayRef<int64_t> shape = shapeOf(operand);
  SmallVector<Value> result;
  if (shape.empty())
    return result;
  for (auto [size, coord] : llvm::zip(shape, coords))
    result.push_back(size == 1 ? indexConstant(0) : coord);
  return result;
}

/// The coordinates in a row-major tensor of shape `from` of the element at
/// `coords` of its reshape to `to`. Size-1 dimensions drop out; the others
/// pair up in groups of equal size (a split, a merge or one dimension), and
/// each group's coordinates are merged into one linear index and split
/// again. A linear index this builder made is split back into the very
/// coordinates it came from (a view and its inverse cost nothing).
SmallVector<Value> RegionBuilder::reshapeCoords(ArrayRef<int64_t> from,
                                                ArrayRef<int64_t> to,
                                                ArrayRef<Value> coords) {
  SmallVector<int64_t> fromDims, toDims;
  SmallVector<Value> toCoords;
  for (int64_t d : from)
    if (d != 1)
      fromDims.push_back(d);
  for (auto [d, c] : llvm::zip(to, coords))
    if (d != 1) {
      toDims.push_back(d);
      toCoords.push_back(c);
    }
  SmallVector<Value> nonUnit;
  size_t i = 0, j = 0;
  while (i < fromDims.size() && j < toDims.size()) {
    // The smallest groups fromDims[i, i2) and toDims[j, j2) of equal size.
    size_t i2 = i + 1, j2 = j + 1;
    int64_t a = fromDims[i], b = toDims[j];
    while (a != b) {
      if (a < b)
        a *= fromDims[i2++];
      else
        b *= toDims[j2++];
    }
    ArrayRef<int64_t> fromGroup = ArrayRef<int64_t>(fromDims).slice(i, i2 - i);
    ArrayRef<int64_t> toGroup = ArrayRef<int64_t>(toDims).slice(j, j2 - j);
    ArrayRef<Value> groupCoords = ArrayRef<Value>(toCoords).slice(j, j2 - j);
    if (fromGroup.size() == 1 && toGroup.size() == 1) {
      nonUnit.push_back(groupCoords[0]);
    } else {
      Value linear = groupCoords[0];
      if (toGroup.size() > 1) {
        for (size_t k = 1; k < toGroup.size(); ++k)
          linear = AddOp::create(
              inside, loc,
              MulOp::create(inside, loc, linear, indexConstant(toGroup[k])),
              groupCoords[k]);
        linearParts[linear] = {SmallVector<int64_t>(toGroup),
                               SmallVector<Value>(groupCoords)};
      }
      auto known = linearParts.find(linear);
      if (known != linearParts.end() &&
          ArrayRef<int64_t>(known->second.first) == fromGroup) {
        nonUnit.append(known->second.second.begin(),
                       known->second.second.end());
      } else {
        // Split from the last dimension: c = linear % d, linear /= d; the
        // first coordinate is the final quotient.
        SmallVector<Value> reversed;
        for (int64_t d : llvm::reverse(fromGroup.drop_front())) {
          Value size = indexConstant(d);
          Value quotient = DivOp::create(inside, loc, linear, size);
          reversed.push_back(SubOp::create(
              inside, loc, linear, MulOp::create(inside, loc, quotient, size)));
          linear = quotient;
        }
        reversed.push_back(linear);
        nonUnit.append(reversed.rbegin(), reversed.rend());
      }
    }
    i = i2;
    j = j2;
  }
  SmallVector<Value> result;
  unsigned next = 0;
  for (int64_t d : from)
    result.push_back(d == 1 ? indexConstant(0) : nonUnit[next++]);
  return result;
}

Value RegionBuilder::leaf(Value value) {
  if (Value known = leaves.lookup(value))
    return known;
  SmallVector<Value> coords;
  if (rankOf(value) == 4) {
    for (unsigned d = 0; d < 4; ++d)
      coords.push_back(shapeOf(value)[d] == 1
                           ? indexConstant(0)
                           : region.block->getArgument(kBatchArg + d));
  }
  Value result = leafAt(value, coords);
  leaves[value] = result;
  return result;
}

/// `value[coords]` as region math: constants, indices and pointwise ops are
/// rebuilt; a graph-level tg.gather becomes a region gather of a table
/// capture (its indices rebuilt at the same coordinates), with layout ops
/// on the way looked through; anything else is an element capture when read
/// at the score's position, else a table capture gathered at `coords`.
Value RegionBuilder::leafAt(Value value, ArrayRef<Value> coords) {
  std::pair<void *, SmallVector<void *>> key{value.getAsOpaquePointer(), {}};
  for (Value c : coords)
    key.second.push_back(c.getAsOpaquePointer());
  if (auto it = leavesAt.find(key); it != leavesAt.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  Type element = elementTypeOf(value);
  ArrayRef<int64_t> shape = shapeOf(value);
  bool atScore = atScorePosition(value, coords);
  Value result;
  ElementsAttr elements;
  if (def && matchPattern(value, m_Constant(&elements)) &&
      elements.isSplat()) {
    result = constant(element, elements.getSplatValue<Attribute>());
  } else if (auto index = dyn_cast_or_null<GenIndexOp>(def)) {
    int64_t axis = index.getAxis();
    if (shape[axis] == 1) {
      // One position along the axis: the index is always 0.
      result = constant(element, inside.getIntegerAttr(element, 0));
    } else {
      result = coords[axis];
      if (element != inside.getI64Type())
        result = CastOp::create(inside, loc, scalarType(element), result);
    }
  } else if (auto broadcast = dyn_cast_or_null<BroadcastOp>(def)) {
    result = leafAt(broadcast.getInput(),
                    broadcastCoords(broadcast.getInput(), coords));
  } else if (auto gather = dyn_cast_or_null<GatherOp>(def)) {
    SmallVector<Value> indices;
    for (Value index : gather.getIndices())
      indices.push_back(leafAt(index, broadcastCoords(index, coords)));
    Value table = capture(gather.getTable(), /*table=*/true);
    result = GatherOp::create(inside, loc, table, indices, gather.getMode(),
                              gather.getFillValueAttr())
                 .getResult();
  } else if (auto transpose = dyn_cast_or_null<TransposeOp>(def);
             transpose && (!atScore || reachesGather(value))) {
    // result[i] = input[perm[i]]: the input's coordinate perm[i] is ours i.
    SmallVector<Value> inputCoords(coords.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
      inputCoords[p] = coords[i];
    result = leafAt(transpose.getInput(), inputCoords);
  } else if (auto reshape = dyn_cast_or_null<ReshapeOp>(def);
             reshape && (!atScore || reachesGather(value))) {
    result = leafAt(reshape.getInput(),
                    reshapeCoords(shapeOf(reshape.getInput()), shape, coords));
  } else if (def && def->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(def) &&
             def->getNumResults() == 1 && def->getNumRegions() == 0 &&
             !readsStorageOnly(def)) {
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, leafAt(operand, broadcastCoords(operand, coords)));
    Operation *clone = inside.clone(*def, mapping);
    clone->getResult(0).setType(scalarType(element));
    result = clone->getResult(0);
  } else if (atScore || shape.empty()) {
    result = capture(value);
  } else {
    // Read at computed coordinates: the whole tensor becomes a table. The
    // coordinates are in range by construction, so the clamp never acts.
    result = GatherOp::create(inside, loc, capture(value, /*table=*/true),
                              coords, GatherMode::clamp, FloatAttr())
                 .getResult();
  }
  leavesAt[key] = result;
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
  // Captures only the gradient needed become arguments of score too (with
  // the same type: an element or a whole table).
  for (auto [n, capture] : llvm::enumerate(
           ArrayRef<Value>(grad.captures).drop_front(score.captures.size()))) {
    unsigned arg = kFirstCaptureArg + score.captures.size();
    (void)n;
    score.block->addArgument(grad.block->getArgument(arg).getType(), loc);
    score.captures.push_back(capture);
  }
  return std::move(grad.block);
}
