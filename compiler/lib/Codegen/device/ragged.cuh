// tgc device library: packed sequences (the ragged layout, cu_seqlens).
// The kernels read the offsets on the device, so malformed ones are clamped
// rather than reported (TGOps.td, tg.sdpa: the ragged layout).
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Sequence b of a packed tensor of `tokens` tokens: its first token and its
/// length, with the offsets clamped into [0, tokens], the end to at least
/// the start, and the length cut to max_len.
__device__ __forceinline__ void ragged_sequence(const int *cu_seqlens, long long b, long long tokens,
                                                long long max_len, long long *start, int *len) {
  const long long first = cu_seqlens[b] < 0 ? 0 : (cu_seqlens[b] > tokens ? tokens : cu_seqlens[b]);
  long long end = cu_seqlens[b + 1] > tokens ? tokens : cu_seqlens[b + 1];
  end = end < first ? first : end;
  *start = first;
  *len = static_cast<int>(end - first < max_len ? end - first : max_len);
}

} // namespace tg::device
