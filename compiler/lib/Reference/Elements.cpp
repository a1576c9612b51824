#include "Elements.h"

#include "tg/Reference/Interpreter.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg::ref;

ElementInfo mlir::tg::ref::classifyElement(Type type) {
  ElementInfo info;
  if (type.isF32()) {
    info.kind = ElementInfo::Float;
    info.format = tgc::Format::F32;
  } else if (type.isBF16()) {
    info.kind = ElementInfo::Float;
    info.format = tgc::Format::BF16;
  } else if (type.isF16()) {
    info.kind = ElementInfo::Float;
    info.format = tgc::Format::F16;
  } else if (isa<Float8E4M3FNType>(type)) {
    info.kind = ElementInfo::Float;
    info.format = tgc::Format::F8E4M3FN;
  } else if (isa<Float8E5M2Type>(type)) {
    info.kind = ElementInfo::Float;
    info.format = tgc::Format::F8E5M2;
  } else if (type.isInteger(1)) {
    info.kind = ElementInfo::Bool;
    info.bits = 1;
  } else if (type.isInteger(4) || type.isInteger(8) || type.isInteger(32) || type.isInteger(64)) {
    info.kind = ElementInfo::Int;
    info.bits = type.getIntOrFloatBitWidth();
  }
  return info;
}

double mlir::tg::ref::roundValue(const ElementInfo &element, double value) {
  switch (element.kind) {
  case ElementInfo::Float:
    return tgc::roundTo(element.format, value);
  case ElementInfo::Int:
    return static_cast<double>(tgc::wrapToWidth(
        tgc::doubleToInt64Wrapping(value), element.bits));
  case ElementInfo::Bool:
    return value != 0.0 ? 1.0 : 0.0;
  case ElementInfo::Unsupported:
    break;
  }
  return value;
}

double mlir::tg::ref::castValue(double value, const ElementInfo &from,
                                const ElementInfo &to) {
  if (to.isBool())
    return value != 0.0 ? 1.0 : 0.0; // NaN != 0 is true
  if (to.isFloat())
    return tgc::roundTo(to.format, value);
  if (to.isInt()) {
    if (from.isFloat())
      return static_cast<double>(tgc::floatToIntSaturating(value, to.bits));
    return static_cast<double>(tgc::wrapToWidth(
        tgc::doubleToInt64Wrapping(value), to.bits));
  }
  return value;
}

double mlir::tg::ref::roundToElementType(double value, Type elementType) {
  return roundValue(classifyElement(elementType), value);
}
