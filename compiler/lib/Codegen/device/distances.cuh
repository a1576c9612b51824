// tgc device library: distance tables. A score region's term that depends
// on the indices only through d = q_idx - kv_idx (relative-position biases,
// T5 buckets; the plan finds it, compiler/lib/Plan/DistanceTerm.cpp) is
// computed once per distance of a tile instead of once per score: a
// warpgroup fetches a tile's terms into registers an iteration ahead, stores
// them as a table in shared memory, and the generated modifier reads
// distance.at(q_idx, kv_idx).
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

/// The distance terms of a block of rows and keys, computed one tile ahead
/// of their use: fetch() evaluates them into registers (kThreads threads,
/// thread `t` taking entries t, t + kThreads, ...; the global reads of a
/// table lookup then land while the current tile computes), store() writes
/// them into the tile's table in shared memory. Entry e is the term of
/// d = first + e over rows [row0, row0 + rows) and keys [key0, key0 +
/// keys), each index clamped to the tensor's last as the modifier clamps
/// it; kEntries >= rows + keys - 1. The caller synchronises the threads
/// between store() and the table's reads.
template <int kThreads, int kEntries>
struct DistancePrefetch {
  static constexpr int kPerThread = (kEntries + kThreads - 1) / kThreads;
  float terms[kPerThread];
  int first = 0, count = 0;

  template <class ScoreMod>
  __device__ __forceinline__ void fetch(const ScoreMod &score_mod, long long b, long long h, int row0, int rows,
                                        int key0, int keys, int last_q, int last_kv, int t) {
    const int rows_lo = imin(row0, last_q), rows_hi = imin(row0 + rows - 1, last_q);
    const int keys_lo = imin(key0, last_kv), keys_hi = imin(key0 + keys - 1, last_kv);
    first = rows_lo - keys_hi;
    count = rows_hi - keys_lo - first + 1;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i)
      if (t + i * kThreads < count) terms[i] = score_mod.distance_term(b, h, first + t + i * kThreads);
  }

  __device__ __forceinline__ DistanceTable store(float *values, int t) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i)
      if (t + i * kThreads < count) values[t + i * kThreads] = terms[i];
    return DistanceTable{values, first};
  }
};

} // namespace tg::device
