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
/// a block of rows and keys: values[d - first]. In the backward, where the
/// term is a table read whose gradient is wanted, `grads` sums the scores'
/// gradients per distance (shared-memory atomics) until the tile adds them
/// to the table, one global atomic per distance (ScoreMod::add_distance_gradient).
struct DistanceTable {
  const float *values;
  int first;
  float *grads = nullptr;

  __device__ __forceinline__ float at(long long q_idx, long long kv_idx) const {
    return values[static_cast<int>(q_idx - kv_idx) - first];
  }
  __device__ __forceinline__ void add_gradient(long long q_idx, long long kv_idx, float g) const {
    atomicAdd(grads + (static_cast<int>(q_idx - kv_idx) - first), g);
  }
};

/// Fills `values` (at least rows + keys - 1 floats) with the distance term
/// of every d = q - kv over rows [row0, row0 + rows) and keys [key0, key0 +
/// keys), each index clamped to the tensor's last as the modifier clamps
/// it, and zeroes `grads` (as many floats, or null). kThreads threads share
/// the work (thread `t`); the caller synchronises them before the table is
/// read.
template <int kThreads, class ScoreMod>
__device__ __forceinline__ DistanceTable tabulate_distances(const ScoreMod &score_mod, float *values,
                                                            long long b, long long h, int row0, int rows,
                                                            int key0, int keys, int last_q, int last_kv,
                                                            int t, float *grads = nullptr) {
  const int rows_lo = imin(row0, last_q), rows_hi = imin(row0 + rows - 1, last_q);
  const int keys_lo = imin(key0, last_kv), keys_hi = imin(key0 + keys - 1, last_kv);
  const DistanceTable table{values, rows_lo - keys_hi, grads};
  for (int e = t; e <= rows_hi - keys_lo - table.first; e += kThreads) {
    values[e] = score_mod.distance_term(b, h, table.first + e);
    if (grads != nullptr) grads[e] = 0.0f;
  }
  return table;
}

/// Adds a tile's per-distance gradient sums to the table (after every
/// thread's shared atomics, which the caller waits for): one call of
/// ScoreMod::add_distance_gradient per distance that got any.
template <int kThreads, class ScoreMod>
__device__ __forceinline__ void add_distance_gradients(const ScoreMod &score_mod, const DistanceTable &table,
                                                       long long b, long long h, int row0, int rows,
                                                       int key0, int keys, int last_q, int last_kv, int t) {
  const int rows_hi = imin(row0 + rows - 1, last_q), keys_lo = imin(key0, last_kv);
  for (int e = t; e <= rows_hi - keys_lo - table.first; e += kThreads)
    if (table.grads[e] != 0.0f) score_mod.add_distance_gradient(b, h, table.first + e, table.grads[e]);
}

} // namespace tg::device
