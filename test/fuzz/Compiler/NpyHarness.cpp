#include "Harnesses.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Reference/Npy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

int tgc::fuzz::npyBytes(const uint8_t *data, size_t size) {
  static MLIRContext context(MLIRContext::Threading::DISABLED);
  llvm::Expected<tg::ref::NpyArray> array = tg::ref::parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  uint64_t count = 1;
  for (int64_t dim : array->shape) {
    require(dim >= 0, "a parsed .npy array has a negative dim");
    count *= uint64_t(dim);
  }
  require(array->values.size() == count,
          "a parsed .npy array's values do not match its shape");
  if (count > (1u << 16))
    return 0;
  // Through a tensor of a matching type and back.
  char kind = array->descr[1];
  Type element = kind == 'f'   ? Type(Float32Type::get(&context))
                 : kind == 'b' ? Type(IntegerType::get(&context, 1))
                               : Type(IntegerType::get(&context, 64));
  auto type = RankedTensorType::get(array->shape, element);
  llvm::Expected<tg::ref::HostTensor> tensor = tg::ref::npyToTensor(*array, type);
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  llvm::Expected<tg::ref::NpyArray> back =
      tg::ref::parseNpy(tg::ref::serializeNpy(*tensor));
  require(bool(back), "a written .npy array does not parse");
  require(back->shape == array->shape, "a written .npy array changes shape");
  return 0;
}
