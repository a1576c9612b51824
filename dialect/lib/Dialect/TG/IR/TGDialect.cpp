#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;

#include "tg/Dialect/TG/IR/TGOpsDialect.cpp.inc"
#include "tg/Dialect/TG/IR/TGEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tg/Dialect/TG/IR/TGAttrs.cpp.inc"

void TGDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tg/Dialect/TG/IR/TGOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tg/Dialect/TG/IR/TGAttrs.cpp.inc"
      >();
}

Operation *TGDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// Checks a `tg.strides` layout: one positive stride per dimension, and no
/// two elements sharing an address (sorted by stride, each stride at least
/// the extent of the dimensions inside it).
static LogicalResult verifyStrides(function_ref<InFlightDiagnostic()> emitError,
                                   Attribute attr, Type type) {
  auto strides = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!strides)
    return emitError() << "'tg.strides' expects an array of i64 "
                          "(array<i64: ...>)";
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "'tg.strides' applies only to ranked tensors";
  ArrayRef<int64_t> shape = tensor.getShape();
  if (strides.size() != static_cast<int64_t>(shape.size()))
    return emitError() << "'tg.strides' has " << strides.size()
                       << " entries but the tensor has rank " << shape.size();
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (strides[i] < 1)
      return emitError() << "'tg.strides' entry " << i
                         << " must be positive, got " << strides[i];
    if (shape[i] > 1)
      order.push_back(i);
  }
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return strides[a] < strides[b];
  });
  int64_t extent = 1;
  for (unsigned dim : order) {
    if (strides[dim] < extent)
      return emitError() << "'tg.strides' makes dimension " << dim
                         << " (stride " << strides[dim]
                         << ") overlap the dimensions inside it (expected a "
                            "stride of at least "
                         << extent << ")";
    extent = strides[dim] * shape[dim];
  }
  return success();
}

static LogicalResult verifyValueAttribute(Operation *op, NamedAttribute attr,
                                          Type type, StringRef what) {
  auto emitError = [&] { return op->emitOpError() << what << ": "; };
  StringRef name = attr.getName().strref();
  if (name == "tg.name") {
    if (!isa<StringAttr>(attr.getValue()))
      return emitError() << "'tg.name' expects a string";
    return success();
  }
  if (name == "tg.strides")
    return verifyStrides(emitError, attr.getValue(), type);
  return emitError() << "unknown attribute '" << name
                     << "' (expected 'tg.name' or 'tg.strides')";
}

LogicalResult TGDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  Type type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  return verifyValueAttribute(op, attr, type,
                              "argument " + std::to_string(argIndex));
}

LogicalResult TGDialect::verifyRegionResultAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    type = fn.getResultTypes()[resultIndex];
  return verifyValueAttribute(op, attr, type,
                              "result " + std::to_string(resultIndex));
}

LogicalResult TGDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  return op->emitError() << "attribute '" << attr.getName().strref()
                         << "' is not valid on operations (tg attributes "
                            "go on graph arguments and results)";
}
