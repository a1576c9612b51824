// tg's attribute masks (causal top-left / bottom-right, sliding window,
// padding) as one host-side value: the rule every host user asks (the cuDNN
// lowerings, the NVRTC generators, tg-expand-attention and the reference
// interpreter). The device twin is compiler/lib/Codegen/device/masks.cuh
// (MaskRule), which the generators configure from rightLimit() and
// leftLimit(). Semantics: TGOps.td (tg.attention).
//
// Plain C++17, header-only and free of MLIR, so that TGCodegenCuda (which
// links no MLIR) can use it; tg/Masks/OpMasks.h builds it from the ops.
#ifndef TG_MASKS_ATTENTIONMASKS_H
#define TG_MASKS_ATTENTIONMASKS_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace tgc::masks {

/// How the causal mask is aligned; matches tg's #tg<causal ...>.
enum class Causal { None, TopLeft, BottomRight };

/// Key kv is visible from query row q, for sequence lengths (lenQ, lenKv),
/// iff
///   q < lenQ and kv < lenKv                  (padding)
///   kv <= diag(q) + rightBound()             (causal and/or window_right)
///   kv >= diag(q) - windowLeft               (window_left)
/// where diag(q) = q + lenKv - lenQ for bottom-right alignment, else q.
struct AttentionMasks {
  Causal causal = Causal::None;
  std::optional<int64_t> windowLeft, windowRight;
  /// Whether the per-batch sequence lengths are given (padding masks).
  bool paddedQ = false, paddedKv = false;

  /// Window limits handed to the device rule are clamped to +-2^30, so
  /// that index arithmetic stays in int32 for any sequence shorter than
  /// 2^30 (a larger window masks nothing more).
  static constexpr int64_t kWindowClamp = int64_t(1) << 30;
  static int64_t clampWindow(int64_t w) {
    return std::max(-kWindowClamp, std::min(kWindowClamp, w));
  }

  bool bottomRight() const { return causal == Causal::BottomRight; }
  bool padded() const { return paddedQ || paddedKv; }
  /// Whether a causal mask or a window is given (the diagonal band).
  bool anyDiagonal() const {
    return causal != Causal::None || windowLeft || windowRight;
  }
  /// Whether keys right of the diagonal can be masked (causal or
  /// window_right): the device rule's kUpper.
  bool hasUpper() const { return causal != Causal::None || windowRight; }
  /// Whether keys left of the diagonal can be masked: kLeft.
  bool hasLeft() const { return windowLeft.has_value(); }

  /// The last visible key relative to the diagonal (kv <= diag + this):
  /// 0 for causal (tightened by a negative window_right), window_right
  /// without causal, none without either.
  std::optional<int64_t> rightBound() const {
    if (causal != Causal::None)
      return windowRight ? std::min<int64_t>(0, *windowRight) : 0;
    return windowRight;
  }
  /// rightBound() clamped, 0 without an upper bound: kRightLimit.
  int64_t rightLimit() const {
    std::optional<int64_t> right = rightBound();
    return right ? clampWindow(*right) : 0;
  }
  /// window_left clamped, 0 without it: kWindowLeft.
  int64_t leftLimit() const { return windowLeft ? clampWindow(*windowLeft) : 0; }

  /// The diagonal kv index of query row q (what ALiBi measures from too).
  int64_t diagonal(int64_t q, int64_t lenQ, int64_t lenKv) const {
    return bottomRight() ? q + lenKv - lenQ : q;
  }
  /// Whether (q, kv) is visible (the rule above; exact int64 arithmetic).
  bool visible(int64_t q, int64_t kv, int64_t lenQ, int64_t lenKv) const {
    if (q >= lenQ || kv >= lenKv)
      return false;
    int64_t diag = diagonal(q, lenQ, lenKv);
    if (std::optional<int64_t> right = rightBound(); right && kv > diag + *right)
      return false;
    return !windowLeft || kv >= diag - *windowLeft;
  }
  /// The visible keys [first, last] of row q (q < lenQ); empty when
  /// first > last.
  std::pair<int64_t, int64_t> visibleKeys(int64_t q, int64_t lenQ,
                                          int64_t lenKv) const {
    int64_t diag = diagonal(q, lenQ, lenKv);
    int64_t first = windowLeft ? std::max<int64_t>(0, diag - *windowLeft) : 0;
    int64_t last = lenKv - 1;
    if (std::optional<int64_t> right = rightBound())
      last = std::min(last, diag + *right);
    return {first, last};
  }
};

} // namespace tgc::masks

#endif // TG_MASKS_ATTENTIONMASKS_H
