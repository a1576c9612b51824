// tgc device library: document masks (packed sequences). A score region
// that masks (q_idx, kv_idx) whenever id(q_idx) != id(kv_idx) lets a CTA
// narrow the range it walks on one side (keys in the forward, query rows in
// the backward) to the entries whose id lies within the ids of its own block
// on the other side; the region still masks inside the narrowed range.
// With contiguous documents that range is exactly the block's documents.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Narrows [*begin, *end) to [first, last + 1) of its entries j whose id
/// `other_id(j)` lies within [min, max] of `own_id(i)` over i in
/// [own0, own1); empty (*begin == *end) when none does (or the own block is
/// empty). Block-wide: every thread calls it with the same arguments, and it
/// synchronises the block. `scratch` is 4 long longs of shared memory that
/// nothing else uses during the call.
template <int kThreads, class OwnId, class OtherId>
__device__ __forceinline__ void narrow_to_documents(int own0, int own1, int *begin, int *end,
                                                    long long *scratch, OwnId own_id,
                                                    OtherId other_id, int tid) {
  constexpr long long kLargest = 9223372036854775807LL, kSmallest = -kLargest - 1;
  if (tid == 0) {
    scratch[0] = kLargest;   // id min
    scratch[1] = kSmallest;  // id max
    scratch[2] = kLargest;   // first entry
    scratch[3] = kSmallest;  // last entry
  }
  __syncthreads();
  long long id_min = kLargest, id_max = kSmallest;
  for (int i = own0 + tid; i < own1; i += kThreads) {
    const long long id = own_id(i);
    id_min = id < id_min ? id : id_min;
    id_max = id > id_max ? id : id_max;
  }
  atomicMin(&scratch[0], id_min);
  atomicMax(&scratch[1], id_max);
  __syncthreads();
  id_min = scratch[0];
  id_max = scratch[1];
  long long first = kLargest, last = kSmallest;
  for (int j = *begin + tid; j < *end; j += kThreads) {
    const long long id = other_id(j);
    if (id >= id_min && id <= id_max) {
      first = j < first ? j : first;
      last = j;
    }
  }
  atomicMin(&scratch[2], first);
  atomicMax(&scratch[3], last);
  __syncthreads();
  first = scratch[2];
  last = scratch[3];
  __syncthreads();  // every thread has read the bounds before the scratch is reused
  if (last < first) {
    *end = *begin;
  } else {
    *begin = static_cast<int>(first);
    *end = static_cast<int>(last) + 1;
  }
}

} // namespace tg::device
