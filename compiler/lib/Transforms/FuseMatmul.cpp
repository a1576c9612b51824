//===- FuseMatmul.cpp - tg-fuse-matmul ------------------------------------===//
//
// Prologues: walking back from each matmul operand, casts and scalings
// (cast, mul, div, add, sub with constants or broadcast tensors) whose
// result has the operand's shape and whose value feeds only the next step.
// A step whose value has other users stops the prologue there (its work
// would otherwise be done twice or the other users would lose it).
//
// Group-wise dequantisation as model code writes it (the weight viewed as
// [..., K / G, G, N], scaled or shifted by [..., K / G, 1, N] tensors,
// viewed back as [..., K, N]) is first rebuilt on the [..., K, N] weight,
// each such tensor broadcast over the group and viewed as [..., K, N] (a
// view the lowering reads at row / G, not a copy), so that it becomes a
// prologue like any other.
//
// Epilogue: starting from the matmul result, the largest set of pointwise ops
// of the result shape that is closed (every value inside is used only inside,
// except the single output) -- so `gelu(x) = x * sigmoid(1.702 x)` style
// diamonds fuse, and a value used elsewhere stops the epilogue.
//
//===----------------------------------------------------------------------===//
#include "AttentionMatch.h"
#include "FusionUtils.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tg {
#define GEN_PASS_DEF_FUSEMATMUL
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

namespace {
/// One prologue or epilogue: `ops` (block order) turn `input` into `output`.
struct ElementChain {
  Value input, output;
  SmallVector<Operation *> ops;
};

struct MatmulFusion {
  MatmulOp matmul;
  ElementChain prologueA, prologueB, epilogue;
  bool empty() const {
    return prologueA.ops.empty() && prologueB.ops.empty() &&
           epilogue.ops.empty();
  }
};
} // namespace

static bool isPrologueOp(Operation *op) {
  return isa<CastOp, MulOp, DivOp, AddOp, SubOp>(op);
}

/// The operand of a prologue op that carries the data (the other operands
/// are constants or broadcast tensors that become captures).
static Value dataOperand(Operation *op) {
  Value result = op->getResult(0);
  if (isa<CastOp>(op))
    return op->getOperand(0);
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  bool lhsFull = shapeOf(lhs) == shapeOf(result);
  bool rhsFull = shapeOf(rhs) == shapeOf(result);
  bool lhsConst = matchPattern(lhs, m_Constant());
  if (lhsFull && !lhsConst)
    return lhs;
  // Only commutative ops may carry the data on the right.
  if (rhsFull && isa<MulOp, AddOp>(op))
    return rhs;
  return {};
}

static ElementChain matchPrologue(Value operand, bool report) {
  ElementChain chain;
  Value cur = operand;
  while (Operation *def = cur.getDefiningOp()) {
    if (!isPrologueOp(def) || shapeOf(cur) != shapeOf(operand))
      break;
    Value data = dataOperand(def);
    if (!data)
      break;
    if (!cur.hasOneUse()) {
      if (report)
        def->emitRemark() << "not fused into a matmul prologue: its value "
                             "has users other than the matmul chain";
      break;
    }
    chain.ops.push_back(def);
    cur = data;
  }
  std::reverse(chain.ops.begin(), chain.ops.end());
  chain.input = cur;
  chain.output = operand;
  return chain;
}

