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
// The .inc in file order: a source line applies to the rows after it.
struct Entry {
  const char *source; // a source line (then the row fields are unused)
  MixedMatmulRow row;
};
#define TG_MIXED_MATMUL_SOURCE(text) {text, {}},
#define TG_MIXED_MATMUL_ROW(weight, scaled, m, k, n, fused, dequant, generated) \
  {nullptr, {weight, scaled, m, k, n, fused, dequant, generated}},
const Entry kEntries[] = {
#include "MixedMatmulTable.inc"
};
#undef TG_MIXED_MATMUL_ROW
#undef TG_MIXED_MATMUL_SOURCE

struct Table {
  SmallVector<MixedMatmulRow, 0> rows;
  std::string sources; // every source line, "; " between them
  Table() {
    StringRef source;
    for (const Entry &entry : kEntries) {
      if (entry.source) {
        source = entry.source;
        sources += (sources.empty() ? "" : "; ") + source.str();
        continue;
      }
      rows.push_back(entry.row);
      rows.back().source = source;
    }
  }
};
const Table &table() {
  static const Table instance; // read-only after a thread-safe first use
  return instance;
}
} // namespace

ArrayRef<MixedMatmulRow> tg::mixedMatmulTable() { return table().rows; }
StringRef tg::mixedMatmulTableSource() { return table().sources; }

static double log2Distance(int64_t a, int64_t b) {
  return std::fabs(std::log2(double(a)) - std::log2(double(b)));
}

static std::string figures(const MixedMatmulRow &row) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "M=" << row.m << " (fused " << llvm::format("%.1f", row.fused)
     << ", dequant " << llvm::format("%.1f", row.dequant);
  if (row.generated > 0)
    os << ", generated " << llvm::format("%.1f", row.generated);
  os << " TFLOP/s)";
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
  if (candidates.empty() && !shape.fusedRuns) {
    os << "no measured row for " << shape.weight << " weights and cuDNN "
       << "cannot read them; "
       << (shape.generatedRuns ? "generated (the NVRTC mixed-input kernel)"
                               : "dequant (the generated kernel cannot take "
                                 "this op)");
    return {shape.generatedRuns ? MixedMatmulPlan::Generated
                                : MixedMatmulPlan::Dequant,
            text};
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

  // Each plan's log TFLOP/s along log M, between the rows around M (or at
  // the nearest row).
  const MixedMatmulRow *below = nullptr, *above = nullptr;
  for (const MixedMatmulRow *row : bucket) {
    if (row->m <= shape.m)
      below = row;
    if (row->m >= shape.m && !above)
      above = row;
  }
  bool between = below && above && below != above;
  const MixedMatmulRow *only = below ? below : above;
  double t = 0;
  if (between)
    t = (std::log(double(shape.m)) - std::log(double(below->m))) /
        (std::log(double(above->m)) - std::log(double(below->m)));
  auto at = [&](double MixedMatmulRow::*plan) {
    if (!between)
      return only->*plan;
    if (below->*plan <= 0 || above->*plan <= 0)
      return 0.0; // not measured at both
    return std::exp(std::log(below->*plan) +
                    t * (std::log(above->*plan) - std::log(below->*plan)));
  };
  double fused = at(&MixedMatmulRow::fused), dequant = at(&MixedMatmulRow::dequant);
  double generated = at(&MixedMatmulRow::generated);
  if (!shape.fusedRuns)
    fused = 0; // not a plan for this weight: everything compares with dequant
  double ratio = fused / dequant;
  if (between)
    os << figures(*below) << " and " << figures(*above)
       << ", fused/dequant " << llvm::format("%.2f", ratio)
       << " interpolated at M=" << shape.m;
  else
    os << (only->m == shape.m ? "" : "nearest ") << figures(*only)
       << ", fused/dequant " << llvm::format("%.2f", ratio);
  MixedMatmulPlan plan =
      ratio >= 1.0 ? MixedMatmulPlan::Fused : MixedMatmulPlan::Dequant;
  if (!shape.fusedRuns)
    os << " ("
       << (shape.fusedRefusal.empty()
               ? "cuDNN cannot read " + shape.weight + " weights"
               : shape.fusedRefusal)
       << ")";
  if (generated > 0) {
    double best = std::max(fused, dequant);
    os << ", generated/" << (ratio >= 1.0 ? "fused " : "dequant ")
       << llvm::format("%.2f", generated / best);
    if (!shape.generatedRuns)
      os << " (the generated kernel cannot take this op)";
    else if (generated > best)
      plan = MixedMatmulPlan::Generated;
  }
  // The committed rows name their own run.
  os << " (" << (nearest->source.empty() ? source : nearest->source) << ")";
  return {plan, text};
}
