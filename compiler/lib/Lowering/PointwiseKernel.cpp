//===- PointwiseKernel.cpp - Fused elementwise kernels and copies ---------===//
//
// One thread per output element (grid-stride loop over the row-major linear
// index i). Operands outside the fused chain are loaded once per element
// through their TensorView with broadcasting; splat constants are literals;
// each op of the chain becomes one named temporary rounded to its type.
// Large kernels (kVectorMinElements and more, a multiple of kVector) give a
// thread kVector consecutive elements: operands read in row-major order of
// the result and the result move by the widest aligned loads and stores
// (a 1-byte load per thread, as an i4 dequantisation had, keeps too few
// bytes in flight to stream memory), the rest per element as above.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "tg/Lowering/ScalarExpr.h"

#include "device/philox.cuh" // dropout_threshold

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

static constexpr int64_t kThreads = 256;
static constexpr int64_t kVector = 8;
static constexpr int64_t kVectorMinElements = int64_t(1) << 20;

/// The vector form of a kernel: what is read and written kVector elements
/// at a time (see the file comment).
struct VectorAccess {
  std::string loads; // before the per-element loop (`i0` is the first element)
  std::string store; // after it
  bool enabled() const { return !store.empty(); }
};

/// Assembles the kernel around a loop body that computes element `i`.
static KernelStep elementwiseKernel(StringRef entry, StringRef comment,
                                    int64_t count, const Coordinates &coords,
                                    StringRef shapeText, StringRef body,
                                    const KernelParams &params,
                                    const VectorAccess &vector = {}) {
  KernelStep step;
  step.entry = entry.str();
  int64_t perThread = vector.enabled() ? kVector : 1;
  unsigned indent = vector.enabled() ? 6 : 4;
  std::string coordText = coords.declare(body, indent);
  llvm::raw_string_ostream os(step.source);
  os << "// " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ")\n"
     << entry << "(" << params.declaration() << ") {\n";
  if (vector.enabled())
    os << "  for (long long i0 = ((long long)blockIdx.x * blockDim.x + "
          "threadIdx.x) * " << kVector << "; i0 < " << i64Literal(count) << ";\n"
       << "       i0 += (long long)gridDim.x * blockDim.x * " << kVector
       << ") {\n"
       << vector.loads << "#pragma unroll\n"
       << "    for (int v = 0; v < " << kVector << "; ++v) {\n"
       << (mentionsIdentifier(coordText + body.str(), "i")
               ? "      const long long i = i0 + v;\n"
               : "");
  else
    os << "  for (long long i = (long long)blockIdx.x * blockDim.x + "
          "threadIdx.x; i < "
       << i64Literal(count) << ";\n"
       << "       i += (long long)gridDim.x * blockDim.x) {\n";
  if (!coordText.empty())
    os << std::string(indent, ' ') << "// Coordinates of element i in "
       << shapeText << "\n"
       << coordText;
  if (vector.enabled())
    os << indentText(body, 2) << "\n    }\n" << vector.store;
  else
    os << body;
  os << "  }\n}\n";
  step.grid = {gridFor(count / perThread, kThreads), 1, 1};
  step.block = {static_cast<unsigned>(kThreads), 1, 1};
  params.fill(step);
  return step;
}

/// The dropout of compute value `x`: Philox keep bit on the element's own
/// linear index (the chain's shape is the dropout's shape).
static std::string dropoutExpr(DropoutOp op, ArrayRef<std::string> operands) {
  double prob = op.getProb().convertToDouble();
  unsigned threshold = dropout_threshold(prob); // p in [0, 1) (verified)
  std::string kept = operands[0];
  if (!op.getUnscaled()) {
    // x * (1 / (1 - p)) in double, rounded once, as the reference does.
    char scale[32];
    std::snprintf(scale, sizeof(scale), "%.17g", 1.0 / (1.0 - prob));
    kept = cudaRoundFromDouble("(double)" + operands[0] + " * " + scale,
                               elementTypeOf(op.getResult()));
  }
  return "dropout_keep(" + operands[1] + ", " + operands[2] +
         ", (unsigned long long)i, " + std::to_string(threshold) + "u) ? " +
         kept + " : 0.0f";
}

