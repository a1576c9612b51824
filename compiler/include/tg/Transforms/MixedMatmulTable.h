#ifndef TG_TRANSFORMS_MIXEDMATMULTABLE_H
#define TG_TRANSFORMS_MIXEDMATMULTABLE_H

// The measured choice between the two plans of a mixed-input matmul
// (tg-mixed-matmul-plan): the committed table of H200 figures
// (compiler/lib/Transforms/MixedMatmulTable.inc) and the rule that reads it.

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tg {

enum class MixedMatmulPlan { Fused, Dequant };

/// One measured shape: TFLOP/s of each plan.
struct MixedMatmulRow {
  llvm::StringRef weight; // element type as printed: i8, f8E4M3FN, ...
  bool scaled;            // prologue_b reads a capture (per-channel scale)
  int64_t m, k, n;
  double fused, dequant;
};

/// The shape of a mixed-input matmul to decide: x [M, K] . w [K, N] (M is
/// every result dim but the last).
struct MixedMatmulShape {
  std::string weight;
  bool scaled = false;
  int64_t m = 0, k = 0, n = 0;
};

struct MixedMatmulChoice {
  MixedMatmulPlan plan = MixedMatmulPlan::Fused;
  std::string why; // the figures that decided, for --explain-backend
};

/// The committed rows, in file order.
llvm::ArrayRef<MixedMatmulRow> mixedMatmulTable();

/// Where the committed figures came from.
llvm::StringRef mixedMatmulTableSource();

/// The faster plan for `shape` by `rows`: among the rows of the weight type
/// (those with the same `scaled` when there are any), the (K, N) nearest in
/// log2 K + log2 N; at that (K, N), log(fused / dequant) interpolated
/// linearly in log M between the two measured M around `shape.m` (the
/// nearest one outside them). Fused when that is >= 0, or when no row has
/// the weight type (the plan cuDNN ran before there was a choice).
MixedMatmulChoice chooseMixedMatmulPlan(const MixedMatmulShape &shape,
                                        llvm::ArrayRef<MixedMatmulRow> rows,
                                        llvm::StringRef source);

/// The same with the committed table.
inline MixedMatmulChoice chooseMixedMatmulPlan(const MixedMatmulShape &shape) {
  return chooseMixedMatmulPlan(shape, mixedMatmulTable(),
                               mixedMatmulTableSource());
}

} // namespace mlir::tg

#endif // TG_TRANSFORMS_MIXEDMATMULTABLE_H
