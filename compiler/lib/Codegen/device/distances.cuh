// tgc device library: distance tables. A score region's term that depends
// on the indices only through d = q_idx - kv_idx (relative-position biases,
// T5 buckets; the plan finds it, compiler/lib/Plan/DistanceTerm.cpp) is
// computed once per distance of a tile instead of once per score: a
// warpgroup fills a table in shared memory, and the generated modifier
// reads distance.at(q_idx, kv_idx).
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// One tile's distance term (ScoreMod::distance_term) at every distance of
/// a block of rows and keys: values[d - first].
struct DistanceTable {
  const float *values;
  int first;

  __device__ __forceinline__ float at(long long q_idx, long long kv_idx) const {
    return values[static_cast<int>(q_idx - kv_idx) - first];
  }
};

/// Fills `values` (at least rows + keys - 1 floats) with the distance term
/// of every d = q - kv over rows [row0, row0 + rows) and keys [key0, key0 +
/// keys), each index clamped to the tensor's last as the modifier clamps
/// it. kThreads threads share the work (thread `t`); the caller
/// synchronises them before the table is read.
template <int kThreads, class ScoreMod>
__device__ __forceinline__ DistanceTable tabulate_distances(const ScoreMod &score_mod, float *values,
                                                            long long b, long long h, int row0, int rows,
                                                            int key0, int keys, int last_q, int last_kv,
                                                            int t) {
  const int rows_lo = imin(row0, last_q), rows_hi = imin(row0 + rows - 1, last_q);
  const int keys_lo = imin(key0, last_kv), keys_hi = imin(key0 + keys - 1, last_kv);
  const DistanceTable table{values, rows_lo - keys_hi};
  for (int e = t; e <= rows_hi - keys_lo - table.first; e += kThreads)
    values[e] = score_mod.distance_term(b, h, table.first + e);
  return table;
}

} // namespace tg::device
