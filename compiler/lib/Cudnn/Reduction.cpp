// tg.reduce and tg.softmax -> cuDNN reduction graphs.
//
// tg.reduce is one reduction op from the bound input into the bound result,
// described with the reduced dimensions kept as 1 (a result without
// keepdim is the same buffer). tg.softmax is the composite cuDNN uses in
// its attention graphs, made safe as tg requires (a slice that is all -inf
// gives zeros and stats -inf):
//   m  = max-reduce(x);  m0 = m != -inf ? m : 0
//   e  = exp(x - m0);    s  = add-reduce(e)
//   y  = e / (s != 0 ? s : 1)          (s is 0 only for all -inf slices)
//   stats = log(s) + m0                (log 0 = -inf)
// Intermediates are virtual f32. Ranks below 3 gain leading unit dims.
#include "Lowerings.h"
#include "TensorLayout.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

static std::string elementProblem(Value value) {
  Type t = cast<ShapedType>(value.getType()).getElementType();
  if (t.isF16() || t.isBF16() || t.isF32())
    return "";
  return withArticle(t) +
         " input (cuDNN reduces in f32: integer sums would not wrap as tg's "
         "do, fp8 results would not saturate)";
}

static unsigned graphRank(Value value) {
  return std::max<unsigned>(3, cast<ShapedType>(value.getType()).getRank());
}

static std::string buildReduce(ReduceOp op, StridesFn stridesOf,
                               GraphBuilder &g) {
  std::string reason = elementProblem(op.getInput());
  if (!reason.empty())
    return reason;
  if (op.getDims().empty())
    return "it reduces no dimension";
  unsigned rank = graphRank(op.getInput());
  int64_t x = bindPadded(g, op.getInput(), rank, stridesOf, reason);
  if (!x)
    return reason;
  // The result described with every reduced dim kept as 1.
  unsigned pad = rank - cast<ShapedType>(op.getInput().getType()).getRank();
  SmallVector<int64_t> dims(g.dims(x));
  SmallVector<bool> inserted(rank, false);
  for (unsigned i = 0; i < pad; ++i)
    inserted[i] = true;
  for (int64_t d : op.getDims()) {
    dims[pad + d] = 1;
    inserted[pad + d] = !op.getKeepdim();
  }
  int64_t y =
      bindWithUnitDims(g, op.getResult(), dims, inserted, stridesOf, reason);
  if (!y)
    return reason;
  const char *mode = op.getKind() == ReduceKind::sum   ? "add"
                     : op.getKind() == ReduceKind::max ? "max"
                                                       : "min";
  g.reduceInto(mode, x, y);
  return "";
}

static std::string buildSoftmax(SoftmaxOp op, StridesFn stridesOf,
                                GraphBuilder &g) {
  std::string reason = elementProblem(op.getInput());
  if (!reason.empty())
    return reason;
  unsigned rank = graphRank(op.getInput());
  unsigned axis =
      rank - cast<ShapedType>(op.getInput().getType()).getRank() + op.getAxis();
  int64_t x = bindPadded(g, op.getInput(), rank, stridesOf, reason);
  if (!x)
    return reason;
  int64_t y = bindPadded(g, op.getOutput(), rank, stridesOf, reason);
  if (!y)
    return reason;
  SmallVector<int64_t> rowDims(g.dims(x));
  rowDims[axis] = 1;
  int64_t stats = 0;
  if (Value s = op.getStats()) {
    stats = bindPadded(g, s, rank, stridesOf, reason);
    if (!stats)
      return reason;
  }

  double inf = std::numeric_limits<double>::infinity();
  int64_t zero = g.scalar(DType::F32, 0.0, rank);
  int64_t max = g.reduce("max", x, rowDims);
  int64_t finite =
      g.binary("cmp_neq", max, g.scalar(DType::F32, -inf, rank), DType::I1);
  int64_t safeMax = g.select(finite, max, zero);
  int64_t shifted = g.binary("sub", x, safeMax);
  int64_t e = g.unary("exp", shifted);
  int64_t sum = g.reduce("add", e, rowDims);
  int64_t nonZero = g.binary("cmp_neq", sum, zero, DType::I1);
  int64_t safeSum = g.select(nonZero, sum, g.scalar(DType::F32, 1.0, rank));
  g.pointwiseInto("div", e, safeSum, y);
  if (stats)
    g.pointwiseInto("add", g.unary("log", sum), safeMax, stats);
  return "";
}

static std::string build(Operation *op, StridesFn stridesOf, GraphBuilder &g) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return buildReduce(reduce, stridesOf, g);
  return buildSoftmax(cast<SoftmaxOp>(op), stridesOf, g);
}

static std::string graphName(Operation *op) {
  std::string name = op->getName().getStringRef().str();
  if (auto reduce = dyn_cast<ReduceOp>(op))
    name += reduce.getKind() == ReduceKind::sum   ? " sum"
            : reduce.getKind() == ReduceKind::max ? " max"
                                                  : " min";
  return name + " " + typeText(op->getOperand(0).getType());
}

std::string cudnn::reductionUnsupportedReason(Operation *op) {
  GraphBuilder scratch(graphName(op));
  return build(op, staticStridesOf, scratch);
}

FailureOr<Lowering> cudnn::lowerReduction(Operation *op, StridesFn stridesOf) {
  Lowering lowering;
  lowering.graphs.emplace_back(graphName(op));
  std::string reason = build(op, stridesOf, lowering.graphs.back());
  if (!reason.empty())
    return op->emitOpError("cannot be lowered to cuDNN: ") << reason;
  return lowering;
}
