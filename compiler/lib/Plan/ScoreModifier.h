#ifndef TG_LIB_PLAN_SCOREMODIFIER_H
#define TG_LIB_PLAN_SCOREMODIFIER_H

// The score region of a tg.attention or tg.attention_grad as the C++ of the
// fused NVRTC kernels' ScoreMod, one text for the forward (AttentionStep)
// and the backward (AttentionGradStep): the modifier, the document mask it
// ends in (DocumentMask.h) and the distance term the sm_90a kernels
// tabulate (DistanceTerm.h).

#include "tg/Codegen/AttentionKernel.h"
#include "tg/Lowering/ScalarExpr.h"

#include <optional>
#include <string>

namespace mlir::tg {

struct ScoreModifierText {
  std::string modifier;              // AttentionForwardSpec::scoreModifier
  std::optional<::tg::codegen::AttentionForwardSpec::DocumentMask> documentMask;
  std::string distanceTerm;          // empty: no tabulated term
  std::string modifierTabulated;     // the modifier reading distance.at
  bool masksOnly = false;            // scoreRegionOnlyMasks (MaskingRegion.h)
  std::optional<::tg::codegen::AttentionForwardSpec::KeyBound> keyBound;  // findKeyBound
};

/// How a kernel reads element capture `name` at (b, h, `q`, `kv`).
using ElementCaptureReader =
    function_ref<std::string(const std::string &name, const std::string &q, const std::string &kv)>;

/// The texts of `op`'s score region (not the identity): `argNames` name the
/// region's arguments, `sizes` is the score tensor's [B, Hq, Sq, Skv]
/// (scoreRegionRanges), `fastMath` as for emitScalarRegion. Fails with the
/// region's diagnostic.
FailureOr<ScoreModifierText> emitScoreModifier(Operation *op, Region &score,
                                               ArrayRef<std::string> argNames,
                                               GatherEmitter emitGather, ArrayRef<int64_t> sizes,
                                               bool fastMath, ElementCaptureReader readElement);

} // namespace mlir::tg

#endif // TG_LIB_PLAN_SCOREMODIFIER_H