/// tg.gather of element `i`: the table is loaded at the index values, each
/// clamped to its dimension, so no load is out of bounds; fill mode tests
/// the unclamped indices and picks the fill value.
static std::string gatherExpr(GatherOp op, ArrayRef<std::string> indices,
                              LoweringState &state, KernelParams &params) {
  ArrayRef<int64_t> shape = shapeOf(op.getTable());
  SmallVector<std::string> clamped;
  std::string inRange;
  for (auto [index, size] : llvm::zip(indices, shape)) {
    std::string last = i64Literal(size - 1);
    clamped.push_back("(" + index + " < 0LL ? 0LL : " + index + " > " + last +
                      " ? " + last + " : " + index + ")");
    inRange += (inRange.empty() ? "" : " && ") + index + " >= 0LL && " +
               index + " <= " + last;
  }
  std::string load = emitLoad(state.view(op.getTable()), clamped, params);
  if (op.getMode() == GatherMode::clamp)
    return load;
  return "((" + inRange + ") ? " + load + " : " + cudaFillLiteral(op) + ")";
}

LogicalResult lowering::emitPointwiseKernel(ArrayRef<Operation *> ops,
                                            LoweringState &state) {
  Operation *root = ops.back();
  Value result = root->getResult(0);
  ArrayRef<int64_t> shape = shapeOf(result);
  int64_t count = numElements(shape);
  if (count == 0) {
    state.views[result] = TensorView::ofBuffer(result);
    return success();
  }

  KernelParams params;
  Coordinates coords = delinearize("i", shape, "c");
  llvm::DenseMap<Value, std::string> names;
  std::string loads, compute;
  unsigned numLoads = 0;
  bool vectorized = count % kVector == 0 && count >= kVectorMinElements;
  VectorAccess vector;
  // The coordinates of a thread's first element i0, for views read kVector
  // at a time from another offset.
  Coordinates firstCoords = delinearize("i0", shape, "q");
  std::string firstOffsets;
  // Where a view of the result's shape has the kVector elements from i0 on
  // consecutive in its source, the offset of the first; nullopt when it
  // does not. Row-major views start at i0; others qualify when the last
  // dimension has stride 1 (no divisor) and holds whole vectors, and every
  // other term is a multiple of kVector (so the vector stays aligned): e.g.
  // group scales seen as [K, N].
  auto vectorStart = [&](const TensorView &view) -> std::optional<std::string> {
    if (view.kind != TensorView::Kind::Buffer)
      return std::nullopt;
    if (view.isRowMajor())
      return std::string("i0");
    size_t last = view.shape.size() - 1;
    if (view.shape.empty() || view.strides[last] != 1 ||
        view.divisors[last] != 1 || view.shape[last] % kVector != 0)
      return std::nullopt;
    for (size_t d = 0; d < last; ++d)
      if (view.shape[d] != 1 && view.strides[d] % kVector != 0)
        return std::nullopt;
    std::string offset = offsetExpr(view, firstCoords.coords);
    firstOffsets += offset + "\n"; // the coordinates it uses are declared
    return offset;
  };

  auto operand = [&](Value value) -> std::string {
    if (auto it = names.find(value); it != names.end())
      return it->second;
    const TensorView &view = state.view(value);
    bool sameShape = shapeOf(value) == shape;
    std::string expr =
        emitLoad(view, broadcastCoords(coords.coords, shapeOf(value)), params,
                 sameShape ? "i" : "");
    // (An operand broadcast to the result's shape is the broadcast view of it.)
    bool sameRank = shapeOf(value).size() == shape.size();
    if (std::optional<std::string> first =
            vectorized && sameRank
                ? vectorStart(sameShape ? view : broadcastView(view, shape))
                : std::nullopt) {
      // kVector consecutive elements of the source from `first` on.
      std::string name = "x" + std::to_string(numLoads++);
      std::string type = cudaComputeType(view.elementType).str();
      vector.loads += "    " + type + " " + name + "_v[" +
                      std::to_string(kVector) + "];\n    tg_load_vec<" +
                      std::to_string(kVector) + ">(" +
                      params.input(view.source) + ", " + *first + ", " + name +
                      "_v);\n";
      loads += "    const " + type + " " + name + " = " + name + "_v[v];\n";
      return names[value] = name;
    }
    if (view.kind == TensorView::Kind::Splat)
      return names[value] = expr;
    std::string name = "x" + std::to_string(numLoads++);
    std::string typeText;
    llvm::raw_string_ostream(typeText) << value.getType();
    loads += "    const " + cudaComputeType(view.elementType).str() + " " +
             name + " = " + expr + "; // " + typeText + "\n";
    return names[value] = name;
  };

  std::string opNames;
  for (auto [n, op] : llvm::enumerate(ops)) {
    SmallVector<std::string> operands;
    auto gather = dyn_cast<GatherOp>(op);
    for (Value value : op->getOperands())
      if (!gather || value != gather.getTable())
        operands.push_back(operand(value));
    std::string expr;
    if (gather) {
      expr = gatherExpr(gather, operands, state, params);
    } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
      expr = dropoutExpr(dropout, operands);
    } else {
      FailureOr<std::string> scalar = emitScalarOp(op, operands);
      if (failed(scalar))
        return op->emitOpError("cannot be generated as a pointwise kernel");
      expr = *scalar;
    }
    std::string name = "t" + std::to_string(n);
    compute += "    // " + op->getName().getStringRef().str() + "\n" +
               "    const " +
               cudaComputeType(elementTypeOf(op->getResult(0))).str() + " " +
               name + " = " + expr + ";\n";
    names[op->getResult(0)] = name;
    opNames += (n ? "+" : "") + op->getName().stripDialect().str();
  }

  std::string out = params.output(result);
  std::string body;
  if (!loads.empty())
    body += "    // Loads (coordinate 0 along broadcast dimensions)\n" + loads;
  if (vectorized) {
    if (!firstOffsets.empty())
      vector.loads = "    // Coordinates of element i0\n" +
                     firstCoords.declare(firstOffsets, 4) + vector.loads;
    std::string type = cudaComputeType(elementTypeOf(result)).str();
    std::string width = std::to_string(kVector);
    vector.loads += "    " + type + " r[" + width + "];\n";
    body += compute + "    r[v] = " + names[result] + ";\n";
    vector.store = "    // Store\n    tg_store_vec<" + width + ">(" + out +
                   ", i0, r);\n";
  } else {
    body += compute + "    // Store\n    tg_store(" + out + ", i, " +
            names[result] + ");\n";
  }

  std::string shapeText = formatShape(shape);
  KernelStep step = elementwiseKernel(
      state.entryName("pointwise"),
      "Fused pointwise kernel: " + opNames + " over " + shapeText + " " +
          typeString(elementTypeOf(result)) + " (" + std::to_string(count) +
          " elements" + (vectorized ? ", " + std::to_string(kVector) + " per thread" : "") + ")",
      count, coords, shapeText, body, params, vector);
  step.name = "pointwise " + opNames + " " + shapeString(shape);
  state.addStep(std::move(step));
  state.views[result] = TensorView::ofBuffer(result);
  return success();
}

void lowering::emitCopyKernel(Value dest, const TensorView &source,
                              StringRef reason, LoweringState &state) {
  int64_t count = numElements(shapeOf(dest));
  if (count != 0) {
    KernelParams params;
    // Row-major order is shared by dest and source (equal for layout views,
    // and what a reshape means), so element i is source's element i.
    Coordinates coords = delinearize("i", source.shape, "c");
    std::string load = emitLoad(source, coords.coords, params, "i");
    std::string out = params.output(dest);
    std::string body = "    tg_store(" + out + ", i, " + load + ");\n";
    std::string shapeText = formatShape(source.shape);
    KernelStep step = elementwiseKernel(
        state.entryName("copy"),
        ("Copy (" + reason + "): " + formatShape(shapeOf(dest)) + " " +
         typeString(source.elementType) + " written row-major")
            .str(),
        count, coords, shapeText, body, params);
    step.name = ("copy " + reason + " " + shapeString(shapeOf(dest))).str();
    state.addStep(std::move(step));
  }
  state.views[dest] = TensorView::ofBuffer(dest);
}
