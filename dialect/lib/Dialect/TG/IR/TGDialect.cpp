#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Dialect/TG/IR/Backend.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MathExtras.h"

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
  auto tensor = dyn_cast_if_present<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError() << "'tg.strides' applies only to statically shaped "
                          "ranked tensors";
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
    if (llvm::MulOverflow(strides[dim], shape[dim], extent))
      return emitError() << "'tg.strides' addresses overflow 64 bits";
  }
  return success();
}

/// The `tg.name` of every argument, then every result, of `op` (null where
/// absent or not a function).
static SmallVector<StringAttr> bindingNames(Operation *op) {
  SmallVector<StringAttr> names;
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return names;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    names.push_back(fn.getArgAttrOfType<StringAttr>(i, "tg.name"));
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    names.push_back(fn.getResultAttrOfType<StringAttr>(i, "tg.name"));
  return names;
}

/// Checks a `tg.name`: a non-empty string not used by an earlier argument or
/// result. `position` indexes the arguments followed by the results.
static LogicalResult verifyName(function_ref<InFlightDiagnostic()> emitError,
                                Operation *op, Attribute attr,
                                unsigned position) {
  auto name = dyn_cast<StringAttr>(attr);
  if (!name)
    return emitError() << "'tg.name' expects a string";
  if (name.getValue().empty())
    return emitError() << "'tg.name' must not be empty";
  // Names cross into plan files and C strings: text, without a NUL inside.
  const auto *begin =
      reinterpret_cast<const llvm::UTF8 *>(name.getValue().data());
  if (!llvm::isLegalUTF8String(&begin, begin + name.getValue().size()))
    return emitError() << "'tg.name' must be valid UTF-8";
  if (llvm::any_of(name.getValue(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      }))
    return emitError() << "'tg.name' must not contain control characters";
  SmallVector<StringAttr> names = bindingNames(op);
  auto fn = dyn_cast<FunctionOpInterface>(op);
  for (unsigned i = 0; i < position && i < names.size(); ++i) {
    if (names[i] != name)
      continue;
    unsigned numArgs = fn.getNumArguments();
    return emitError() << "'tg.name' \"" << name.getValue()
                       << "\" is already used by "
                       << (i < numArgs ? "argument " : "result ")
                       << (i < numArgs ? i : i - numArgs)
                       << " (expected unique binding names)";
  }
  return success();
}

static LogicalResult verifyValueAttribute(Operation *op, NamedAttribute attr,
                                          Type type, StringRef what,
                                          unsigned position) {
  auto emitError = [&] { return op->emitOpError() << what << ": "; };
  StringRef name = attr.getName().strref();
  if (name == "tg.name")
    return verifyName(emitError, op, attr.getValue(), position);
  if (name == "tg.strides")
    return verifyStrides(emitError, attr.getValue(), type);
  return emitError() << "unknown attribute '" << name
                     << "' (expected 'tg.name' or 'tg.strides')";
}

LogicalResult TGDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  // The function type, not the entry block: a declaration has no block, and
  // the attributes are verified before the block's arguments are checked
  // against the signature.
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
    if (argIndex < fn.getNumArguments())
      type = fn.getArgumentTypes()[argIndex];
  } else if (Region &region = op->getRegion(regionIndex);
             !region.empty() && argIndex < region.getNumArguments()) {
    type = region.getArgument(argIndex).getType();
  }
  return verifyValueAttribute(op, attr, type,
                              "argument " + std::to_string(argIndex),
                              argIndex);
}

LogicalResult TGDialect::verifyRegionResultAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned resultIndex,
                                                     NamedAttribute attr) {
  Type type;
  unsigned position = resultIndex;
  if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
    type = fn.getResultTypes()[resultIndex];
    position += fn.getNumArguments();
  }
  return verifyValueAttribute(op, attr, type,
                              "result " + std::to_string(resultIndex),
                              position);
}

LogicalResult TGDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  // tg-select-backend records its choice on each op it places.
  if (attr.getName() == kBackendAttrName) {
    if (isa<BackendAttr>(attr.getValue()))
      return success();
    // The string form of earlier versions is refused rather than read, so
    // that one spelling exists; the message gives the new one.
    if (auto old = dyn_cast<StringAttr>(attr.getValue()))
      if (symbolizeBackend(old.getValue()))
        return op->emitError()
               << "'tg.backend' is written #tg<backend " << old.getValue()
               << ">, not the string \"" << old.getValue() << "\"";
    return op->emitError() << "'tg.backend' must be #tg<backend nvrtc> or "
                              "#tg<backend cudnn>, got "
                           << attr.getValue();
  }
  return op->emitError() << "attribute '" << attr.getName().strref()
                         << "' is not valid on operations (tg attributes "
                            "go on graph arguments and results; ops take "
                            "only 'tg.backend')";
}
