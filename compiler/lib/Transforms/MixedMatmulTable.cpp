// The mixed-input matmul measurement table and the rule that picks a plan
// from it (tg-mixed-matmul-plan, plan=auto).
#include "tg/Transforms/MixedMatmulTable.h"

#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tg;

namespace {
#define TG_MIXED_MATMUL_SOURCE(text)
#define TG_MIXED_MATMUL_ROW(weight, scaled, m, k, n, fused, dequant)          \
  {weight, scaled, m, k, n, fused, dequant},
const MixedMatmulRow kRows[] = {
#include "MixedMatmulTable.inc"
};
#undef TG_MIXED_MATMUL_ROW
#undef TG_MIXED_MATMUL_SOURCE

#define TG_MIXED_MATMUL_SOURCE(text) text
#define TG_MIXED_MATMUL_ROW(weight, scaled, m, k, n, fused, dequant)
const char *const kSource =
#include "MixedMatmulTable.inc"
    ;
#undef TG_MIXED_MATMUL_ROW
#undef TG_MIXED_MATMUL_SOURCE
} // namespace

ArrayRef<MixedMatmulRow> tg::mixedMatmulTable() { return kRows; }
StringRef tg::mixedMatmulTableSource() { return kSource; }

static double log2Distance(int64_t a, int64_t b) {
  return std::fabs(std::log2(double(a)) - std::log2(double(b)));
}

static std::string figures(const MixedMatmulRow &row) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "M=" << row.m << " (fused " << llvm::format("%.1f", row.fused)
     << ", dequant " << llvm::format("%.1f", row.dequant) << " TFLOP/s)";
  return text;
}

MixedMatmulChoice tg::chooseMixedMatmulPlan(const MixedMatmulShape &shape,
                                            ArrayRef<MixedMatmulRow> rows,
                                            StringRef source) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << shape.weight << " weights" << (shape.scaled ? ", scaled" : "")
     << ", M=" << shape.m << " K=" << shape.k << " N=" << shape.n << ": ";

  SmallVector<const MixedMatmulRow *> candidates;
  for (const MixedMatmulRow &row : rows)
    if (row.weight == shape.weight && row.scaled == shape.scaled)
      candidates.push_back(&row);
  if (candidates.empty()) {
    for (const MixedMatmulRow &row : rows)
      if (row.weight == shape.weight)
        candidates.push_back(&row);
    if (!candidates.empty())
      os << "no " << (shape.scaled ? "scaled" : "unscaled")
         << " rows, using the " << (shape.scaled ? "unscaled" : "scaled")
         << " ones; ";
  }
  if (candidates.empty()) {
    os << "no measured row for " << shape.weight
       << " weights; fused (cuDNN's mixed-input graph, the default)";
    return {MixedMatmulPlan::Fused, text};
  }

  // The (K, N) bucket: the measured pair nearest in log2 K + log2 N.
  const MixedMatmulRow *nearest = candidates.front();
  auto kn = [&](const MixedMatmulRow *row) {
    return log2Distance(row->k, shape.k) + log2Distance(row->n, shape.n);
  };
  for (const MixedMatmulRow *row : candidates)
    if (kn(row) < kn(nearest))
      nearest = row;
  SmallVector<const MixedMatmulRow *> bucket;
  for (const MixedMatmulRow *row : candidates)
    if (row->k == nearest->k && row->n == nearest->n)
      bucket.push_back(row);
  llvm::stable_sort(bucket, [](const MixedMatmulRow *a,
                               const MixedMatmulRow *b) { return a->m < b->m; });
  os << "rows at K=" << nearest->k << " N=" << nearest->n << ": ";

  // log(fused / dequant) along log M: > 0 favours fused.
  auto logRatio = [](const MixedMatmulRow *row) {
    return std::log(row->fused / row->dequant);
  };
  double ratio;
  const MixedMatmulRow *below = nullptr, *above = nullptr;
  for (const MixedMatmulRow *row : bucket) {
    if (row->m <= shape.m)
      below = row;
    if (row->m >= shape.m && !above)
      above = row;
  }
  if (below && above && below != above) {
    double t = (std::log(double(shape.m)) - std::log(double(below->m))) /
               (std::log(double(above->m)) - std::log(double(below->m)));
    ratio = std::exp(logRatio(below) + t * (logRatio(above) - logRatio(below)));
    os << figures(*below) << " and " << figures(*above)
       << ", fused/dequant " << llvm::format("%.2f", ratio)
       << " interpolated at M=" << shape.m;
  } else {
    const MixedMatmulRow *row = below ? below : above;
    ratio = row->fused / row->dequant;
    os << (row->m == shape.m ? "" : "nearest ") << figures(*row)
       << ", fused/dequant " << llvm::format("%.2f", ratio);
  }
  MixedMatmulPlan plan =
      ratio >= 1.0 ? MixedMatmulPlan::Fused : MixedMatmulPlan::Dequant;
  os << " (" << source << ")";
  return {plan, text};
}