/// The tensor `other` (an operand of an op on the [..., K / G, G, N] view,
/// of size 1 along the group dimension) as the [..., K, N] tensor the op
/// sees, built at the rewriter's insertion point.
static Value ungroupedOperand(RewriterBase &rewriter, Location loc,
                              Value other, ArrayRef<int64_t> weightShape) {
  ArrayRef<int64_t> shape = shapeOf(other);
  if (shape.empty())
    return other; // a scalar broadcasts to either view
  size_t group = shape.size() - 2; // the G dimension
  assert(shape[group] == 1 && "the caller checked the group dimension");
  SmallVector<int64_t> merged(shape.take_front(group - 1));
  merged.push_back(shape[group - 1] == 1 ? 1 : weightShape[group - 1]);
  merged.push_back(shape.back());
  auto type = RankedTensorType::get(merged, elementTypeOf(other));
  ElementsAttr elements;
  if (matchPattern(other, m_Constant(&elements)) && elements.isSplat())
    return ConstantOp::create(
        rewriter, loc,
        cast<ElementsAttr>(DenseElementsAttr::get(
            type, elements.getSplatValue<Attribute>())));
  Value source = other;
  if (shape[group - 1] != 1) {
    SmallVector<int64_t> repeated(shape);
    repeated[group] = weightShape[group - 1] / shape[group - 1];
    source = BroadcastOp::create(
        rewriter, loc, RankedTensorType::get(repeated, elementTypeOf(other)),
        source);
  }
  return ReshapeOp::create(rewriter, loc, type, source);
}

/// Rebuilds a group-wise prologue of the matmul's weight (see the file
/// comment) on the [..., K, N] weight; true when it did.
static bool ungroupWeightPrologue(RewriterBase &rewriter, MatmulOp matmul) {
  Value operand = matmul.getB();
  auto back = operand.getDefiningOp<ReshapeOp>();
  if (!back || !back.getInput().hasOneUse())
    return false;
  ArrayRef<int64_t> weightShape = shapeOf(operand);
  ArrayRef<int64_t> grouped = shapeOf(back.getInput());
  size_t rank = weightShape.size();
  if (rank < 2 || grouped.size() != rank + 1 ||
      grouped.take_front(rank - 2) != weightShape.take_front(rank - 2) ||
      grouped[rank - 2] * grouped[rank - 1] != weightShape[rank - 2] ||
      grouped[rank - 1] == 1 || grouped[rank] != weightShape[rank - 1])
    return false;
  SmallVector<Operation *> chain;
  Value cur = back.getInput();
  while (Operation *def = cur.getDefiningOp()) {
    if (!isPrologueOp(def) || !cur.hasOneUse())
      break;
    Value data = dataOperand(def);
    if (!data)
      break;
    chain.push_back(def);
    cur = data;
  }
  auto split = cur.getDefiningOp<ReshapeOp>();
  if (chain.empty() || !split || shapeOf(split.getInput()) != weightShape)
    return false;
  std::reverse(chain.begin(), chain.end());
  for (Operation *op : chain)
    for (Value value : op->getOperands())
      if (value != dataOperand(op) && !shapeOf(value).empty() &&
          shapeOf(value)[rank - 1] != 1)
        return false; // varies inside a group: no [..., K, N] view of it

  rewriter.setInsertionPoint(matmul);
  Location loc = matmul.getLoc();
  Value data = split.getInput();
  for (Operation *op : chain) {
    IRMapping mapping;
    Value opData = dataOperand(op);
    mapping.map(opData, data);
    for (Value value : op->getOperands())
      if (value != opData)
        mapping.map(value, ungroupedOperand(rewriter, loc, value, weightShape));
    Operation *clone = rewriter.clone(*op, mapping);
    clone->getResult(0).setType(RankedTensorType::get(
        weightShape, elementTypeOf(op->getResult(0))));
    data = clone->getResult(0);
  }
  rewriter.modifyOpInPlace(matmul, [&] { matmul.getBMutable().assign(data); });
  llvm::DenseSet<Operation *> erased;
  SmallVector<Operation *> dead{back.getOperation()};
  dead.append(chain.rbegin(), chain.rend());
  eraseDeadOps(rewriter, dead, erased);
  return true;
}

