//===- SoftmaxKernel.cpp - tg.softmax along any axis ----------------------===//
//
// One warp per row (a slice along the axis), or one block per row for long
// rows. Three passes over the row in f32: maximum, sum of exp(x - max),
// then exp(x - max) / sum rounded to the element type. A row whose maximum
// is -inf (all entries masked) gives zeros and log-sum-exp -inf; a NaN
// makes the maximum, hence the whole row and its stats, NaN.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "tg/Lowering/ScalarExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

static constexpr int64_t kThreads = 256;
static constexpr int64_t kWarpSize = 32;
/// Rows at least this long get a whole block.
static constexpr int64_t kBlockPerRowFrom = 2048;

LogicalResult lowering::emitSoftmaxKernel(SoftmaxOp op, LoweringState &state) {
  Value input = op.getInput(), output = op.getOutput();
  Value stats = op.getStats();
  ArrayRef<int64_t> shape = shapeOf(input);
  Type type = elementTypeOf(input);
  int64_t axis = op.getAxis();
  state.views[output] = TensorView::ofBuffer(output);
  if (stats)
    state.views[stats] = TensorView::ofBuffer(stats);
  bool writeStats = stats && !stats.use_empty();

  // Rows are indexed row-major over the shape without the axis; `inner` is
  // the distance between neighbours along the axis in the dense output.
  SmallVector<int64_t> rowShape;
  SmallVector<std::string> rowNames;
  for (auto [d, size] : llvm::enumerate(shape))
    if (static_cast<int64_t>(d) != axis) {
      rowShape.push_back(size);
      rowNames.push_back("c" + std::to_string(d));
    }
  int64_t rows = numElements(rowShape);
  int64_t length = shape[axis];
  int64_t inner = numElements(shape.drop_front(axis + 1));
  if (rows == 0 || length == 0)
    return success(); // nothing to write (an empty row has no stats either)

  Coordinates rowCoords = delinearize("row", rowShape, rowNames);
  SmallVector<std::string> coords;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (static_cast<int64_t>(d) == axis)
      coords.push_back(length == 1 ? "0" : "j");
    else
      coords.push_back(rowCoords.coords[d < static_cast<size_t>(axis) ? d
                                                                      : d - 1]);
  }

  KernelParams params;
  std::string load = emitLoad(state.view(input), coords, params);
  std::string out = params.output(output);
  std::string statsOut = writeStats ? params.output(stats) : "";
  bool blockPerRow = length >= kBlockPerRowFrom;
  int64_t groupSize = blockPerRow ? kThreads : kWarpSize;
  int64_t groupsPerBlock = kThreads / groupSize;
  auto combine = [&](StringRef var, StringRef functor) {
    return blockPerRow ? ("    " + var + " = tg_block_reduce(" + var + ", " +
                          functor + ", scratch);\n")
                             .str()
                       : ("    " + var + " = tg_warp_reduce(" + var + ", " +
                          functor + ");\n")
                             .str();
  };
  std::string rowLoop = "    for (long long j = tid; j < kLength; j += " +
                        std::to_string(groupSize) + ")";
  std::string outBase =
      inner == 1 ? "row * kLength"
                 : "(row / kInner) * kLength * kInner + row % kInner";

  std::string body;
  llvm::raw_string_ostream bs(body);
  bs << "    // Element j of this row is at coordinates ("
     << llvm::join(coords, ", ") << ")\n"
     << "    const long long outBase = " << outBase
     << "; // dense output offset of element 0\n"
     << "    // Pass 1: row maximum\n"
     << "    float rowMax = -TG_INF;\n"
     << rowLoop << "\n      rowMax = tg_fmax(rowMax, " << load
     << "); // NaN propagates\n"
     << combine("rowMax", "tg_max_op()")
     << "    // Pass 2: sum of exp(x - max); a fully masked row sums to 0\n"
     << "    const bool masked = rowMax == -TG_INF;\n"
     << "    float rowSum = 0.0f;\n"
     << "    if (!masked)\n"
     << "  " << rowLoop << "\n        rowSum += expf(" << load
     << " - rowMax);\n"
     << combine("rowSum", "tg_sum_op()")
     << "    // Pass 3: normalise and store (zeros for a masked row)\n"
     << rowLoop << " {\n"
     << "      const float p = masked ? 0.0f : expf(" << load
     << " - rowMax) / rowSum;\n"
     << "      tg_store(" << out << ", outBase + j"
     << (inner == 1 ? "" : " * kInner") << ", " << cudaRoundTo("p", type)
     << ");\n"
     << "    }\n";
  if (writeStats)
    bs << "    // Log-sum-exp of the row (f32), -inf when fully masked\n"
       << "    if (tid == 0)\n"
       << "      tg_store(" << statsOut
       << ", row, masked ? -TG_INF : rowMax + logf(rowSum));\n";

  std::string entry = state.entryName("softmax");
  KernelStep step;
  llvm::raw_string_ostream os(step.source);
  os << "// tg.softmax along axis " << axis << " of " << formatShape(shape)
     << " " << typeString(type) << (writeStats ? " with log-sum-exp" : "")
     << ": " << rows << " rows of " << length << ", one "
     << (blockPerRow ? "block" : "warp") << " per row\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ")\n"
     << entry << "(" << params.declaration() << ") {\n"
     << "  constexpr long long kRows = " << i64Literal(rows) << ";\n"
     << "  constexpr long long kLength = " << i64Literal(length)
     << "; // elements per row\n";
  if (inner != 1)
    os << "  constexpr long long kInner = " << i64Literal(inner)
       << "; // output stride along the axis\n";
  if (blockPerRow)
    os << "  __shared__ float scratch[32];\n"
       << "  const int tid = threadIdx.x;\n"
       << "  for (long long row = blockIdx.x; row < kRows; row += gridDim.x) "
          "{\n";
  else
    os << "  const int tid = threadIdx.x & 31; // lane\n"
       << "  for (long long row = (long long)blockIdx.x * " << groupsPerBlock
       << " + (threadIdx.x >> 5); row < kRows;\n"
       << "       row += (long long)gridDim.x * " << groupsPerBlock << ") {\n";
  std::string rowDecl = rowCoords.declare(body, 4);
  if (!rowDecl.empty())
    os << "    // Coordinates of the row\n" << rowDecl;
  os << body << "  }\n}\n";

  step.entry = entry;
  step.name = "softmax axis " + std::to_string(axis) + " " +
              shapeString(shape) + (writeStats ? " +stats" : "");
  step.grid = {gridFor(rows, groupsPerBlock), 1, 1};
  step.block = {static_cast<unsigned>(kThreads), 1, 1};
  params.fill(step);
  state.addStep(std::move(step));
  return success();
}
