// The rules of what the generated attention kernels run (NvrtcSupport.h).
#include "tg/Transforms/NvrtcSupport.h"
#include "tg/Transforms/NvrtcKernelSpecs.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Masks/OpMasks.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
namespace cg = ::tg::codegen;

static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

cg::AttentionCapture mlir::tg::nvrtcCapture(unsigned index, cg::CaptureType type,
                                           RankedTensorType captureType, bool table) {
  cg::AttentionCapture capture{"capture" + std::to_string(index), type,
                               table ? static_cast<int>(captureType.getRank()) : 0};
  if (!table)
    for (int d = 0; d < 4; ++d)
      capture.broadcast[d] = captureType.getDimSize(d) == 1;
  return capture;
}

std::optional<cg::AttentionElementType>
mlir::tg::nvrtcAttentionElementType(Type type) {
  if (type.isBF16())
    return cg::AttentionElementType::BF16;
  if (type.isF16())
    return cg::AttentionElementType::F16;
  if (isa<Float8E4M3FNType>(type))
    return cg::AttentionElementType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return cg::AttentionElementType::E5M2;
  return std::nullopt;
}

std::optional<cg::CaptureType> mlir::tg::nvrtcCaptureType(Type type) {
  if (type.isF32())
    return cg::CaptureType::F32;
  if (type.isF16())
    return cg::CaptureType::F16;
  if (type.isBF16())
    return cg::CaptureType::BF16;
  if (type.isInteger(1))
    return cg::CaptureType::Bool;
  if (type.isInteger(8))
    return cg::CaptureType::I8;
  if (type.isInteger(32))
    return cg::CaptureType::I32;
  if (type.isInteger(64))
    return cg::CaptureType::I64;
  return std::nullopt;
}

/// FP8 attention on the fused sm_90a kernel (device/attention_fwd_fp8.cuh):
/// the generator's rules on the op's shapes and options.
static std::string fp8UnsupportedReason(AttentionOp op, StringRef target) {
  if (target != "sm_90a")
    return "FP8 attention has a fused kernel for target sm_90a only (" +
           (target.empty() ? std::string("no target given")
                           : "target " + target.str()) +
           ")";
  std::optional<cg::AttentionElementType> in =
      nvrtcAttentionElementType(elementTypeOf(op.getQ()));
  std::optional<cg::AttentionElementType> out =
      nvrtcAttentionElementType(elementTypeOf(op.getOutput()));
  if (!in || !cg::isFp8(*in) || !out)
    return "the fused FP8 kernel takes fp8 q, k, v and an fp8, bf16 or f16 "
           "output";
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  auto v = cast<RankedTensorType>(op.getV().getType());
  cg::AttentionForwardSpec spec;
  spec.elementType = *in;
  spec.outputType = *out;
  spec.headDimQK = q.getDimSize(q.getRank() - 1);
  spec.headDimV = v.getDimSize(v.getRank() - 1);
  spec.numHeadsQ = q.getDimSize(1);
  spec.numHeadsKV = k.getDimSize(op.isPaged() ? 2 : 1);
  spec.setMasks(attentionMasks(op));
  spec.ragged = op.isRagged();
  spec.paged = op.isPaged();
  spec.pageSize = op.isPaged() ? static_cast<int>(k.getDimSize(1)) : 0;
  spec.dropoutProbability = op.getDropout().convertToDouble();
  spec.training = op.getTraining();
  spec.scale = op.getScale().convertToDouble();
  spec.target = tgc::CompileTarget::cubin(90, /*archSpecific=*/true);
  // (a stand-in for the region's C++: the rule is that there is none)
  if (!op.hasIdentityScore() || !op.getCaptures().empty())
    spec.scoreModifier = "/* score region */";
  std::string problem = cg::validateAttentionSpec(spec);
  if (!problem.empty())
    return "the fused FP8 kernel does not support it: " + problem;
  return "";
}

std::string mlir::tg::nvrtcAttentionUnsupportedReason(AttentionOp op,
                                                      StringRef target) {
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv()})
    if (len && !elementTypeOf(len).isInteger(32))
      return "the fused kernel reads i32 sequence lengths";
  if (op.isFp8())
    return fp8UnsupportedReason(op, target);
  Type elem = elementTypeOf(op.getQ());
  if (!(elem.isBF16() || elem.isF16()) || elementTypeOf(op.getOutput()) != elem)
    return "the fused kernel takes bf16 or f16 q, k, v and output of one type";
  for (Value v : {op.getQ(), op.getV()}) {
    // The head dim is the last dimension, dense or ragged.
    auto type = cast<RankedTensorType>(v.getType());
    int64_t headDim = type.getDimSize(type.getRank() - 1);
    if (!cg::headDimFits(headDim))
      return "head dim " + std::to_string(headDim) +
             " is not a multiple of 8 up to 256";
  }
  for (Value cu : {op.getCuSeqlensQ(), op.getCuSeqlensKv()})
    if (cu && !elementTypeOf(cu).isInteger(32))
      return "the fused kernel reads i32 cu_seqlens";
  for (Value capture : op.getCaptures())
    if (!nvrtcCaptureType(elementTypeOf(capture)))
      return "the fused kernel cannot capture " +
             typeName(elementTypeOf(capture)) + " tensors";
  return "";
}

