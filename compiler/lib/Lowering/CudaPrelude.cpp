//===- CudaPrelude.cpp - Device helpers shared by generated kernels -------===//
//
// The text every generated kernel starts with: the device library's
// elementwise.cuh (and the philox.cuh it includes), pasted as one
// translation unit (DeviceLibrary.h).
//
//===----------------------------------------------------------------------===//

#include "tg/Lowering/CudaPrelude.h"

#include "tg/Codegen/CudaText.h"

#include <string>

using namespace mlir;

llvm::StringRef mlir::tg::cudaPrelude() {
  static const std::string text = ::tg::codegen::cudaElementwiseSource();
  return text;
}
