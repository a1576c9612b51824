// tgc device library: the layout of the attention backward's f32 dQ
// accumulator ([B, Hq, Sq, Dqk]): the main kernels add into it, the
// preprocess kernel zeroes it, the convert kernel rounds it into dQ.
//
// Plain, or swizzled (kSwizzled; head dims that are multiples of 64; the
// plan picks one layout for all its kernels: every plan whose sm_90a
// variant is the wgmma kernel swizzles): the 8-float (32-byte) chunks of a
// row are permuted, column c of row r living at column c ^ ((r % 8) * 8)
// (the chunk index XOR r % 8, within each aligned group of eight chunks).
// Rows stay contiguous, so a run of whole rows is one bulk reduction from a
// shared memory stage of the same layout, and that stage's writes from
// wgmma accumulator fragments (eight rows per instruction) hit distinct
// banks.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// The permutation of accumulator row `row`: column c lives at c ^ this.
template <bool kSwizzled>
__device__ __forceinline__ int dq_accum_swizzle(long long row) {
  return kSwizzled ? static_cast<int>(row & 7) << 3 : 0;
}

/// Where column `col` of accumulator row `row` lives in that row.
template <bool kSwizzled>
__device__ __forceinline__ int dq_accum_column(long long row, int col) {
  return col ^ dq_accum_swizzle<kSwizzled>(row);
}

} // namespace tg::device
