// tg.attention_grad -> the three launches of the fused backward
// (compiler/include/tg/Codegen/AttentionBackward.h documents their
// parameters).
#include "AttentionGradStep.h"
#include "ScoreModifier.h"
#include "TableGather.h"

#include "tg/Codegen/AttentionBackward.h"
#include "tg/Dialect/TG/IR/ScoreGradient.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/CudaPrelude.h"
#include "tg/Lowering/ScalarExpr.h"
#include "tg/Transforms/NvrtcKernelSpecs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tg;
namespace cg = ::tg::codegen;

/// [B, Hq, Sq, Skv] of the scores (packed: the max_seqlen attributes).
static SmallVector<int64_t, 4> scoreSizes(AttentionGradOp op) {
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  if (op.isRagged())
    return {cast<RankedTensorType>(op.getCuSeqlensQ().getType()).getDimSize(0) - 1, q.getDimSize(1),
            static_cast<int64_t>(*op.getMaxSeqlenQ()), static_cast<int64_t>(*op.getMaxSeqlenKv())};
  return {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), k.getDimSize(2)};
}

/// Scratch buffers of one op's steps (KernelArg::scratch indices); capture
/// gradient n's f32 accumulator is kCaptureGrad0 + n.
enum ScratchIndex : unsigned { kDelta = 0, kDqAccum = 1, kSemaphores = 2, kCaptureGrad0 = 3 };
/// The ragged layout's [B, Hq, max_seqlen_q] copy of the stats: after the
/// capture gradients' (at most one per capture).
static unsigned lseRowsScratch(AttentionGradOp op) {
  return kCaptureGrad0 + static_cast<unsigned>(op.getCaptures().size());
}

/// The 4-d sizes and destination strides of the capture gradient conversion
/// (a dense f32 source) for a result of `shape` at `strides`: dimensions of
/// size 1 dropped, neighbours that are contiguous in the result merged,
/// leading ones added. Fails if more than 4 remain.
static FailureOr<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
convertDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  SmallVector<int64_t> sizes, dst;
  for (auto [size, stride] : llvm::zip(shape, strides)) {
    if (size == 1)
      continue;
    if (!sizes.empty() && dst.back() == stride * size) {
      sizes.back() *= size;
      dst.back() = stride;
      continue;
    }
    sizes.push_back(size);
    dst.push_back(stride);
  }
  if (sizes.size() > 4)
    return failure();
  while (sizes.size() < 4) {
    sizes.insert(sizes.begin(), 1);
    dst.insert(dst.begin(), 0);
  }
  return std::make_pair(sizes, dst);
}

