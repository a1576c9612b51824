#ifndef TG_CODEGEN_MASKDROPOUTCONFIG_H
#define TG_CODEGEN_MASKDROPOUTCONFIG_H

// The configuration constants of tg's attribute masks (device/masks.cuh's
// MaskRule) and of dropout (device/philox.cuh), which the forward's and the
// backward's configuration blocks both hold: written once.

#include "tg/Masks/AttentionMasks.h"

#include <string>

namespace tg::codegen {

/// `static constexpr` member lines (indented for a configuration struct):
/// kUpper, kRightLimit, kLeft, kWindowLeft, kBottomRight, kSeqLenQ/Kv,
/// kDropout, kDropoutThreshold, kDropoutRescale (no newline after the last).
std::string maskAndDropoutConstants(const ::tgc::masks::AttentionMasks &masks,
                                    double dropoutProbability);

} // namespace tg::codegen

#endif // TG_CODEGEN_MASKDROPOUTCONFIG_H
