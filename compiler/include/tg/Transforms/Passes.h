#ifndef TG_TRANSFORMS_PASSES_H
#define TG_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "tg/Dialect/TG/IR/TGDialect.h"

namespace mlir::tg {

#define GEN_PASS_DECL
#include "tg/Transforms/Passes.h.inc"

/// The tg-fuse-attention and tg-fuse-matmul rewrites as patterns (the
/// passes run them once per candidate; see docs/fusion.md).
void populateFuseAttentionPatterns(RewritePatternSet &patterns);
void populateFuseMatmulPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "tg/Transforms/Passes.h.inc"

} // namespace mlir::tg

#endif // TG_TRANSFORMS_PASSES_H