std::optional<cg::AttentionBackwardSpec>
mlir::tg::nvrtcAttentionGradSpec(AttentionGradOp op, std::string &reason) {
  Type elem = elementTypeOf(op.getQ());
  cg::AttentionBackwardSpec spec;
  if (elem.isBF16())
    spec.elementType = cg::AttentionElementType::BF16;
  else if (elem.isF16())
    spec.elementType = cg::AttentionElementType::F16;
  else {
    reason = "the fused backward takes bf16 or f16 tensors, got " +
             typeName(elem);
    return std::nullopt;
  }
  for (Value v : {op.getK(), op.getV(), op.getO(), op.getDO()})
    if (elementTypeOf(v) != elem) {
      reason = "the fused backward takes q, k, v, o and d_o of one element "
               "type";
      return std::nullopt;
    }
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  auto v = cast<RankedTensorType>(op.getV().getType());
  // The head dim is the last dimension, dense or ragged.
  spec.headDimQK = q.getDimSize(q.getRank() - 1);
  spec.headDimV = v.getDimSize(v.getRank() - 1);
  spec.numHeadsQ = q.getDimSize(1);
  spec.numHeadsKV = k.getDimSize(1);
  spec.setMasks(attentionMasks(op));
  spec.ragged = op.isRagged();
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv(), op.getCuSeqlensQ(),
                    op.getCuSeqlensKv()})
    if (len && !elementTypeOf(len).isInteger(32)) {
      reason = "the fused backward reads i32 sequence lengths and cu_seqlens";
      return std::nullopt;
    }
  spec.dropoutProbability = op.getDropout().convertToDouble();
  spec.scale = op.getScale().convertToDouble();
  for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
    std::optional<cg::CaptureType> type =
        nvrtcCaptureType(elementTypeOf(capture));
    if (!type) {
      reason = "the fused backward cannot capture " +
               typeName(elementTypeOf(capture)) + " tensors";
      return std::nullopt;
    }
    auto captureType = cast<RankedTensorType>(capture.getType());
    bool table = isTableCapture(op, i);
    if (table && captureType.getRank() > cg::kMaxTableRank) {
      reason = "the fused backward reads tables of rank at most " +
               std::to_string(cg::kMaxTableRank) + ", got " +
               typeName(capture.getType());
      return std::nullopt;
    }
    spec.captures.push_back(nvrtcCapture(i, *type, captureType, table));
  }
  // Stand-ins for the region's C++ so that the capture rules are checked.
  if (!spec.captures.empty())
    spec.scoreModifier = "/* score region */";
  std::string problem = cg::validateAttentionBackwardSpec(spec);
  if (!problem.empty()) {
    reason = "the fused backward does not support it: " + problem;
    return std::nullopt;
  }
  spec.scoreModifier.clear();
  return spec;
}

std::string mlir::tg::nvrtcAttentionGradUnsupportedReason(AttentionGradOp op) {
  std::string reason;
  if (nvrtcAttentionGradSpec(op, reason))
    return "";
  return reason;
}

bool mlir::tg::nvrtcDecodeKernelApplies(AttentionOp op) {
  if (!nvrtcAttentionUnsupportedReason(op).empty() || op.isRagged())
    return false;
  bool gathers = false;
  op.getScoreBlock().walk([&](GatherOp) { gathers = true; });
  if (gathers)
    return false;
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  cg::AttentionForwardSpec spec;
  spec.numHeadsQ = q.getDimSize(1);
  spec.numHeadsKV = op.isPaged() ? k.getDimSize(2) : k.getDimSize(1);
  spec.dropoutProbability = op.getDropout().convertToDouble();
  spec.training = op.getTraining();
  spec.hasSeqLenQ = static_cast<bool>(op.getSeqLenQ());
  int64_t seqKv =
      op.isPaged()
          ? cast<RankedTensorType>(op.getPageTable().getType()).getDimSize(1) *
                k.getDimSize(1)
          : k.getDimSize(2);
  return cg::decodeKernelApplies(spec, q.getDimSize(2), seqKv);
}
