// tgc device library: key bounds of a score region (prefix-LM: `kv_idx <
// prefix[b] or kv_idx <= q_idx`). The region masks every key of row q at or
// past max(limit(b, h), q + kKeyBoundRowOffset), so a block of rows needs
// the keys below its last row's bound only (the forward ends its K/V range
// there), and a block of keys is seen only from the first row whose bound
// passes it (the backward starts its query rows there). The region still
// masks inside the ranges. A configuration provides kKeyLimit (the
// modifier's key_limit(b, h) is a term), kKeyBoundRows (q + kKeyBoundRowOffset
// is a term) and kKeyBoundRowOffset.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// The end of the keys that rows below q1 may see, within [0, len_kv].
template <class Cfg, class ScoreMod>
__device__ __forceinline__ int key_bound_end(const ScoreMod &score_mod, long long b, long long h, int q1,
                                             int len_kv) {
  long long end = 0;
  if constexpr (Cfg::kKeyBoundRows) end = static_cast<long long>(q1) - 1 + Cfg::kKeyBoundRowOffset;
  if constexpr (Cfg::kKeyLimit) {
    const long long limit = score_mod.key_limit(b, h);
    end = limit > end ? limit : end;
  }
  return static_cast<int>(end < 0 ? 0 : end > len_kv ? len_kv : end);
}

/// The first row that may see a key of [kv0, ...): 0 where the limit lies
/// past kv0, else the first row whose own bound does, else `none` (no row).
template <class Cfg, class ScoreMod>
__device__ __forceinline__ int key_bound_first_row(const ScoreMod &score_mod, long long b, long long h, int kv0,
                                                   int none) {
  if constexpr (Cfg::kKeyLimit)
    if (score_mod.key_limit(b, h) > kv0) return 0;
  if constexpr (Cfg::kKeyBoundRows) return imax(0, kv0 - Cfg::kKeyBoundRowOffset + 1);
  return none;
}

} // namespace tg::device
