//===- LayoutAbsorption.h - layout ops around tg.attention -----*- C++ -*-===//
#ifndef TG_TRANSFORMS_LAYOUTABSORPTION_H
#define TG_TRANSFORMS_LAYOUTABSORPTION_H

#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tg::fusion {

/// Turns transposes/reshapes between graph arguments and the q/k/v of
/// `attentions`, and between attention outputs and the return, into
/// `tg.strides` layouts of the arguments and results (see the .cpp).
void absorbLayouts(RewriterBase &rewriter, func::FuncOp fn,
                   ArrayRef<AttentionOp> attentions);

} // namespace mlir::tg::fusion

#endif // TG_TRANSFORMS_LAYOUTABSORPTION_H