/// The gradient of table capture `index` as C++ statements of the backward's
/// add_capture_gradients (AttentionCaptureGradient): the score region is
/// evaluated again to record where each of its gathers of the table read,
/// then each gather's derivative (the region's with respect to that
/// gather's result, times dz) is added there with `<table>_grad_add`; a
/// fill-mode gather that read out of range adds nothing.
static FailureOr<std::string>
emitTableGradient(AttentionGradOp op, int64_t index,
                  ArrayRef<std::string> argNames, GatherEmitter emitGather) {
  Block &score = op.getScoreBlock();
  Value table = score.getArgument(AttentionOp::kNumIndexArgs + index);
  const std::string &name = argNames[AttentionOp::kNumIndexArgs + index];
  int64_t rank = cast<RankedTensorType>(op.getCaptures()[index].getType()).getRank();
  SmallVector<GatherOp> gathers;
  for (Operation &inner : score.without_terminator())
    if (auto gather = dyn_cast<GatherOp>(inner);
        gather && gather.getTable() == table)
      gathers.push_back(gather);
  // Gather k read at dcap_at<k>[..] when dcap_read<k>.
  auto at = [&](size_t k, int64_t d) {
    return "dcap_at" + std::to_string(k) + "[" + std::to_string(d) + "]";
  };
  auto read = [&](size_t k) { return "dcap_read" + std::to_string(k); };
  std::string text;
  for (size_t k = 0; k < gathers.size(); ++k)
    text += "long long dcap_at" + std::to_string(k) + "[" +
            std::to_string(rank) + "];\nbool " + read(k) + " = true;\n";
  auto recording = [&](GatherOp gather, ArrayRef<std::string> indices)
      -> FailureOr<std::string> {
    FailureOr<std::string> value = emitGather(gather, indices);
    auto it = llvm::find(gathers, gather);
    if (failed(value) || it == gathers.end())
      return value;
    size_t k = it - gathers.begin();
    std::string expr = "(";
    for (auto [d, i] : llvm::enumerate(indices))
      expr += at(k, d) + " = " + i + ", ";
    if (gather.getMode() != GatherMode::clamp) {
      std::string list = "captures";
      for (const std::string &i : indices)
        list += ", " + i;
      expr += read(k) + " = " + name + "_in_range(" + list + "), ";
    }
    return expr + *value + ")";
  };
  FailureOr<std::string> replay =
      emitScalarRegion(op.getScore(), argNames, "replay", recording,
                       scoreRegionRanges(argNames.size(), scoreSizes(op)));
  if (failed(replay))
    return failure();
  Type resultType =
      cast<ShapedType>(score.getTerminator()->getOperand(0).getType())
          .getElementType();
  text += "{  // where the region reads " + name + "\n  [[maybe_unused]] " +
          cudaComputeType(resultType).str() + " replay = s;\n" + *replay +
          "\n}\n";
  SmallVector<std::string> gradArgs(argNames.begin(), argNames.end());
  gradArgs.push_back("dz");
  for (auto [k, gather] : llvm::enumerate(gathers)) {
    std::string whyNot;
    FailureOr<std::unique_ptr<Block>> block =
        deriveScoreGradient(score, gather.getResult(), &whyNot);
    if (failed(block))
      return op.emitOpError("cannot derive the gradient of table capture ")
             << index << ": " << whyNot;
    Region region;
    region.push_back(block->release());
    FailureOr<std::string> body =
        emitScalarRegion(region, gradArgs, "dcap", emitGather);
    if (failed(body))
      return failure();
    std::string add = name + "_grad_add(dcap";
    for (int64_t d = 0; d < rank; ++d)
      add += ", " + at(k, d);
    text += "if (" + read(k) + ") {  // gather " + std::to_string(k) +
            "\n  float dcap = 0.0f;\n" + *body + "\n  " + add + ");\n}\n";
  }
  return text;
}

