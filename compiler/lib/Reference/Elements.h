#ifndef TG_REFERENCE_ELEMENTS_H
#define TG_REFERENCE_ELEMENTS_H

// Element types as the interpreter sees them: which format a value is
// rounded to, and the value conversions of tg.cast.

#include "tgc/Numerics.h"

#include "mlir/IR/Types.h"

namespace mlir::tg::ref {

struct ElementInfo {
  enum Kind { Float, Int, Bool, Unsupported } kind = Unsupported;
  tgc::Format format = tgc::Format::F32; // for Float
  unsigned bits = 0;                     // for Int (8, 32, 64)

  bool isFloat() const { return kind == Float; }
  bool isInt() const { return kind == Int; }
  bool isBool() const { return kind == Bool; }
};

ElementInfo classifyElement(Type type);

/// The value of `element` nearest to `value`: floats round to nearest even
/// (fp8 saturating); integers truncate toward zero and wrap; i1 is
/// `value != 0`.
double roundValue(const ElementInfo &element, double value);

/// tg.cast of one value from `from` to `to`: floats round to nearest even
/// (fp8 saturating, NaN stays NaN), floats to integers truncate and
/// saturate (NaN -> 0), integers wrap to narrower integers, i1 is 0/1, and
/// anything converts to i1 as `value != 0`.
double castValue(double value, const ElementInfo &from, const ElementInfo &to);

} // namespace mlir::tg::ref

#endif // TG_REFERENCE_ELEMENTS_H
