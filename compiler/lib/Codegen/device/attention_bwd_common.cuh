// tgc device library: what the fused attention backward's main kernels share
// (the mma.sync kernel, attention_bwd.cuh, and the sm_90a wgmma kernel,
// attention_bwd_wgmma.cuh): their parameters, which keys and query tiles a
// CTA works on, the dropout keep bits, and the element-wise step that turns
// a recomputed score and dP into P and dS.
//
// A configuration (the generator writes it) provides kBlockM, kBlockN,
// kGroup, kScale, the mask constants (kUpper, kRightLimit, kLeft,
// kWindowLeft, kBottomRight), kSeqLenQ, kSeqLenKv, kRagged, kDropout,
// kDropoutThreshold, kDropoutRescale, kScoreMod, kScoreMasksOnly, kScoreGrad,
// kCaptureGrads, kDocumentMask and the key bound's kKeyLimit, kKeyBoundRows,
// kKeyBoundRowOffset; attention_bwd.cuh lists the score modifier's members.
#pragma once
#include "distances.cuh"
#include "documents.cuh"
#include "dq_accumulator.cuh"
#include "key_bounds.cuh"
#include "masks.cuh"
#include "philox.cuh"
#include "ragged.cuh"

namespace tg::device {

/// The main kernel's pointers and sizes (the entry point fills it from its
/// parameters). Strides are in elements; head dims are contiguous.
struct BackwardParams {
  const u16 *q, *k, *v, *d_o;
  const float *lse;    // [B, Hq, Sq] natural-log log-sum-exp of the forward
  const float *delta;  // [B, Hq, Sq] rowsum(dO * O)
  float *dq_accum;     // [B, Hq, Sq, Dqk] f32, zeroed
  int *dq_semaphore;   // [B, Hq, ceil(Sq / kBlockM)] int, zeroed (kDeterministic)
  u16 *dk, *dv;
  const int *seq_lens_q, *seq_lens_kv;            // [B] (padding)
  const long long *dropout_seed, *dropout_offset;  // scalars (dropout)
  long long batch, num_heads_q, seq_len_q, seq_len_kv;
  long long q_stride_b, q_stride_h, q_stride_s;
  long long k_stride_b, k_stride_h, k_stride_s;
  long long v_stride_b, v_stride_h, v_stride_s;
  long long do_stride_b, do_stride_h, do_stride_s;
  long long dk_stride_b, dk_stride_h, dk_stride_s;
  long long dv_stride_b, dv_stride_h, dv_stride_s;
  // Ragged (kRagged): seq_lens_q / seq_lens_kv hold the [B + 1] offsets
  // cu_seqlens and seq_len_q / seq_len_kv the max_seqlen attributes; these
  // are the packed tensors' token counts. lse is then the preprocess's
  // [B, Hq, max_seqlen_q] copy of the [Tq, Hq] stats.
  long long tokens_q, tokens_kv;
};

/// The tile of one iteration: query head h, rows [m0, m0 + kBlockM).
struct QueryTile {
  long long h;
  int m0;
};

/// What a CTA works on: keys [n0, n0 + kBlockN) of kv head h_kv in batch
/// b, and `iterations` query tiles (tile_of), those of the GQA group's query
/// heads with a row that sees one of these keys.
template <class Cfg>
struct BackwardWork {
  using Mask = MaskRule<Cfg::kUpper, Cfg::kRightLimit, Cfg::kLeft, Cfg::kWindowLeft>;
  long long b, h_kv;
  int n0, seq_q, seq_kv;
  int len_q, len_kv;           // this batch's lengths (padding, or its packed sequence)
  long long q_start, kv_start;  // the sequence's first token (ragged), else 0
  // Rows of q/dO and k/v a tile reads: the lengths, so that padding (which
  // may hold anything, NaN included) is zeros in shared memory and adds
  // nothing to any product; and the dK/dV rows the epilogue writes (zeros
  // in padding).
  int q_rows, kv_rows, kv_out_rows;
  Mask mask;
  int tile_begin, tiles_per_head, iterations;
  bool empty;  // a packed sequence shorter than n0: nothing to do
  // (kDocumentMask) the query rows that lie in these keys' one document
  // for every query head of the group: their tiles skip the document test
  DocumentSpan documents;

