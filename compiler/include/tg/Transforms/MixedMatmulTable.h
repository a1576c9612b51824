#ifndef TG_TRANSFORMS_MIXEDMATMULTABLE_H
#define TG_TRANSFORMS_MIXEDMATMULTABLE_H

// The measured choice between the plans of a mixed-input matmul
// (tg-mixed-matmul-plan): the committed table of H200 figures
// (compiler/lib/Transforms/MixedMatmulTable.inc) and the rule that reads it.

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tg {

/// Fused: cuDNN's mixed-input graph; Dequant: a dequantise kernel and a
/// 16-bit matmul; Generated: the NVRTC mixed-input kernel.
enum class MixedMatmulPlan { Fused, Dequant, Generated };

/// One measured shape: TFLOP/s of each plan.
struct MixedMatmulRow {
  llvm::StringRef weight; // element type as printed: i8, f8E4M3FN, ...
  bool scaled;            // prologue_b reads a capture (per-channel scale)
  int64_t m, k, n;
  double fused, dequant; // fused 0: not measurable (cuDNN cannot read the weight)
  double generated = 0; // the generated kernel; 0: not measured
  llvm::StringRef source = ""; // the run the row is from (committed rows)
};

/// The shape of a mixed-input matmul to decide: x [M, K] . w [K, N] (M is
/// every result dim but the last).
struct MixedMatmulShape {
  std::string weight;
  bool scaled = false;
  int64_t m = 0, k = 0, n = 0;
  /// Whether the generated kernel may be chosen (it runs the op, and the
  /// op is not bound for cuDNN).
  bool generatedRuns = false;
  /// Whether cuDNN's mixed-input graph can read the weight (not i4: the
  /// cuDNN lowering binds no 4-bit tensors; such rows measure fused as 0).
  bool fusedRuns = true;
  /// Why not, when it is not the weight type (for --explain-backend).
  std::string fusedRefusal;
};

struct MixedMatmulChoice {
  MixedMatmulPlan plan = MixedMatmulPlan::Fused;
  std::string why; // the figures that decided, for --explain-backend
};

/// The committed rows, in file order.
llvm::ArrayRef<MixedMatmulRow> mixedMatmulTable();

/// Where the committed figures came from (each row's `source`: the table
/// holds blocks of rows from different runs).
llvm::StringRef mixedMatmulTableSource();

/// The fastest plan for `shape` by `rows`: among the rows of the weight type
/// (those with the same `scaled` when there are any), the (K, N) nearest in
/// log2 K + log2 N; at that (K, N), each plan's log TFLOP/s interpolated
/// linearly in log M between the two measured M around `shape.m` (the
/// nearest one outside them). Generated when `shape.generatedRuns`, both
/// rows measured it and it is the fastest; otherwise fused when fused >=
/// dequant, or when no row has the weight type (the plan cuDNN ran before
/// there was a choice). Without `shape.fusedRuns` fused is never chosen: no
/// row gives generated where it runs, else dequant.
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