static ElementChain matchEpilogue(MatmulOp matmul) {
  ElementChain chain;
  Value result = matmul.getResult();
  ArrayRef<int64_t> shape = shapeOf(result);
  Block *block = matmul->getBlock();
  chain.input = chain.output = result;
  llvm::DenseMap<Value, bool> memo;
  const llvm::DenseSet<Value> resultSet{result};
  llvm::DenseSet<Operation *> fused;
  auto isEpilogueOp = [&](Operation *op) {
    return op->getBlock() == block && op->hasTrait<PointwiseTrait>() &&
           !isa<ConstantOp>(op) && op->getNumResults() == 1 &&
           shapeOf(op->getResult(0)) == shape;
  };
  while (true) {
    // The forward pointwise slice of the current output, in block order.
    llvm::SetVector<Operation *> slice;
    SmallVector<Value> worklist{chain.output};
    while (!worklist.empty() && slice.size() < 64) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers())
        if (isEpilogueOp(user) && slice.insert(user))
          worklist.push_back(user->getResult(0));
    }
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    bool extended = false;
    for (Operation *exit : ordered) {
      // The slice ops that reach `exit`.
      llvm::SetVector<Operation *> group;
      SmallVector<Operation *> stack{exit};
      while (!stack.empty()) {
        Operation *op = stack.pop_back_val();
        if (!group.insert(op))
          continue;
        for (Value operand : op->getOperands())
          if (Operation *def = operand.getDefiningOp();
              def && slice.contains(def))
            stack.push_back(def);
      }
      auto inGroup = [&](Operation *op) { return group.contains(op); };
      bool closed = llvm::all_of(chain.output.getUsers(), inGroup);
      for (Operation *op : group) {
        if (op != exit && !llvm::all_of(op->getUsers(), inGroup))
          closed = false;
        for (Value operand : op->getOperands()) {
          Operation *def = operand.getDefiningOp();
          bool internal = operand == chain.output || (def && group.contains(def));
          if (!internal && fusion::dependsOn(operand, resultSet, memo))
            closed = false; // a leaf computed from the result
        }
      }
      if (!closed)
        continue;
      SmallVector<Operation *> groupOps(group.begin(), group.end());
      llvm::sort(groupOps, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      chain.ops.append(groupOps);
      chain.output = exit->getResult(0);
      extended = true;
      break;
    }
    if (!extended)
      break;
  }
  return chain;
}

/// Builds a per-element region computing `chain` on rank-0 values, with
/// the element arriving as `argType` (converted to the input's element type
/// first when they differ).
static std::unique_ptr<Block> buildRegion(MLIRContext *ctx, Location loc,
                                          const ElementChain &chain,
                                          Type argType,
                                          SmallVectorImpl<Value> &captures) {
  auto block = std::make_unique<Block>();
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(block.get());
  auto scalar = [](Type element) { return RankedTensorType::get({}, element); };
  Value arg = block->addArgument(scalar(argType), loc);
  Type inputType = elementTypeOf(chain.input);
  if (inputType != argType)
    arg = CastOp::create(builder, loc, scalar(inputType), arg);
  IRMapping mapping;
  mapping.map(chain.input, arg);
  llvm::DenseMap<Value, Value> leaves;
  auto leaf = [&](Value value) -> Value {
    if (Value known = leaves.lookup(value))
      return known;
    Value mapped;
    ElementsAttr elements;
    if (matchPattern(value, m_Constant(&elements)) && elements.isSplat()) {
      auto attr = DenseElementsAttr::get(scalar(elementTypeOf(value)),
                                         elements.getSplatValue<Attribute>());
      mapped = ConstantOp::create(builder, loc, cast<ElementsAttr>(attr));
    } else {
      captures.push_back(value);
      mapped = block->addArgument(scalar(elementTypeOf(value)), loc);
    }
    leaves[value] = mapped;
    return mapped;
  };
  for (Operation *op : chain.ops) {
    for (Value operand : op->getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand, leaf(operand));
    Operation *clone = builder.clone(*op, mapping);
    clone->getResult(0).setType(scalar(elementTypeOf(op->getResult(0))));
  }
  YieldOp::create(builder, loc, ValueRange{mapping.lookup(chain.output)});
  return block;
}

