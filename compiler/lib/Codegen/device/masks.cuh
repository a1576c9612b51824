// tgc device library: tg's attribute masks (causal top-left/bottom-right,
// sliding window, padding) as one rule with three questions: is (q, kv)
// visible, which keys does a block of rows see, which rows see a block of
// keys. Semantics: TGOps.td (tg.attention) and the reference interpreter
// (compiler/lib/Reference/Attention.cpp, AttentionProblem::masked).
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Key kv is visible from query row q iff
///   q < len_q and kv < len_kv                      (padding)
///   kv <= q + diag_shift + kRightLimit             (kUpper: causal and/or window_right)
///   kv >= q + diag_shift - kWindowLeft             (kLeft: window_left)
/// where diag_shift = len_kv - len_q for bottom-right alignment, else 0.
/// Window sizes are clamped to +-2^30 by the generator, so the arithmetic
/// stays in int for sequences shorter than 2^30.
template <bool kUpper, int kRightLimit, bool kLeft, int kWindowLeft>
struct MaskRule {
  int len_q, len_kv, diag_shift;

  __device__ __forceinline__ bool visible(int q, int kv) const {
    return q < len_q && key_visible(q, kv);
  }

  /// visible without the row test, for callers whose rows >= len_q are
  /// never stored (the forward).
  __device__ __forceinline__ bool key_visible(int q, int kv) const {
    bool v = kv < len_kv;
    if constexpr (kUpper) v = v && kv <= q + diag_shift + kRightLimit;
    if constexpr (kLeft) v = v && kv >= q + diag_shift - kWindowLeft;
    return v;
  }

  /// Rows [*begin, *end) of [0, len_q) that see at least one key of
  /// [kv0, kv1); empty (begin == end) when none does.
  __device__ __forceinline__ void rows_seeing(int kv0, int kv1, int *begin, int *end) const {
    kv1 = imin(kv1, len_kv);
    int b = 0, e = len_q;
    // The first visible key of row q is max(0, q + diag_shift - kWindowLeft)
    // and the last min(len_kv - 1, q + diag_shift + kRightLimit); the row
    // sees the block iff first < kv1 and last >= kv0.
    if constexpr (kUpper) b = imax(b, kv0 - diag_shift - kRightLimit);
    if constexpr (kLeft) e = imin(e, kv1 - 1 + kWindowLeft - diag_shift + 1);
    if (kv0 >= kv1 || b >= e) b = e = 0;
    *begin = b;
    *end = e;
  }

  /// Keys [*begin, *end) of [0, len_kv) visible from at least one row of
  /// [q0, q1); empty when none is.
  __device__ __forceinline__ void keys_seen(int q0, int q1, int *begin, int *end) const {
    q1 = imin(q1, len_q);
    int b = 0, e = len_kv;
    if constexpr (kUpper) e = imin(e, q1 - 1 + diag_shift + kRightLimit + 1);
    if constexpr (kLeft) b = imax(b, q0 + diag_shift - kWindowLeft);
    if (q0 >= q1 || b >= e) b = e = 0;
    *begin = b;
    *end = e;
  }

  /// Whether every (q, kv) with q in [q0, q1) and kv in [kv0, kv1) is
  /// visible: blocks for which this holds skip the per-element test.
  __device__ __forceinline__ bool all_visible(int q0, int q1, int kv0, int kv1) const {
    bool all = q1 <= len_q && kv1 <= len_kv;
    if constexpr (kUpper) all = all && kv1 - 1 <= q0 + diag_shift + kRightLimit;
    if constexpr (kLeft) all = all && kv0 >= q1 - 1 + diag_shift - kWindowLeft;
    return all;
  }
};

} // namespace tg::device
