//===- ReduceKernel.cpp - tg.reduce (sum/max/min over any dimensions) -----===//
//
// One warp per output element (eight per block), or one block per output
// when the reduced extent is long. Each thread folds a strided part of the
// reduced elements, then the partial results are combined with shuffles
// (and shared memory across warps). Float sums accumulate in double and
// round once (as the reference does; the kernel is bound by memory, not by
// the adds), max/min in f32 propagating NaN, integers in 64 bits with
// wrap-around; the result is rounded to the element type.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "tg/Lowering/ScalarExpr.h"

#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

static constexpr int64_t kThreads = 256;
static constexpr int64_t kWarpSize = 32;
/// Reduced extents at least this long get a whole block per output.
static constexpr int64_t kBlockPerOutputFrom = 2048;

namespace {
struct ReduceOps {
  std::string identity; // value of an empty reduction
  std::string functor;  // prelude functor combining two partials
};
} // namespace

static ReduceOps reduceOps(ReduceKind kind, bool isFloat) {
  switch (kind) {
  case ReduceKind::sum:
    return {isFloat ? "0.0" : "0LL", "tg_sum_op()"};
  case ReduceKind::max:
    return {isFloat ? "(-TG_INF)" : "TG_I64_MIN", "tg_max_op()"};
  case ReduceKind::min:
    return {isFloat ? "TG_INF" : "TG_I64_MAX", "tg_min_op()"};
  }
  llvm_unreachable("unknown reduce kind");
}

LogicalResult lowering::emitReduceKernel(ReduceOp op, LoweringState &state) {
  Value input = op.getInput(), result = op.getResult();
  ArrayRef<int64_t> shape = shapeOf(input);
  Type type = elementTypeOf(input);
  bool isFloat = isa<FloatType>(type);
  state.views[result] = TensorView::ofBuffer(result);

  // Kept and reduced dimensions; coordinate d is named c<d> either way.
  llvm::SmallDenseSet<int64_t> reduced(op.getDims().begin(),
                                       op.getDims().end());
  SmallVector<int64_t> keptShape, reducedShape;
  SmallVector<int64_t> keptDims, reducedDims;
  for (auto [d, size] : llvm::enumerate(shape)) {
    bool isReduced = reduced.contains(d);
    (isReduced ? reducedShape : keptShape).push_back(size);
    (isReduced ? reducedDims : keptDims).push_back(d);
  }
  int64_t outputs = numElements(keptShape);
  int64_t extent = numElements(reducedShape);
  if (outputs == 0)
    return success();

  auto namesOf = [](ArrayRef<int64_t> dims) {
    SmallVector<std::string> names;
    for (int64_t d : dims)
      names.push_back("c" + std::to_string(d));
    return names;
  };
  Coordinates kept = delinearize("o", keptShape, namesOf(keptDims));
  Coordinates red = delinearize("r", reducedShape, namesOf(reducedDims));
  SmallVector<std::string> coords(shape.size());
  for (auto [i, d] : llvm::enumerate(keptDims))
    coords[d] = kept.coords[i];
  for (auto [i, d] : llvm::enumerate(reducedDims))
    coords[d] = red.coords[i];

  KernelParams params;
  ReduceOps ops = reduceOps(op.getKind(), isFloat);
  bool doubleSum = isFloat && op.getKind() == ReduceKind::sum;
  StringRef accType = doubleSum ? "double" : cudaComputeType(type);
  std::string load = emitLoad(state.view(input), coords, params);
  std::string out = params.output(result);
  bool blockPerOutput = extent >= kBlockPerOutputFrom;
  int64_t groupSize = blockPerOutput ? kThreads : kWarpSize;
  int64_t groupsPerBlock = kThreads / groupSize;

  std::string foldBody = "      const " + accType.str() + " x = " + load +
                         ";\n      acc = " + ops.functor + "(acc, x);\n";

  std::string entry = state.entryName("reduce");
  KernelStep step;
  llvm::raw_string_ostream os(step.source);
  os << "// tg.reduce " << stringifyReduceKind(op.getKind()) << " over dims ["
     << llvm::interleaved(op.getDims()) << "] of " << formatShape(shape)
     << " " << typeString(type) << " -> " << formatShape(shapeOf(result))
     << ": " << outputs << " outputs of " << extent << " elements, one "
     << (blockPerOutput ? "block" : "warp") << " per output\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ")\n"
     << entry << "(" << params.declaration() << ") {\n"
     << "  constexpr long long kOutputs = " << i64Literal(outputs) << ";\n"
     << "  constexpr long long kExtent = " << i64Literal(extent)
     << "; // reduced elements per output\n";
  if (blockPerOutput)
    os << "  __shared__ " << accType << " scratch[32];\n"
       << "  const int tid = threadIdx.x;\n"
       << "  for (long long o = blockIdx.x; o < kOutputs; o += gridDim.x) {\n";
  else
    os << "  const int tid = threadIdx.x & 31; // lane\n"
       << "  for (long long o = (long long)blockIdx.x * " << groupsPerBlock
       << " + (threadIdx.x >> 5); o < kOutputs;\n"
       << "       o += (long long)gridDim.x * " << groupsPerBlock << ") {\n";
  std::string keptDecl = kept.declare(foldBody, 4);
  if (!keptDecl.empty())
    os << "    // Coordinates of output o over the kept dimensions\n"
       << keptDecl;
  os << "    // Thread tid folds reduced elements tid, tid + " << groupSize
     << ", ...\n"
     << "    " << accType << " acc = " << ops.identity << ";\n"
     << "    for (long long r = tid; r < kExtent; r += " << groupSize
     << ") {\n";
  std::string redDecl = red.declare(foldBody, 6);
  os << redDecl << foldBody << "    }\n";
  if (blockPerOutput)
    os << "    // Combine the block's partial results\n"
       << "    acc = tg_block_reduce(acc, " << ops.functor << ", scratch);\n";
  else
    os << "    // Combine the warp's partial results\n"
       << "    acc = tg_warp_reduce(acc, " << ops.functor << ");\n";
  os << "    if (tid == 0)\n"
     << "      tg_store(" << out << ", o, "
     << (doubleSum ? cudaRoundFromDouble("acc", type) : cudaRoundTo("acc", type))
     << ");\n"
     << "  }\n}\n";

  step.entry = entry;
  step.name = ("reduce " + stringifyReduceKind(op.getKind()) + " " +
               shapeString(shape) + " -> " + shapeString(shapeOf(result)))
                  .str();
  step.grid = {gridFor(outputs, groupsPerBlock), 1, 1};
  step.block = {static_cast<unsigned>(kThreads), 1, 1};
  params.fill(step);
  state.addStep(std::move(step));
  return success();
}