static MatmulFusion matchMatmulFusion(MatmulOp matmul, bool report) {
  MatmulFusion fusion;
  fusion.matmul = matmul;
  fusion.prologueA = matchPrologue(matmul.getA(), report);
  fusion.prologueB = matchPrologue(matmul.getB(), report);
  fusion.epilogue = matchEpilogue(matmul);
  return fusion;
}

static void rewriteMatmulFusion(RewriterBase &rewriter,
                                const MatmulFusion &fusion) {
  MatmulOp matmul = fusion.matmul;
  MLIRContext *ctx = matmul.getContext();
  Location loc = matmul.getLoc();
  Operation *anchor = fusion.epilogue.ops.empty()
                          ? matmul.getOperation()
                          : fusion.epilogue.ops.back();
  rewriter.setInsertionPoint(anchor);
  SmallVector<Value> aCaptures, bCaptures, eCaptures;
  std::unique_ptr<Block> blocks[3];
  if (!fusion.prologueA.ops.empty())
    blocks[0] = buildRegion(ctx, loc, fusion.prologueA,
                            elementTypeOf(fusion.prologueA.input), aCaptures);
  if (!fusion.prologueB.ops.empty())
    blocks[1] = buildRegion(ctx, loc, fusion.prologueB,
                            elementTypeOf(fusion.prologueB.input), bCaptures);
  if (!fusion.epilogue.ops.empty())
    blocks[2] = buildRegion(ctx, loc, fusion.epilogue,
                            matmul.getAccumulatorType(), eCaptures);
  auto fused = FusedMatmulOp::create(
      rewriter, loc, fusion.epilogue.output.getType(), fusion.prologueA.input,
      fusion.prologueB.input, aCaptures, bCaptures, eCaptures,
      matmul.getAccAttr());
  Region *regions[3] = {&fused.getPrologueA(), &fused.getPrologueB(),
                        &fused.getEpilogue()};
  for (int i = 0; i < 3; ++i)
    if (blocks[i])
      regions[i]->push_back(blocks[i].release());
  rewriter.replaceAllUsesWith(fusion.epilogue.output, fused.getResult());
  SmallVector<Operation *> dead(fusion.epilogue.ops.rbegin(),
                                fusion.epilogue.ops.rend());
  dead.push_back(matmul);
  dead.append(fusion.prologueA.ops.rbegin(), fusion.prologueA.ops.rend());
  dead.append(fusion.prologueB.ops.rbegin(), fusion.prologueB.ops.rend());
  llvm::DenseSet<Operation *> erased;
  eraseDeadOps(rewriter, dead, erased);
}

namespace {
struct FuseMatmulPattern : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp matmul,
                                PatternRewriter &rewriter) const override {
    bool ungrouped = ungroupWeightPrologue(rewriter, matmul);
    MatmulFusion fusion = matchMatmulFusion(matmul, /*report=*/false);
    if (fusion.empty())
      return ungrouped ? success()
                       : rewriter.notifyMatchFailure(
                             matmul, "no prologue or epilogue op can be fused");
    rewriteMatmulFusion(rewriter, fusion);
    return success();
  }
};

struct FuseMatmulPass : tg::impl::FuseMatmulBase<FuseMatmulPass> {
  using FuseMatmulBase::FuseMatmulBase;

  void runOnOperation() override {
    bool emitRemarks = report || fusionReportFlag();
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp op) { matmuls.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (MatmulOp matmul : matmuls) {
      ungroupWeightPrologue(rewriter, matmul);
      MatmulFusion fusion = matchMatmulFusion(matmul, emitRemarks);
      if (!fusion.empty())
        rewriteMatmulFusion(rewriter, fusion);
    }
  }
};
} // namespace

void mlir::tg::populateFuseMatmulPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseMatmulPattern>(patterns.getContext());
}
