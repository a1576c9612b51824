//===- PointwiseKernel.cpp - Fused elementwise kernels and copies ---------===//
//
// One thread per output element (grid-stride loop over the row-major linear
// index i). Operands outside the fused chain are loaded once per element
// through their TensorView with broadcasting; splat constants are literals;
// each op of the chain becomes one named temporary rounded to its type.
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

/// Assembles the kernel around a loop body that computes element `i`.
static KernelStep elementwiseKernel(StringRef entry, StringRef comment,
                                    int64_t count, const Coordinates &coords,
                                    StringRef shapeText, StringRef body,
                                    const KernelParams &params) {
  KernelStep step;
  step.entry = entry.str();
  std::string coordText = coords.declare(body, 4);
  llvm::raw_string_ostream os(step.source);
  os << "// " << comment << "\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ")\n"
     << entry << "(" << params.declaration() << ") {\n"
     << "  for (long long i = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x; i < "
     << i64Literal(count) << ";\n"
     << "       i += (long long)gridDim.x * blockDim.x) {\n";
  if (!coordText.empty())
    os << "    // Coordinates of element i in " << shapeText << "\n"
       << coordText;
  os << body << "  }\n}\n";
  step.grid = {gridFor(count, kThreads), 1, 1};
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

  auto operand = [&](Value value) -> std::string {
    if (auto it = names.find(value); it != names.end())
      return it->second;
    const TensorView &view = state.view(value);
    bool sameShape = shapeOf(value) == shape;
    std::string expr =
        emitLoad(view, broadcastCoords(coords.coords, shapeOf(value)), params,
                 sameShape ? "i" : "");
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
  body += compute + "    // Store\n    tg_store(" + out + ", i, " +
          names[result] + ");\n";

  std::string shapeText = formatShape(shape);
  KernelStep step = elementwiseKernel(
      state.entryName("pointwise"),
      "Fused pointwise kernel: " + opNames + " over " + shapeText + " " +
          typeString(elementTypeOf(result)) + " (" + std::to_string(count) +
          " elements)",
      count, coords, shapeText, body, params);
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
