// Float literals of the generic kernels: the attention generator's printer
// (tg/Codegen/CudaText.h), so that both generators spell a constant alike.
// Apart from ScalarExpr.cpp because that file's `tg::` (under `using
// namespace mlir`) would be ambiguous with ::tg::codegen.
#include "tg/Codegen/CudaText.h"
#include "tg/Lowering/ScalarExpr.h"

std::string mlir::tg::cudaLiteral(const llvm::APFloat &value) {
  // Every tg float type is a subset of f32.
  bool losesInfo = false;
  llvm::APFloat asFloat = value;
  asFloat.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return ::tg::codegen::floatLiteral(asFloat.convertToFloat());
}