  __device__ __forceinline__ QueryTile tile_of(int it) const {
    return QueryTile{h_kv * Cfg::kGroup + it / tiles_per_head, (tile_begin + it % tiles_per_head) * Cfg::kBlockM};
  }
};

/// The CTA's work (blockIdx: kv tile, kv head, batch). With a document mask
/// the query rows narrow to those of the keys' documents; `scratch` is
/// shared memory for that search (documents.cuh; 8-byte aligned).
template <class Cfg, int kThreads, class ScoreMod>
__device__ __forceinline__ BackwardWork<Cfg> backward_work(const BackwardParams &p, const ScoreMod &score_mod,
                                                           long long *scratch, int tid) {
  BackwardWork<Cfg> w;
  w.n0 = static_cast<int>(blockIdx.x) * Cfg::kBlockN;
  w.h_kv = blockIdx.y;
  w.b = blockIdx.z;
  const long long b = w.b;
  w.seq_q = static_cast<int>(p.seq_len_q);
  w.seq_kv = static_cast<int>(p.seq_len_kv);
  w.len_q = Cfg::kSeqLenQ ? imax(0, imin(p.seq_lens_q[b], w.seq_q)) : w.seq_q;
  w.len_kv = Cfg::kSeqLenKv ? imax(0, imin(p.seq_lens_kv[b], w.seq_kv)) : w.seq_kv;
  // Packed sequences: the tokens from q_start / kv_start; rows past a
  // sequence belong to the next one (never loaded or written here).
  w.q_start = 0;
  w.kv_start = 0;
  w.empty = false;
  if constexpr (Cfg::kRagged) {
    ragged_sequence(p.seq_lens_q, b, p.tokens_q, p.seq_len_q, &w.q_start, &w.len_q);
    ragged_sequence(p.seq_lens_kv, b, p.tokens_kv, p.seq_len_kv, &w.kv_start, &w.len_kv);
    w.empty = w.n0 >= w.len_kv;
  }
  w.tile_begin = w.tiles_per_head = w.iterations = 0;
  w.documents = DocumentSpan{0, 0, 0, 0};
  w.q_rows = w.len_q;
  w.kv_rows = w.len_kv;
  w.kv_out_rows = Cfg::kRagged ? w.len_kv : w.seq_kv;
  w.mask = typename BackwardWork<Cfg>::Mask{w.len_q, w.len_kv, Cfg::kBottomRight ? w.len_kv - w.len_q : 0};
  if (w.empty) return w;

  int row_begin, row_end;
  w.mask.rows_seeing(w.n0, w.n0 + Cfg::kBlockN, &row_begin, &row_end);
  if constexpr (Cfg::kKeyLimit || Cfg::kKeyBoundRows) {
    // Rows before the first whose bound passes these keys see none of them
    // (the union over the group's query heads). The kv tiles that see a
    // query tile stay a prefix of the masks' range, as the deterministic
    // turns count them.
    int first = row_end;
    for (long long g = 0; g < Cfg::kGroup; ++g)
      first = imin(first, key_bound_first_row<Cfg>(score_mod, b, w.h_kv * Cfg::kGroup + g, w.n0, row_end));
    row_begin = imax(row_begin, first);
    if (row_begin >= row_end) row_begin = row_end = 0;
  }
  if constexpr (Cfg::kDocumentMask) {
    // Only rows of these keys' documents see them: the union over the
    // group's query heads of the rows whose id lies within the keys' ids.
    // The same-document rows: those of every head.
    int begin = row_end, end = row_begin;
    int same_begin = row_begin, same_end = row_end;
    for (long long g = 0; g < Cfg::kGroup; ++g) {
      const long long h = w.h_kv * Cfg::kGroup + g;
      const DocumentSpan head = narrow_to_documents<kThreads>(
          w.n0, imin(w.n0 + Cfg::kBlockN, w.len_kv), row_begin, row_end, scratch,
          [&](int kv) { return score_mod.document_of_key(b, h, kv); },
          [&](int q) { return score_mod.document_of_query(b, h, q); }, tid);
      if (head.begin < head.end) {
        begin = imin(begin, head.begin);
        end = imax(end, head.end);
      }
      same_begin = imax(same_begin, head.same_begin);
      same_end = imin(same_end, head.same_end);
    }
    // The deterministic turns (dq_turn_wait) count every kv tile the masks
    // let see a query tile: there the rows stay the masks' (the region masks
    // the other documents' scores, whose dQ adds are zeros), else a query
    // tile's counter would wait for kv tiles that never visit it.
    if constexpr (!Cfg::kDeterministic) {
      row_begin = begin < end ? begin : 0;
      row_end = begin < end ? end : 0;
    }
    if (same_begin < same_end) w.documents = DocumentSpan{row_begin, row_end, same_begin, same_end};
  }
  w.tile_begin = row_begin / Cfg::kBlockM;
  w.tiles_per_head = row_end > row_begin ? (row_end + Cfg::kBlockM - 1) / Cfg::kBlockM - w.tile_begin : 0;
  w.iterations = w.tiles_per_head * static_cast<int>(Cfg::kGroup);
  return w;
}

/// The dropout Philox key and offset (kDropout), read once per CTA.
struct DropoutStream {
  PhiloxKey key{0, 0};
  unsigned long long offset = 0;
};
template <class Cfg>
__device__ __forceinline__ DropoutStream dropout_stream(const BackwardParams &p) {
  DropoutStream d;
  if constexpr (Cfg::kDropout) {
    const unsigned long long seed = static_cast<unsigned long long>(*p.dropout_seed);
    d.key = PhiloxKey{static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
    d.offset = static_cast<unsigned long long>(*p.dropout_offset);
  }
  return d;
}

/// Words of keep bits per query row of a tile.
template <class Cfg>
inline constexpr int kKeepWords = Cfg::kBlockN / 32;

/// Dropout keep bits of a query tile x this CTA's keys: bit t of word
/// [r * kKeepWords + j] keeps (query m0 + r, key n0 + 32 j + t), for the
/// element's linear index in [B, Hq, Sq, Skv] (the forward's mapping).
template <class Cfg, int kThreads>
__device__ __forceinline__ void fill_keep_bits(unsigned *bits, const BackwardParams &p, DropoutStream stream,
                                               long long b, QueryTile t, int n0, int tid) {
  constexpr int kWords = kKeepWords<Cfg>;
  const unsigned long long row0 = static_cast<unsigned long long>(
      ((b * p.num_heads_q + t.h) * p.seq_len_q + t.m0) * p.seq_len_kv + n0);
  for (int w = tid; w < Cfg::kBlockM * kWords; w += kThreads) {
    const int r = w / kWords, j = w % kWords;
    bits[w] = dropout_keep_bits32(row0 + static_cast<unsigned long long>(r) * p.seq_len_kv + 32 * j, stream.key,
                                  stream.offset, Cfg::kDropoutThreshold);
  }
}

/// A query row's statistics as the element step reads them: a row without
/// any visible key has lse = -inf, taken as +inf so that P = exp2(z - lse)
/// is 0 for every z (finite or -inf), never NaN.
__device__ __forceinline__ float lse_for_probabilities(float lse) { return lse == neg_inf() ? pos_inf() : lse; }

/// The first half of the element step where the score region has no
/// gradient of its own (ds = dz) and no captured tensor gets one: P at
/// (q_idx, kv_idx) from s = q . k, as score_gradient_element computes it.
template <class Cfg, class ScoreMod, class Mask>
__device__ __forceinline__ float probability_element(float s, const ScoreMod &score_mod, const Mask &mask,
                                                     bool all_visible, bool same_document,
                                                     const DistanceTable &distance, long long b,
                                                     long long h, int q_idx,
                                                     int kv_idx, int seq_q, int seq_kv, float lse) {
  static_assert(!Cfg::kScoreGrad && !Cfg::kCaptureGrads, "the region's gradient needs the score: one step");
  constexpr float kLog2e = 1.4426950408889634f;
  if constexpr (!Cfg::kScoreMod) {
    // Without a region z = scale * s is finite: the base change folds into
    // one FMA (lse * log2 e is the row's, computed once per row).
    float t = s * (Cfg::kScale * kLog2e) - lse * kLog2e;
    if (!all_visible && !mask.visible(q_idx, kv_idx)) t = neg_inf();
    return fast_exp2(t);
  } else {
    const long long q_clamped = q_idx < seq_q ? q_idx : seq_q - 1;
    const long long kv_clamped = kv_idx < seq_kv ? kv_idx : seq_kv - 1;
    // A region that only masks keeps its score or gives -inf whatever the
    // (positive) scale: it runs on the raw dot product, and the scale stays
    // in the exponent's one FMA.
    const float x = Cfg::kScoreMasksOnly ? s : s * Cfg::kScale;
    float z = Cfg::kDocumentMask && same_document
                  ? score_mod.template apply<Cfg::kDocumentMask>(x, b, h, q_clamped, kv_clamped, distance)
                  : score_mod.apply(x, b, h, q_clamped, kv_clamped, distance);
    if (!all_visible && !mask.visible(q_idx, kv_idx)) z = neg_inf();
    if constexpr (Cfg::kScoreMasksOnly)
      return fast_exp2(z * (Cfg::kScale * kLog2e) - lse * kLog2e);
    else
      return fast_exp2((z - lse) * kLog2e);
  }
}

/// The dropout factor Z of (q_local, key_local): 0 or 1 / (1 - p), 1
/// without dropout.
template <class Cfg>
__device__ __forceinline__ float keep_factor(const unsigned *keep_bits, int q_local, int key_local) {
  if constexpr (Cfg::kDropout) {
    const unsigned word = keep_bits[q_local * kKeepWords<Cfg> + key_local / 32];
    return (word >> (key_local % 32)) & 1u ? Cfg::kDropoutRescale : 0.0f;
  } else {
    return 1.0f;
  }
}

/// The second half: dS = dZ = P (dP Z - delta). dP and delta are finite
/// (padded rows of dO and V are zeros in shared memory, and so is delta),
/// so P = 0 gives 0 without a test.
__device__ __forceinline__ float identity_score_gradient(float prob, float dp, float keep, float row_delta) {
  return prob * (dp * keep - row_delta);
}

/// One element of the tile: from s = q . k and dp = (dO V^T) at (q_idx,
/// kv_idx) to P * Z (returned in s) and dS (in dp), where
///   P = exp2((z - lse) log2 e), z = score_mod(scale * s) masked,
///   dZ = P (dP Z - delta), dS = score_grad(dZ)
/// and Z is the dropout keep bit times 1 / (1 - p). q_local and key_local
/// index the tile's keep bits. Captured tensors' gradients are added here.
/// same_document: the tile lies in the keys' one document (the modifier's
/// document test is known true: ScoreMod::apply<true>); `distance`: the
/// tile's distance terms (Config::kDistanceTable).
template <class Cfg, class ScoreMod, class Mask>
__device__ __forceinline__ void score_gradient_element(float &s, float &dp, const ScoreMod &score_mod,
                                                       const Mask &mask, bool all_visible, bool same_document,
                                                       const DistanceTable &distance, long long b,
                                                       long long h, int q_idx, int kv_idx, int seq_q,
                                                       int seq_kv, float lse, float row_delta,
                                                       const unsigned *keep_bits, int q_local, int key_local) {
  constexpr float kLog2e = 1.4426950408889634f;
  const float x = s * Cfg::kScale;  // scale * (q . k), f32
  float z = x;
  long long q_clamped = 0, kv_clamped = 0;
  if constexpr (Cfg::kScoreMod || Cfg::kScoreGrad || Cfg::kCaptureGrads) {
    // Rows and keys past the tensors read the last ones' captures; they
    // are masked below.
    q_clamped = q_idx < seq_q ? q_idx : seq_q - 1;
    kv_clamped = kv_idx < seq_kv ? kv_idx : seq_kv - 1;
  }
  if constexpr (Cfg::kScoreMod)
    z = Cfg::kDocumentMask && same_document
            ? score_mod.template apply<Cfg::kDocumentMask>(x, b, h, q_clamped, kv_clamped, distance)
            : score_mod.apply(x, b, h, q_clamped, kv_clamped, distance);
  if (!all_visible && !mask.visible(q_idx, kv_idx)) z = neg_inf();
  // (z - lse) before the base change: a finite z near -3.4e38 (finfo.min
  // masks) never overflows to -inf - -inf = NaN.
  const float prob = fast_exp2((z - lse) * kLog2e);
  const float keep = keep_factor<Cfg>(keep_bits, q_local, key_local);
  const float dz = prob * (dp * keep - row_delta);
  float ds = dz;
  if constexpr (Cfg::kScoreGrad) ds = score_mod.gradient(x, b, h, q_clamped, kv_clamped, dz);
  // Captured tensors' gradients (dbias): P != 0 only where the element is
  // visible, so rows and keys are in range.
  if constexpr (Cfg::kCaptureGrads)
    if (prob != 0.0f) score_mod.add_capture_gradients(x, b, h, q_clamped, kv_clamped, dz);
  // Where P = 0 (masked, fully masked rows) no gradient flows, even where
  // the region's derivative is not finite.
  s = prob * keep;
  dp = prob == 0.0f ? 0.0f : ds;
}

/// The deterministic backward's turn: the kv tiles that see a query tile
/// are consecutive; the CTA waits until those before it have added their
/// dQ (then every thread adds, and dq_turn_done passes the turn on).
template <class Cfg, class Mask>
__device__ __forceinline__ int *dq_turn_wait(const BackwardParams &p, const Mask &mask, long long b, QueryTile t,
                                             int tid) {
  int key_begin, key_end;
  mask.keys_seen(t.m0, t.m0 + Cfg::kBlockM, &key_begin, &key_end);
  const int before = static_cast<int>(blockIdx.x) - key_begin / Cfg::kBlockN;
  const long long q_tiles = (p.seq_len_q + Cfg::kBlockM - 1) / Cfg::kBlockM;
  int *semaphore = p.dq_semaphore + (b * p.num_heads_q + t.h) * q_tiles + t.m0 / Cfg::kBlockM;
  if (tid == 0)
    while (ld_acquire_gpu(semaphore) != before) {
    }
  __syncthreads();
  return semaphore;
}
__device__ __forceinline__ void dq_turn_done(int *semaphore, int tid) {
  // Every thread's adds are visible before the next kv tile's begin.
  __threadfence();
  __syncthreads();
  if (tid == 0) red_release_gpu_add(semaphore, 1);
}

} // namespace tg::device
