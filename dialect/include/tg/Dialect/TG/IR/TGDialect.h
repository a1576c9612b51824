#ifndef TG_DIALECT_TG_IR_TGDIALECT_H
#define TG_DIALECT_TG_IR_TGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tg/Dialect/TG/IR/TGOpsDialect.h.inc"

#endif // TG_DIALECT_TG_IR_TGDIALECT_H
