// The score region's C++ for the fused kernels (ScoreModifier.h).
#include "ScoreModifier.h"

#include "DistanceTerm.h"
#include "DocumentMask.h"
#include "KeyBound.h"
#include "MaskingRegion.h"

using namespace mlir;
using namespace mlir::tg;

FailureOr<ScoreModifierText>
mlir::tg::emitScoreModifier(Operation *op, Region &score, ArrayRef<std::string> argNames,
                            GatherEmitter emitGather, ArrayRef<int64_t> sizes, bool fastMath,
                            ElementCaptureReader readElement) {
  ScoreModifierText text;
  // A document mask lets each CTA skip the tiles of other documents, and
  // its tiles in one document skip the test (ScoreMod::apply's
  // kSameDocument).
  std::optional<DocumentIds> ids =
      findDocumentMask(op, argNames, emitGather, [&](const std::string &name, bool atQuery) {
        return readElement(name, atQuery ? "q_idx" : "0", atQuery ? "0" : "kv_idx");
      });
  SmallVector<ExprRewrite> rewrites;
  if (ids) {
    text.documentMask = ::tg::codegen::AttentionForwardSpec::DocumentMask{ids->query, ids->key};
    rewrites.push_back({ids->equality, [](const std::string &expr) {
                          return "kSameDocument || (" + expr + ")";
                        }});
  }
  SmallVector<std::optional<IndexRange>> ranges = scoreRegionRanges(argNames.size(), sizes);
  FailureOr<std::string> body =
      emitScalarRegion(score, argNames, "s", emitGather, ranges, fastMath, rewrites);
  if (failed(body))
    return failure();
  text.modifier = *body;
  text.masksOnly = scoreRegionOnlyMasks(score);
  // A key bound (prefix-LM) lets each CTA skip the key tiles past it.
  text.keyBound = findKeyBound(op, argNames, emitGather,
                               [&](const std::string &name) { return readElement(name, "0", "0"); });
  // A costly term of q_idx - kv_idx only: the sm_90a kernels tabulate it.
  std::optional<DistanceTerm> term =
      findDistanceTerm(op, argNames, emitGather, ranges, sizes[2], sizes[3], fastMath,
                       [&](const std::string &name) { return readElement(name, "0", "0"); });
  if (!term)
    return text;
  rewrites.push_back({term->term,
                      [](const std::string &) { return std::string("distance.at(q_idx, kv_idx)"); },
                      /*replacesOperands=*/true});
  FailureOr<std::string> tabulated =
      emitScalarRegion(score, argNames, "s", emitGather, ranges, fastMath, rewrites);
  if (failed(tabulated))
    return failure();
  text.distanceTerm = term->statements;
  text.modifierTabulated = *tabulated;
  return text;
}
