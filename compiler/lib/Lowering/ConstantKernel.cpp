//===- ConstantKernel.cpp - Non-splat constants written by a kernel -------===//

#include "KernelEmitters.h"

#include "tg/Lowering/ScalarExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

static constexpr int64_t kThreads = 256;
static constexpr unsigned kValuesPerLine = 8;

LogicalResult lowering::emitConstantKernel(ConstantOp op,
                                           LoweringState &state) {
  Value result = op.getResult();
  auto elements = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!elements)
    return op.emitOpError("cannot be generated: expected a dense elements "
                          "attribute, got ")
           << op.getValue();
  Type type = elements.getElementType();
  SmallVector<std::string> values;
  // Static initialisers must be constants, which TG_INF/TG_NAN are not: a
  // table with non-finite values holds f32 bit patterns instead.
  bool asBits = false;
  if (isa<FloatType>(type)) {
    for (const APFloat &value : elements.getValues<APFloat>())
      asBits |= !value.isFinite();
    for (const APFloat &value : elements.getValues<APFloat>()) {
      if (!asBits) {
        values.push_back(cudaLiteral(value));
        continue;
      }
      bool losesInfo = false;
      APFloat asFloat = value;
      asFloat.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                      &losesInfo);
      values.push_back(
          "0x" +
          llvm::utohexstr(asFloat.bitcastToAPInt().getZExtValue(), true, 8) +
          "u");
    }
  } else {
    for (const APInt &value : elements.getValues<APInt>())
      values.push_back(cudaLiteral(value, type));
  }
  state.views[result] = TensorView::ofBuffer(result);
  if (values.empty())
    return success();

  KernelParams params;
  std::string out = params.output(result);
  std::string entry = state.entryName("constant");
  int64_t count = values.size();
  KernelStep step;
  llvm::raw_string_ostream os(step.source);
  os << "// tg.constant " << formatShape(shapeOf(result)) << " "
     << typeString(type) << ": the values, row-major, embedded in the source"
     << (asBits ? " (as f32 bit patterns)" : "") << "\n"
     << "static __device__ const "
     << (asBits ? "unsigned int" : cudaComputeType(type).str()) << " kValues["
     << count << "] = {";
  for (auto [i, value] : llvm::enumerate(values))
    os << (i % kValuesPerLine == 0 ? "\n    " : " ") << value
       << (i + 1 < values.size() ? "," : "");
  os << "\n};\n\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << kThreads << ")\n"
     << entry << "(" << params.declaration() << ") {\n"
     << "  for (long long i = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x; i < "
     << i64Literal(count) << ";\n"
     << "       i += (long long)gridDim.x * blockDim.x)\n"
     << "    tg_store(" << out << ", i, "
     << (asBits ? "__uint_as_float(kValues[i])" : "kValues[i]") << ");\n"
     << "}\n";
  step.entry = entry;
  step.name = "constant " + shapeString(shapeOf(result));
  step.grid = {gridFor(count, kThreads), 1, 1};
  step.block = {static_cast<unsigned>(kThreads), 1, 1};
  params.fill(step);
  state.addStep(std::move(step));
  return success();
}
