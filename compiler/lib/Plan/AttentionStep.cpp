// tg.attention -> one launch of the generated FlashAttention-style kernel
// (compiler/include/tg/Codegen/AttentionKernel.h documents its parameters).
#include "AttentionStep.h"
#include "ScoreModifier.h"
#include "TableGather.h"

#include "tg/Codegen/AttentionKernel.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Masks/OpMasks.h"
#include "tg/Lowering/CudaPrelude.h"
#include "tg/Lowering/ScalarExpr.h"
#include "tg/Transforms/NvrtcKernelSpecs.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tg;
namespace cg = ::tg::codegen;

FailureOr<SmallVector<KernelStep, 0>>
mlir::tg::emitAttentionStep(AttentionOp op, const tgc::CompileTarget &target, bool fastMath,
                            StringRef tile, function_ref<SmallVector<int64_t>(Value)> stridesOf) {
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto kType = cast<RankedTensorType>(op.getK().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  Type elem = qType.getElementType();

  cg::AttentionForwardSpec spec;
  std::optional<cg::AttentionElementType> inType = nvrtcAttentionElementType(elem);
  Type outElem = cast<RankedTensorType>(op.getOutput().getType()).getElementType();
  std::optional<cg::AttentionElementType> outType = nvrtcAttentionElementType(outElem);
  const bool fp8 = op.isFp8();
  if (!inType || !outType || cg::isFp8(*inType) != fp8)
    return op.emitOpError("the NVRTC attention kernel takes bf16 or f16 "
                          "q/k/v, or fp8 ones with fp8_scales, got ")
           << elem;
  spec.elementType = *inType;
  if (!fp8 && outElem != elem)
    return op.emitOpError("the NVRTC attention kernel writes the output in "
                          "the element type of q/k/v");
  if (fp8) {
    // The fused FP8 kernel is sm_90a code only (fp8 wgmma); for other
    // targets tg-expand-attention expands FP8 attention (its target option).
    if (target.arch != 90 || !target.archSpecific)
      return op.emitOpError("FP8 attention reached the NVRTC lowering for "
                            "target ")
             << target.name()
             << ", which has no fused FP8 kernel (it needs sm_90a); "
                "tg-expand-attention expands it when told the target";
    spec.outputType = *outType;
  }
  // [B, H, S, D], or [T, H, D] packed (ragged): B and S then come from
  // cu_seqlens and the max_seqlen attributes.
  const bool ragged = op.isRagged();
  spec.ragged = ragged;
  // Paged: k, v [num_pages, page_size, Hkv, D], keys up to max_pages *
  // page_size.
  const bool paged = op.isPaged();
  spec.paged = paged;
  spec.pageSize = paged ? static_cast<int>(kType.getDimSize(1)) : 0;
  spec.headDimQK = qType.getDimSize(qType.getRank() - 1);
  spec.headDimV = vType.getDimSize(vType.getRank() - 1);
  spec.numHeadsQ = qType.getDimSize(1);
  spec.numHeadsKV = kType.getDimSize(paged ? 2 : 1);
  const int64_t batch =
      ragged ? cast<RankedTensorType>(op.getCuSeqlensQ().getType())
                       .getDimSize(0) -
                   1
             : qType.getDimSize(0);
  const int64_t seqQ = ragged ? static_cast<int64_t>(*op.getMaxSeqlenQ())
                              : qType.getDimSize(2);
  const int64_t seqKv =
      ragged  ? static_cast<int64_t>(*op.getMaxSeqlenKv())
      : paged ? cast<RankedTensorType>(op.getPageTable().getType()).getDimSize(1) *
                    kType.getDimSize(1)
              : kType.getDimSize(2);
  spec.setMasks(attentionMasks(op));
  for (Value len : {op.getSeqLenQ(), op.getSeqLenKv(), op.getCuSeqlensQ(),
                    op.getCuSeqlensKv()})
    if (len && !cast<RankedTensorType>(len.getType())
                    .getElementType()
                    .isInteger(32))
      return op.emitOpError("the NVRTC attention kernel reads i32 sequence "
                            "lengths and cu_seqlens (cast i64 ones first)");
  spec.dropoutProbability = op.getDropout().convertToDouble();
  spec.training = op.getTraining();
  spec.scale = op.getScale().convertToDouble();
  spec.target = target;

  // The score region becomes C++ statements that rewrite `s`.
  SmallVector<std::string> argNames{"s", "b", "h", "q_idx", "kv_idx"};
  SmallVector<bool> tables;
  for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
    auto captureType = cast<RankedTensorType>(capture.getType());
    Type captureElem = captureType.getElementType();
    std::optional<cg::CaptureType> type = nvrtcCaptureType(captureElem);
    if (!type)
      return op.emitOpError("the NVRTC attention kernel cannot capture ")
             << captureElem << " tensors";
    bool table = isTableCapture(op, i);
    if (table && captureType.getRank() > cg::kMaxTableRank)
      return op.emitOpError("the NVRTC attention kernel reads tables of rank "
                            "at most ")
             << cg::kMaxTableRank << ", got " << capture.getType();
    spec.captures.push_back(nvrtcCapture(i, *type, captureType, table));
    tables.push_back(table);
    argNames.push_back(spec.captures.back().name);
  }
  // tg.gather reads a table capture through the kernel's clamping reader;
  // fill mode tests the indices first.
  auto emitGather = [&](GatherOp gather, ArrayRef<std::string> indices)
      -> FailureOr<std::string> {
    return emitTableGather(gather, argNames, indices);
  };
  if (!op.hasIdentityScore()) {
    const SmallVector<int64_t, 4> sizes{batch, spec.numHeadsQ, seqQ, seqKv};
    FailureOr<ScoreModifierText> text = emitScoreModifier(
        op, op.getScore(), argNames, emitGather, sizes, fastMath,
        [](const std::string &name, const std::string &q, const std::string &kv) {
          return "load_capture_" + name + "(captures, b, h, " + q + ", " + kv + ")";
        });
    if (failed(text))
      return failure();
    spec.scoreModifier = text->modifier;
    spec.scoreModifierMasksOnly = text->masksOnly;
    spec.documentMask = text->documentMask;
    spec.keyBound = text->keyBound;
    spec.distanceTerm = text->distanceTerm;
    spec.scoreModifierTabulated = text->modifierTabulated;
  }

  // The layout strides (b, h, s) of q, k, v and o; the head dim must be
  // contiguous.
  SmallVector<SmallVector<int64_t>> layouts;
  for (Value value : {op.getQ(), op.getK(), op.getV(), op.getOutput()}) {
    SmallVector<int64_t> strides = stridesOf(value);
    int64_t rank = static_cast<int64_t>(strides.size());
    if (strides[rank - 1] != 1)
      return op.emitOpError("the NVRTC attention kernel needs a contiguous "
                            "head dimension (stride 1), got stride ")
             << strides[rank - 1];
    // 16-byte rows: multiples of 8 16-bit or 16 fp8 elements.
    const int64_t rowElements =
        isa<Float8E4M3FNType, Float8E5M2Type>(
            cast<RankedTensorType>(value.getType()).getElementType())
            ? 16
            : 8;
    for (int d = 0; d < rank - 1; ++d)
      if (strides[d] % rowElements != 0 &&
          cast<RankedTensorType>(value.getType()).getDimSize(d) > 1)
        return op.emitOpError("the NVRTC attention kernel needs 16-byte "
                              "aligned rows (strides that are multiples of ")
               << rowElements << " elements), got stride " << strides[d]
               << " in dimension " << d;
    // Packed [T, H, D]: no batch stride (the offsets place each sequence),
    // h and s strides from dims 1 and 0.
    if (ragged)
      strides = {0, strides[1], strides[0], strides[2]};
    // Paged k, v [num_pages, page_size, H, D]: the page stride in the b
    // slot, h and row strides from dims 2 and 1.
    if (paged && (value == op.getK() || value == op.getV()))
      strides = {strides[0], strides[2], strides[1], strides[3]};
    layouts.push_back(strides);
  }
  if (Value stats = op.getStats()) {
    SmallVector<int64_t> strides = stridesOf(stats);
    SmallVector<int64_t> dense = rowMajorStrides(
        cast<RankedTensorType>(stats.getType()).getShape());
    if (strides != dense)
      return op.emitOpError("the NVRTC attention kernel writes the stats "
                            "densely packed");
  }

  // Decode: few query rows per kv head (a GQA group's new tokens), with or
  // without a score region. One CTA per kv head then holds the group's
  // rows, and the key tiles are split among CTAs whose partial results a
  // combine kernel merges: otherwise each query head's CTA would fill 1 of
  // its 64-128 rows and read its kv head's cache again.
  const bool decode = cg::decodeKernelApplies(spec, seqQ, seqKv);
  spec.decode = decode;
  spec.decodeRows =
      decode ? static_cast<int>(spec.numHeadsQ / spec.numHeadsKV * seqQ) : 0;

  int64_t splits = 1;
  if (decode) {
    // The splits fill one wave of the target's SMs with its decode tile
    // (each kernel divides the key tiles among gridDim.x splits itself).
    int64_t blockN = cg::defaultAttentionTile(spec).blockN;
    splits = cg::decodeSplits(batch * spec.numHeadsKV,
                              (seqKv + blockN - 1) / blockN,
                              cg::decodeCtasPerSM(spec));
  }
  std::optional<cg::AttentionKernel> combine;
  // The first variant's kernel (its tile sets V^T's pitch; its prepare
  // kernel writes V^T).
  std::optional<cg::AttentionKernel> forwardKernel;

  // The launch of one generated kernel; the arguments are added below and
  // shared by every variant.
  std::optional<cg::AttentionTileConfig> tileOverride;
  bool tileUsed = false;
  if (!tile.empty()) {
    std::string error;
    tileOverride = cg::parseAttentionTile(tile.str(), &error);
    if (!tileOverride)
      return op.emitOpError("--attention-tile: ") << error;
  }
  auto generate = [&](tgc::CompileTarget variantTarget) -> FailureOr<KernelStep> {
    cg::AttentionForwardSpec variant = spec;
    variant.target = variantTarget;
    // A wgmma tile is the sm_90a variant's; any other the portable ones'.
    if (tileOverride && tileOverride->wgmma == variantTarget.archSpecific) {
      variant.tileOverride = tileOverride;
      tileUsed = true;
    }
    std::string error;
    std::optional<cg::AttentionKernel> kernel =
        cg::generateAttentionForward(variant, &error);
    if (!kernel)
      return op.emitOpError("the NVRTC attention kernel does not support "
                            "this configuration: ")
             << error;
    if (!forwardKernel)
      forwardKernel = *kernel;
    KernelStep step;
    step.name = "attention " + std::string(cg::toString(spec.elementType)) +
                " hd" + std::to_string(spec.headDimQK) +
                (kernel->requiredTarget.empty() ? "" : " " +
                                                      kernel->requiredTarget);
    // A score region is C++ over the generic kernels' helpers (tg_isub,
    // rounding, casts), so their prelude comes first.
    step.source = spec.scoreModifier.empty()
                      ? kernel->source
                      : cudaPrelude().str() + "\n" + kernel->source;
    step.entry = kernel->entry;
    step.earlyLaunch = kernel->earlyLaunch;
    step.grid = kernel->grid(batch, spec.numHeadsQ, seqQ);
    if (decode) {
      // One split count for every variant (the kernel divides its tiles).
      step.grid = {static_cast<unsigned>(splits),
                   static_cast<unsigned>(spec.numHeadsKV),
                   static_cast<unsigned>(batch)};
      combine = *kernel;
    }
    step.block = {kernel->threads, 1, 1};
    step.sharedBytes = kernel->sharedBytes;
    step.target = kernel->requiredTarget.empty()
                      ? tgc::KernelTarget::portable(variantTarget.arch)
                      : tgc::KernelTarget::archSpecific(variantTarget.arch);
    return step;
  };
  // The portable kernel tuned for sm_80 runs everywhere (also as PTX); when
  // tuning for a newer target, kernels tuned for it (larger tiles) are
  // preferred on the devices that can run them, and, for an arch-specific
  // target only (sm_90a, as NVRTC means the suffix), kernels that use its
  // arch-specific features (wgmma) before those.
  // (FP8: the sm_90a kernel alone; a plan with it runs on compute
  // capability 9.0 only, and says so when loaded elsewhere.)
  FailureOr<KernelStep> portable = generate(
      fp8 ? target : tgc::CompileTarget::cubin(tgc::kMinTargetArch));
  if (failed(portable))
    return failure();
  KernelStep step = std::move(*portable);
  if (target.arch > tgc::kMinTargetArch && !fp8) {
    if (target.archSpecific) {
      FailureOr<KernelStep> exact = generate(target);
      if (failed(exact))
        return failure();
      if (exact->target.kind == tgc::KernelTarget::Kind::ArchSpecific)
        step.preferred.push_back(std::move(*exact));
    }
    FailureOr<KernelStep> tuned = generate(tgc::CompileTarget::cubin(target.arch));
    if (failed(tuned))
      return failure();
    if (tuned->source != step.source)
      step.preferred.push_back(std::move(*tuned));
  }
  if (tileOverride && !tileUsed)
    return op.emitOpError("--attention-tile ")
           << tile << (tileOverride->wgmma ? " is a wgmma tile, but this plan has no sm_90a kernel (target "
                                             : " is a portable tile, but this plan's kernel is sm_90a code only (target ")
           << target.name() << (fp8 ? ", FP8)" : ")");

  // An unused pointer parameter is passed as a 64-bit zero (a null pointer).
  auto optionalBuffer = [&](Value value) {
    return value ? KernelArg::buffer(value) : KernelArg::int64(0);
  };
  step.args = {KernelArg::buffer(op.getQ()),
               KernelArg::buffer(op.getK()),
               KernelArg::buffer(op.getV()),
               KernelArg::buffer(op.getOutput()),
               optionalBuffer(op.getStats()),
               optionalBuffer(ragged ? op.getCuSeqlensQ() : op.getSeqLenQ()),
               optionalBuffer(ragged ? op.getCuSeqlensKv() : op.getSeqLenKv()),
               optionalBuffer(op.getSeed()),
               optionalBuffer(op.getOffset()),
               KernelArg::int64(batch),
               KernelArg::int64(spec.numHeadsQ),
               KernelArg::int64(seqQ),
               KernelArg::int64(seqKv)};
  if (ragged) {
    step.args.push_back(KernelArg::int64(qType.getDimSize(0)));
    step.args.push_back(KernelArg::int64(kType.getDimSize(0)));
  }
  if (paged) {
    SmallVector<int64_t> tableStrides = stridesOf(op.getPageTable());
    if (tableStrides[1] != 1)
      return op.emitOpError("the NVRTC attention kernel reads the page "
                            "table's rows contiguously, got stride ")
             << tableStrides[1];
    step.args.push_back(KernelArg::buffer(op.getPageTable()));
    step.args.push_back(KernelArg::int64(tableStrides[0]));
    step.args.push_back(KernelArg::int64(kType.getDimSize(0)));
  }
  Builder builder(op.getContext());
  const int64_t dimV = spec.headDimV;
  KernelArg oPartial = KernelArg::scratch(
      op, 0, builder.getF32Type(), {splits, batch, spec.numHeadsQ, seqQ, dimV});
  KernelArg lsePartial = KernelArg::scratch(
      op, 1, builder.getF32Type(), {splits, batch, spec.numHeadsQ, seqQ});
  if (decode) {
    step.args.push_back(oPartial);
    step.args.push_back(lsePartial);
  }
  for (const SmallVector<int64_t> &strides : layouts)
    for (int d = 0; d < 3; ++d)
      step.args.push_back(KernelArg::int64(strides[d]));
  // FP8: the six scales, the amax results (zeroed first: the kernel raises
  // them atomically) and V^T, which the prepare kernel writes first.
  const int64_t vtPitch = fp8 ? forwardKernel->fp8TransposedPitch(seqKv) : 0;
  KernelArg vTransposed = KernelArg::scratch(
      op, 2, builder.getIntegerType(8),
      {batch * spec.numHeadsKV, spec.headDimV, std::max<int64_t>(vtPitch, 1)});
  if (fp8) {
    for (Value scale : op.getFp8Scales())
      step.args.push_back(KernelArg::buffer(scale));
    for (Value amax : {op.getAmaxS(), op.getAmaxO()}) {
      step.args.push_back(optionalBuffer(amax));
      if (amax)
        step.zeroFirst.push_back(KernelArg::buffer(amax));
    }
    step.args.push_back(vTransposed);
    step.args.push_back(KernelArg::int64(vtPitch));
  }
  for (auto [capture, table] : llvm::zip(op.getCaptures(), tables)) {
    auto type = cast<RankedTensorType>(capture.getType());
    SmallVector<int64_t> strides = stridesOf(capture);
    if (table) {
      appendTableArgs(step.args, capture, strides);
      continue;
    }
    step.args.push_back(KernelArg::buffer(capture));
    for (int d = 0; d < 4; ++d)
      step.args.push_back(
          KernelArg::int64(type.getDimSize(d) == 1 ? 0 : strides[d]));
  }
  if (!decode)
    step.outputs.push_back(op.getOutput());
  if (Value stats = op.getStats())
    step.outputs.push_back(stats);
  for (Value amax : {op.getAmaxS(), op.getAmaxO()})
    if (amax)
      step.outputs.push_back(amax);
  for (KernelStep &variant : step.preferred) {
    variant.args = step.args;
    variant.outputs = step.outputs;
  }
  SmallVector<KernelStep, 0> steps;
  if (fp8) {
    // V^T for the forward's P V (device/attention_fp8_prepare.cuh).
    KernelStep prepare;
    prepare.name = "attention fp8 V^T dv" + std::to_string(dimV);
    prepare.source = forwardKernel->prepareSource;
    prepare.entry = forwardKernel->prepareEntry;
    prepare.earlyLaunch = forwardKernel->earlyLaunch;
    prepare.grid = {static_cast<unsigned>(vtPitch / forwardKernel->prepareKeysPerBlock),
                    static_cast<unsigned>(spec.numHeadsKV),
                    static_cast<unsigned>(batch)};
    prepare.block = {forwardKernel->prepareThreads, 1, 1};
    prepare.target = tgc::KernelTarget::portable(tgc::kMinTargetArch);
    prepare.args = {KernelArg::buffer(op.getV())};
    for (int d = 0; d < 3; ++d)
      prepare.args.push_back(KernelArg::int64(layouts[2][d]));
    prepare.args.push_back(optionalBuffer(op.getSeqLenKv()));
    prepare.args.push_back(KernelArg::int64(seqKv));
    prepare.args.push_back(vTransposed);
    prepare.args.push_back(KernelArg::int64(vtPitch));
    steps.push_back(std::move(prepare));
  }
  steps.push_back(std::move(step));
  if (!decode)
    return steps;
  // The combine kernel: the splits' partial outputs into o.
  KernelStep merge;
  merge.name = "attention decode combine " +
               std::string(cg::toString(spec.elementType)) + " dv" +
               std::to_string(dimV);
  merge.source = combine->combineSource;
  merge.entry = combine->combineEntry;
  merge.earlyLaunch = combine->earlyLaunch;
  int64_t rows = batch * spec.numHeadsQ * seqQ;
  merge.grid = {static_cast<unsigned>((rows + combine->combineRowsPerBlock - 1) /
                                      combine->combineRowsPerBlock),
                1, 1};
  merge.block = {cg::kDecodeCombineThreads, 1, 1};
  merge.args = {oPartial,
                lsePartial,
                KernelArg::buffer(op.getOutput()),
                KernelArg::int64(splits),
                KernelArg::int64(batch),
                KernelArg::int64(spec.numHeadsQ),
                KernelArg::int64(seqQ)};
  for (int d = 0; d < 3; ++d)
    merge.args.push_back(KernelArg::int64(layouts[3][d]));
  merge.outputs = {op.getOutput()};
  steps.push_back(std::move(merge));
  return steps;
}
