// tgc device library: document masks (packed sequences). A score region
// that masks (q_idx, kv_idx) whenever id(q_idx) != id(kv_idx) lets a CTA
// narrow the range it walks on one side (keys in the forward, query rows in
// the backward) to the entries whose id lies within the ids of its own block
// on the other side; the region still masks inside the narrowed range,
// except in tiles known to lie in the block's one document, where the
// generated modifier drops its document test. With contiguous documents the
// range is exactly the block's documents, and only the tiles that cross a
// document boundary test ids.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Where a CTA's block meets the other side's documents: [begin, end), the
/// narrowed range, and [same_begin, same_end) within it, the entries known
/// to share the one document of every own entry (their tiles skip the
/// region's document test: ScoreMod::apply<K, true>).
struct DocumentSpan {
  int begin, end;
  int same_begin, same_end;

  /// Whether every entry of [first, first + count) shares the own block's
  /// document.
  __device__ __forceinline__ bool same_document(int first, int count) const {
    return first >= same_begin && first + count <= same_end;
  }
};

/// Narrows [begin, end) to [first, last + 1) of its entries j whose id
/// `other_id(j)` lies within [min, max] of `own_id(i)` over i in
/// [own0, own1); empty (begin == end) when none does (or the own block is
/// empty). When every own id is one id D and every entry of the narrowed
/// range has id D, that range is also the span's same-document range (else
/// that is empty): the check costs one more pass over the narrowed range,
/// which holds the block's own document(s) only. Block-wide: every thread
/// calls it with the same arguments, and it synchronises the block.
/// `scratch` is 4 long longs of shared memory that nothing else uses during
/// the call.
template <int kThreads, class OwnId, class OtherId>
__device__ __forceinline__ DocumentSpan narrow_to_documents(int own0, int own1, int begin, int end,
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
  // (unrolled: the id loads of several entries are in flight at once; the
  // scan of a long causal range is otherwise a chain of cache latencies)
  long long first = kLargest, last = kSmallest;
#pragma unroll 4
  for (int j = begin + tid; j < end; j += kThreads) {
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
  DocumentSpan span{begin, begin, 0, 0};
  if (last >= first) {
    span.begin = static_cast<int>(first);
    span.end = static_cast<int>(last) + 1;
  }
  // (the same for every thread: the loop runs block-wide or not at all)
  int differs = id_min != id_max || span.begin == span.end;
  if (!differs) {
#pragma unroll 4
    for (int j = span.begin + tid; j < span.end; j += kThreads) differs |= other_id(j) != id_min;
  }
  // (also: every thread has read the bounds before the scratch is reused)
  if (!__syncthreads_or(differs)) {
    span.same_begin = span.begin;
    span.same_end = span.end;
  }
  return span;
}

} // namespace tg::device