FailureOr<SmallVector<KernelStep, 0>> mlir::tg::emitAttentionGradSteps(
    AttentionGradOp op, const tgc::CompileTarget &target, bool deterministic, bool fastMath,
    function_ref<SmallVector<int64_t>(Value)> stridesOf) {
  std::string reason;
  std::optional<cg::AttentionBackwardSpec> base =
      nvrtcAttentionGradSpec(op, reason);
  if (!base)
    return op.emitOpError("has no fused backward kernel: ")
           << reason << " (tg-expand-attention expands such ops)";
  cg::AttentionBackwardSpec spec = *base;
  spec.deterministic = deterministic;
  const SmallVector<int64_t, 4> sizes = scoreSizes(op);

  // The score region and its gradient as C++ statements.
  SmallVector<std::string> argNames{"s", "b", "h", "q_idx", "kv_idx"};
  for (const cg::AttentionCapture &c : spec.captures)
    argNames.push_back(c.name);
  // Table captures are read through the kernel's clamping readers, in the
  // score region and in the gradient blocks (which clone its gathers).
  auto emitGather = [&](GatherOp gather, ArrayRef<std::string> indices)
      -> FailureOr<std::string> {
    return emitTableGather(gather, argNames, indices);
  };
  if (!op.hasIdentityScore()) {
    FailureOr<ScoreModifierText> text = emitScoreModifier(
        op, op.getScore(), argNames, emitGather, sizes, fastMath,
        [](const std::string &name, const std::string &q, const std::string &kv) {
          return name + "_at(b, h, " + q + ", " + kv + ")";
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
  // The score_grad region, or the chain rule derived through `score`; a
  // gradient that is dz itself (bias, ALiBi, masks) needs no code.
  std::unique_ptr<Block> derived;
  std::string whyNot;
  FailureOr<Block *> gradBlock = scoreGradientBlock(op, derived, &whyNot);
  if (failed(gradBlock))
    return op.emitOpError("cannot derive the gradient of the score region: ")
           << whyNot << "; give a score_grad region";
  Block &grad = **gradBlock;
  Value yielded = grad.getTerminator()->getOperand(0);
  if (yielded != grad.getArguments().back()) {
    SmallVector<std::string> gradArgs = argNames;
    gradArgs.push_back("dz");
    // emitScalarRegion reads a region: lend it the block for the call.
    Region region;
    bool lent = derived != nullptr;
    if (lent)
      region.push_back(derived.release());
    FailureOr<std::string> body =
        emitScalarRegion(lent ? region : op.getScoreGrad(), gradArgs, "ds", emitGather,
                         scoreRegionRanges(gradArgs.size(), sizes), fastMath);
    if (failed(body))
      return failure();
    spec.scoreGradient = *body;
  }

  // Gradients of listed captures: the derivative with respect to the
  // captured element, as C++ that assigns `dcap`.
  ArrayRef<int64_t> listed;
  if (auto indices = op.getGradCaptures())
    listed = *indices;
  for (int64_t index : listed) {
    if (isTableCapture(op, index)) {
      if (deterministic)
        return op.emitOpError("the deterministic backward cannot add the "
                              "gradient of table capture ")
               << index
               << ": its elements are sums of f32 atomics at positions the "
                  "score region computes, in no fixed order; compile "
                  "without --deterministic";
      FailureOr<std::string> body =
          emitTableGradient(op, index, argNames, emitGather);
      if (failed(body))
        return failure();
      spec.captureGradients.push_back({spec.captures[index].name, *body});
      continue;
    }
    if (deterministic) {
      // One CTA thread adds each score's contribution, so a sum over a
      // broadcast dimension is a race of f32 atomics, except over the query
      // heads of one kv head (one CTA, one after another).
      auto type = cast<RankedTensorType>(op.getCaptures()[index].getType());
      // [B, Hq, Sq] and Skv, of the ragged layout's views too.
      ArrayRef<int64_t> qShape =
          cast<RankedTensorType>(op.getQ().getType()).getShape();
      SmallVector<int64_t> q(qShape);
      int64_t skv = cast<RankedTensorType>(op.getK().getType()).getDimSize(2);
      if (op.isRagged()) {
        q = {cast<RankedTensorType>(op.getCuSeqlensQ().getType()).getDimSize(0) - 1,
             qShape[1], static_cast<int64_t>(*op.getMaxSeqlenQ())};
        skv = static_cast<int64_t>(*op.getMaxSeqlenKv());
      }
      int64_t hkv = cast<RankedTensorType>(op.getK().getType()).getDimSize(1);
      bool ordered = (type.getDimSize(0) == q[0] || q[0] == 1) &&
                     (type.getDimSize(1) == q[1] || hkv == 1) &&
                     (type.getDimSize(2) == q[2] || q[2] == 1) &&
                     (type.getDimSize(3) == skv || skv == 1);
      if (!ordered)
        return op.emitOpError("the deterministic backward cannot sum the "
                              "gradient of capture ")
               << index << " (" << type
               << ") over its broadcast dimensions: that is a race of f32 "
                  "atomics; give the capture the scores' shape or compile "
                  "without --deterministic";
    }
    FailureOr<std::unique_ptr<Block>> block = deriveScoreGradient(
        op.getScoreBlock(), AttentionOp::kNumIndexArgs + index, &whyNot);
    if (failed(block))
      return op.emitOpError("cannot derive the gradient of capture ")
             << index << ": " << whyNot;
    SmallVector<std::string> gradArgs = argNames;
    gradArgs.push_back("dz");
    Region region;
    region.push_back(block->release());
    FailureOr<std::string> body = emitScalarRegion(
        region, gradArgs, "dcap", {}, scoreRegionRanges(gradArgs.size(), sizes), fastMath);
    if (failed(body))
      return failure();
    spec.captureGradients.push_back({spec.captures[index].name, *body});
  }

  // Layouts: head dims contiguous, 16-byte rows; stats dense.
  auto checkLayout = [&](Value value,
                         StringRef what) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> strides = stridesOf(value);
    auto type = cast<RankedTensorType>(value.getType());
    int rank = static_cast<int>(strides.size());
    if (strides[rank - 1] != 1)
      return op.emitOpError("the fused backward needs a contiguous head "
                            "dimension (stride 1) for ")
             << what << ", got stride " << strides[rank - 1];
    for (int d = 0; d < rank - 1; ++d)
      if (strides[d] % 8 != 0 && type.getDimSize(d) > 1)
        return op.emitOpError("the fused backward needs 16-byte aligned rows "
                              "(strides that are multiples of 8 elements); ")
               << what << " has stride " << strides[d] << " in dimension "
               << d;
    // Packed [T, H, D]: no batch stride (the offsets place each sequence).
    if (op.isRagged())
      strides = {0, strides[1], strides[0], strides[2]};
    return strides;
  };
  SmallVector<SmallVector<int64_t>> layouts;
  for (auto [value, what] :
       {std::pair<Value, StringRef>{op.getQ(), "q"}, {op.getK(), "k"},
        {op.getV(), "v"}, {op.getO(), "o"}, {op.getDO(), "d_o"},
        {op.getDq(), "dq"}, {op.getDk(), "dk"}, {op.getDv(), "dv"}}) {
    FailureOr<SmallVector<int64_t>> strides = checkLayout(value, what);
    if (failed(strides))
      return failure();
    layouts.push_back(*strides);
  }
  enum { Q, K, V, O, DO, DQ, DK, DV };
  SmallVector<int64_t> statsStrides = stridesOf(op.getStats());
  if (statsStrides !=
      rowMajorStrides(cast<RankedTensorType>(op.getStats().getType()).getShape()))
    return op.emitOpError("the fused backward reads the stats densely packed");

  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto kType = cast<RankedTensorType>(op.getK().getType());
  const bool ragged = op.isRagged();
  const int64_t batch = sizes[0], heads = sizes[1], seqQ = sizes[2], seqKv = sizes[3];
  const int64_t kvHeads = kType.getDimSize(1);
  // A score region is C++ over the generic kernels' helpers (rounding,
  // casts), so their prelude comes first.
  bool needsPrelude =
      !spec.scoreModifier.empty() || !spec.scoreGradient.empty();
  auto withPrelude = [&](const std::string &source) {
    return needsPrelude ? cudaPrelude().str() + "\n" + source : source;
  };
  // One dQ accumulator layout for every kernel of the plan: swizzled where
  // the sm_90a variant is the wgmma kernel (its bulk reductions need it).
  {
    cg::AttentionBackwardSpec planSpec = spec;
    planSpec.target = target;
    spec.dqAccumSwizzled = cg::backwardSwizzlesDQAccum(planSpec);
  }
  auto generate = [&](tgc::CompileTarget variantTarget)
      -> FailureOr<cg::AttentionBackwardKernels> {
    cg::AttentionBackwardSpec variant = spec;
    variant.target = variantTarget;
    std::string error;
    std::optional<cg::AttentionBackwardKernels> kernels =
        cg::generateAttentionBackward(variant, &error);
    if (!kernels)
      return op.emitOpError("the fused backward does not support this "
                            "configuration: ")
             << error;
    return *kernels;
  };
  const tgc::KernelTarget anyArch = tgc::KernelTarget::portable(tgc::kMinTargetArch);
  auto launchStep = [&](const cg::AttentionBackwardLaunch &l, StringRef name,
                        tgc::KernelTarget where, std::string source) {
    KernelStep step;
    step.name = name.str();
    step.source = std::move(source);
    step.entry = l.entry;
    step.grid = l.gridFor(batch, heads, kvHeads, seqQ, seqKv);
    step.block = {l.threads, 1, 1};
    step.sharedBytes = l.sharedBytes;
    step.target = where;
    step.earlyLaunch = l.earlyLaunch;
    return step;
  };
  FailureOr<cg::AttentionBackwardKernels> portable =
      generate(tgc::CompileTarget::cubin(tgc::kMinTargetArch));
  if (failed(portable))
    return failure();
  std::string label = std::string(cg::toString(spec.elementType)) + " hd" +
                      std::to_string(spec.headDimQK);

  Builder b(op.getContext());
  Type f32 = b.getF32Type();
  KernelArg delta =
      KernelArg::scratch(op, kDelta, f32, {batch, heads, seqQ});
  KernelArg dqAccum = KernelArg::scratch(op, kDqAccum, f32,
                                         {batch, heads, seqQ, spec.headDimQK});
  auto strideArgs = [&](SmallVector<KernelArg> &args, int which) {
    for (int d = 0; d < 3; ++d)
      args.push_back(KernelArg::int64(layouts[which][d]));
  };
  auto optionalBuffer = [&](Value value) {
    return value ? KernelArg::buffer(value) : KernelArg::int64(0);
  };

  SmallVector<KernelStep, 0> steps;
  // 1. delta = rowsum(dO * O); the dQ accumulator set to zero.
  KernelStep pre = launchStep(portable->preprocess,
                              "attention_grad preprocess " + label, anyArch,
                              portable->preprocess.source);
  pre.args = {KernelArg::buffer(op.getO()), KernelArg::buffer(op.getDO()),
              delta, dqAccum, KernelArg::int64(heads), KernelArg::int64(seqQ)};
  strideArgs(pre.args, O);
  strideArgs(pre.args, DO);
  // Ragged: the stats [Tq, Hq] are copied to [B, Hq, max_seqlen_q], the
  // layout the main kernel reads.
  KernelArg lse = KernelArg::buffer(op.getStats());
  if (ragged) {
    lse = KernelArg::scratch(op, lseRowsScratch(op), f32, {batch, heads, seqQ});
    pre.args.append({KernelArg::buffer(op.getCuSeqlensQ()),
                     KernelArg::int64(qType.getDimSize(0)),
                     KernelArg::buffer(op.getStats()), lse});
  }
  steps.push_back(std::move(pre));

  // 2. The main kernel: dK, dV and the dQ accumulator. The portable kernel
  // tuned for sm_80 runs everywhere (also as PTX); a kernel tuned for a
  // newer target is preferred on the devices that can run it.
  KernelStep main = launchStep(portable->main, "attention_grad " + label, anyArch,
                               withPrelude(portable->main.source));
  // For an arch-specific target (sm_90a), the wgmma kernel comes first
  // where it applies.
  if (target.arch > tgc::kMinTargetArch && target.archSpecific) {
    FailureOr<cg::AttentionBackwardKernels> exact = generate(target);
    if (failed(exact))
      return failure();
    if (!exact->requiredTarget.empty())
      main.preferred.push_back(launchStep(
          exact->main, "attention_grad " + label + " " + exact->requiredTarget,
          tgc::KernelTarget::archSpecific(target.arch), withPrelude(exact->main.source)));
  }
  if (target.arch > tgc::kMinTargetArch) {
    FailureOr<cg::AttentionBackwardKernels> tuned =
        generate(tgc::CompileTarget::cubin(target.arch, /*archSpecific=*/false));
    if (failed(tuned))
      return failure();
    if (tuned->main.source != portable->main.source)
      main.preferred.push_back(launchStep(
          tuned->main, "attention_grad " + label + " sm_" + std::to_string(target.arch),
          tgc::KernelTarget::portable(target.arch), withPrelude(tuned->main.source)));
  }
  // Deterministic: a semaphore per query tile; sized for the smallest
  // tile of any variant (16 rows).
  KernelArg semaphores = KernelArg::int64(0);
  if (deterministic) {
    semaphores = KernelArg::scratch(op, kSemaphores, b.getI32Type(),
                                    {batch, heads, (seqQ + 15) / 16});
    main.zeroFirst.push_back(semaphores);
  }
  main.args = {KernelArg::buffer(op.getQ()),
               KernelArg::buffer(op.getK()),
               KernelArg::buffer(op.getV()),
               KernelArg::buffer(op.getDO()),
               lse,
               delta,
               dqAccum,
               semaphores,
               KernelArg::buffer(op.getDk()),
               KernelArg::buffer(op.getDv()),
               optionalBuffer(ragged ? op.getCuSeqlensQ() : op.getSeqLenQ()),
               optionalBuffer(ragged ? op.getCuSeqlensKv() : op.getSeqLenKv()),
               optionalBuffer(op.getSeed()),
               optionalBuffer(op.getOffset()),
               KernelArg::int64(batch),
               KernelArg::int64(heads),
               KernelArg::int64(seqQ),
               KernelArg::int64(seqKv)};
  if (ragged)
    main.args.append({KernelArg::int64(qType.getDimSize(0)),
                      KernelArg::int64(kType.getDimSize(0))});
  for (int which : {Q, K, V, DO, DK, DV})
    strideArgs(main.args, which);
  for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
    auto type = cast<RankedTensorType>(capture.getType());
    SmallVector<int64_t> strides = stridesOf(capture);
    if (isTableCapture(op, i)) {
      appendTableArgs(main.args, capture, strides);
      continue;
    }
    main.args.push_back(KernelArg::buffer(capture));
    for (int d = 0; d < 4; ++d)
      main.args.push_back(
          KernelArg::int64(type.getDimSize(d) == 1 ? 0 : strides[d]));
  }
  // Capture gradients: f32 ones accumulate straight into their result,
  // bf16/f16 ones into an f32 scratch buffer that a conversion rounds.
  main.outputs = {op.getDk(), op.getDv()};
  SmallVector<KernelStep, 2> conversions;
  for (auto [n, index] : llvm::enumerate(listed)) {
    Value result = op.getCaptureGrads()[n];
    auto type = cast<RankedTensorType>(result.getType());
    bool direct = type.getElementType().isF32();
    KernelArg accumulator =
        direct ? KernelArg::buffer(result)
               : KernelArg::scratch(op, kCaptureGrad0 + n, f32, type.getShape());
    SmallVector<int64_t> strides =
        direct ? stridesOf(result) : rowMajorStrides(type.getShape());
    main.args.push_back(accumulator);
    bool table = isTableCapture(op, index);
    if (table) {
      // A table's gradient: added at the clamped indices, so every stride.
      for (int64_t stride : strides)
        main.args.push_back(KernelArg::int64(stride));
    } else {
      for (int d = 0; d < 4; ++d)
        main.args.push_back(
            KernelArg::int64(type.getDimSize(d) == 1 ? 0 : strides[d]));
    }
    main.zeroFirst.push_back(accumulator);
    if (direct) {
      main.outputs.push_back(result);
      continue;
    }
    cg::AttentionBackwardLaunch l = cg::attentionBackwardCaptureGradConvert(
        type.getElementType().isBF16() ? cg::AttentionElementType::BF16
                                       : cg::AttentionElementType::F16);
    KernelStep convert;
    convert.name = "attention_grad capture " + std::to_string(index) + " gradient";
    convert.source = l.source;
    convert.entry = l.entry;
    convert.earlyLaunch = l.earlyLaunch;
    int64_t elements = type.getNumElements();
    convert.grid = {static_cast<unsigned>(std::max<int64_t>((elements + 1023) / 1024, 1)), 1, 1};
    convert.block = {l.threads, 1, 1};
    convert.args = {accumulator, KernelArg::buffer(result)};
    FailureOr<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> dims =
        convertDims(type.getShape(), stridesOf(result));
    if (failed(dims))
      return op.emitOpError("the fused backward rounds capture gradients of "
                            "at most 4 dimensions (after merging contiguous "
                            "ones), got ")
             << type << " at strides of the result that do not merge";
    for (int64_t size : dims->first)
      convert.args.push_back(KernelArg::int64(size));
    for (int64_t stride : dims->second)
      convert.args.push_back(KernelArg::int64(stride));
    convert.outputs = {result};
    conversions.push_back(std::move(convert));
  }
  for (KernelStep &variant : main.preferred) {
    variant.args = main.args;
    variant.outputs = main.outputs;
  }
  steps.push_back(std::move(main));
  for (KernelStep &convert : conversions)
    steps.push_back(std::move(convert));

  // 3. dQ = scale * accumulator, rounded.
  KernelStep convert = launchStep(portable->convert,
                                  "attention_grad dq " + label, anyArch,
                                  portable->convert.source);
  convert.args = {dqAccum, KernelArg::buffer(op.getDq()),
                  KernelArg::int64(heads), KernelArg::int64(seqQ)};
  strideArgs(convert.args, DQ);
  if (ragged)
    convert.args.append({KernelArg::buffer(op.getCuSeqlensQ()),
                         KernelArg::int64(qType.getDimSize(0))});
  convert.outputs = {op.getDq()};
  steps.push_back(std::move(convert));
  return steps;
}
