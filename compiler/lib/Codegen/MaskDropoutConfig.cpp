// The mask and dropout constants of the attention kernels' configurations
// (MaskDropoutConfig.h).
#include "MaskDropoutConfig.h"

#include "SourceTemplate.h"
#include "device/philox.cuh" // dropout_threshold

namespace tg::codegen {

namespace {
const char *boolText(bool b) { return b ? "true" : "false"; }
} // namespace

std::string maskAndDropoutConstants(const ::tgc::masks::AttentionMasks &masks,
                                    double dropoutProbability) {
  const bool dropout = dropoutProbability > 0.0;
  SourceTemplate t;
  t.set("UPPER", boolText(masks.hasUpper()))
      .set("RIGHT_LIMIT", masks.rightLimit())
      .set("LEFT", boolText(masks.hasLeft()))
      .set("WINDOW_LEFT", masks.leftLimit())
      .set("BOTTOM_RIGHT", boolText(masks.bottomRight()))
      .set("SEQ_LEN_Q", boolText(masks.paddedQ))
      .set("SEQ_LEN_KV", boolText(masks.paddedKv))
      .set("DROPOUT", boolText(dropout))
      .set("THRESHOLD", std::to_string(dropout_threshold(dropoutProbability)) + "u")
      .set("RESCALE", floatLiteral(dropout ? 1.0 / (1.0 - dropoutProbability) : 1.0));
  return t.expand(R"cuda(  // Masks relative to the diagonal diag = q_idx + diag_shift (bottom-right:
  // diag_shift = len_kv - len_q): kv_idx <= diag + kRightLimit (kUpper),
  // kv_idx >= diag - kWindowLeft (kLeft); padding from seq_lens (kSeqLen*).
  static constexpr bool kUpper = $(UPPER);
  static constexpr int kRightLimit = $(RIGHT_LIMIT);
  static constexpr bool kLeft = $(LEFT);
  static constexpr int kWindowLeft = $(WINDOW_LEFT);
  static constexpr bool kBottomRight = $(BOTTOM_RIGHT);
  static constexpr bool kSeqLenQ = $(SEQ_LEN_Q), kSeqLenKv = $(SEQ_LEN_KV);
  // Dropout: keep iff the Philox word >= floor(p * 2^32); kept P scaled by 1 / (1 - p).
  static constexpr bool kDropout = $(DROPOUT);
  static constexpr unsigned kDropoutThreshold = $(THRESHOLD);
  static constexpr float kDropoutRescale = $(RESCALE);)cuda");
}

} // namespace tg::codegen
