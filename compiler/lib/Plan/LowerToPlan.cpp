// Lowering of a compiled tg graph into the runtime's Plan.
#include "tg/Plan/LowerToPlan.h"

#include "AttentionGradStep.h"
#include "AttentionStep.h"
#include "RelayoutKernel.h"

#include "tg/Backend/Backend.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/KernelStep.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tg;

static constexpr uint32_t kWorkspaceAlignment = 256;
static constexpr uint32_t kBufferAlignment = 16;

std::optional<tgc::DType> tg::toRuntimeDType(Type type) {
  if (type.isBF16())
    return tgc::DType::BF16;
  if (type.isF16())
    return tgc::DType::F16;
  if (type.isF32())
    return tgc::DType::F32;
  if (isa<Float8E4M3FNType>(type))
    return tgc::DType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return tgc::DType::F8E5M2;
  if (type.isInteger(1))
    return tgc::DType::I1;
  if (type.isInteger(4))
    return tgc::DType::I4;
  if (type.isInteger(8))
    return tgc::DType::I8;
  if (type.isInteger(32))
    return tgc::DType::I32;
  if (type.isInteger(64))
    return tgc::DType::I64;
  return std::nullopt;
}

static std::string nameAttrOr(DictionaryAttr attrs, StringRef fallback,
                              unsigned index) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("tg.name"))
      return name.str();
  return fallback.str() + std::to_string(index);
}

std::string tg::argumentName(func::FuncOp fn, unsigned index) {
  return nameAttrOr(fn.getArgAttrDict(index), "arg", index);
}
std::string tg::resultName(func::FuncOp fn, unsigned index) {
  return nameAttrOr(fn.getResultAttrDict(index), "result", index);
}

static SmallVector<int64_t> stridesOr(DictionaryAttr attrs, Type type) {
  if (attrs)
    if (auto strides = attrs.getAs<DenseI64ArrayAttr>("tg.strides"))
      return SmallVector<int64_t>(strides.asArrayRef());
  return rowMajorStrides(cast<RankedTensorType>(type).getShape());
}

SmallVector<int64_t> tg::argumentStrides(func::FuncOp fn, unsigned index) {
  return stridesOr(fn.getArgAttrDict(index), fn.getArgumentTypes()[index]);
}
SmallVector<int64_t> tg::resultStrides(func::FuncOp fn, unsigned index) {
  return stridesOr(fn.getResultAttrDict(index), fn.getResultTypes()[index]);
}

/// The runtime's limits on a plan buffer (tgc/Plan.h), as a located error
/// rather than an invalid plan.
static LogicalResult checkLimits(const tgc::Buffer &buffer, Location loc) {
  if (buffer.shape.size() > tgc::kMaxPlanRank)
    return emitError(loc) << "a tensor of rank " << buffer.shape.size()
                          << " cannot be lowered: plans hold at most rank "
                          << tgc::kMaxPlanRank;
  for (int64_t dim : buffer.shape)
    if (uint64_t(dim) > tgc::kMaxPlanBytes)
      return emitError(loc) << "a tensor with a dim of " << dim
                            << " cannot be lowered: plan buffers are at most "
                            << tgc::kMaxPlanBytes << " bytes";
  if (buffer.byteSpan() > tgc::kMaxPlanBytes)
    return emitError(loc) << "a tensor of " << buffer.byteSpan()
                          << " bytes cannot be lowered: plan buffers are at "
                             "most "
                          << tgc::kMaxPlanBytes << " bytes";
  return success();
}

static uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

namespace {
/// Builds the Plan: names every tensor's buffer and places intermediates;
/// each step goes to its op's backend (BackendInterface::lower), which
/// writes its plan steps through the PlanSteps methods.
class PlanBuilder final : public PlanSteps {
public:
  PlanBuilder(func::FuncOp fn, const PlanOptions &options)
      : fn(fn), options(options) {}

  FailureOr<tgc::Plan> build();

  // PlanSteps
  FailureOr<std::string> bufferFor(Value value) override;
  FailureOr<std::string> bufferFor(const KernelArg &arg) override;
  SmallVector<int64_t> stridesOf(Value value) override;
  std::string scratchBuffer(tgc::DType dtype, ArrayRef<int64_t> shape) override;
  FailureOr<tgc::LaunchStep> launchOf(const KernelStep &step) override;
  void add(tgc::Step step) override;
  Location location() const override { return fn->getLoc(); }

private:
  /// Results whose producer writes straight into the output buffer: op
  /// results returned once, in a layout the producer can write.
  void chooseDirectResults();
  /// Places the intermediates in the workspace: buffers whose live ranges
  /// (first to last step that touches them) do not overlap share bytes.
  void placeIntermediates();
  /// The steps of `step` from the backend its op is placed on (NVRTC for
  /// ops without tg.backend and for kernels of several ops).
  LogicalResult addLaunch(const KernelStep &step);
  /// The workspace buffer of a KernelArg::Scratch, created on its first use
  /// and live until its last.
  FailureOr<std::string> scratchBufferFor(const KernelArg &arg);
  FailureOr<tgc::LaunchVariant> addVariant(const KernelStep &step);
  LogicalResult addResultCopies();

  func::FuncOp fn;
  PlanOptions options;
  /// The context's backends, looked up at the first step (a function with
  /// no tg op has none, and its context may not have loaded tg).
  const BackendsDialectInterface *backends = nullptr;
  tgc::Plan plan;
  llvm::DenseMap<Value, unsigned> directResult;
  llvm::DenseMap<Value, std::string> bufferNames;
  llvm::StringMap<std::string> kernelIds; // source + entry -> id
  unsigned intermediates = 0;
  /// Index of the step being built, and each intermediate's live range.
  unsigned currentStep = 0;
  llvm::StringMap<std::pair<unsigned, unsigned>> liveRanges;
  llvm::DenseMap<std::pair<Operation *, unsigned>, std::string> scratchNames;
};
} // namespace

void PlanBuilder::chooseDirectResults() {
  auto ret = cast<func::ReturnOp>(fn.front().getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(value) || directResult.count(value))
      continue;
    bool rowMajor =
        resultStrides(fn, index) ==
        rowMajorStrides(cast<RankedTensorType>(value.getType()).getShape());
    // The attention kernel writes its output through strides, so a
    // [B,S,H,D] result needs no copy, unless other ops read the output: the
    // generated kernels read intermediates as dense row-major buffers.
    bool stridedWriter = false;
    if (auto attention = value.getDefiningOp<AttentionOp>())
      stridedWriter = value == attention.getOutput() &&
                      llvm::all_of(value.getUsers(), [](Operation *user) {
                        return isa<func::ReturnOp>(user);
                      });
    if (rowMajor || stridedWriter)
      directResult[value] = index;
  }
}

SmallVector<int64_t> PlanBuilder::stridesOf(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner() == &fn.front())
      return argumentStrides(fn, arg.getArgNumber());
  auto it = directResult.find(value);
  if (it != directResult.end())
    return resultStrides(fn, it->second);
  return rowMajorStrides(cast<RankedTensorType>(value.getType()).getShape());
}

FailureOr<std::string> PlanBuilder::bufferFor(Value value) {
  auto it = bufferNames.find(value);
  if (it != bufferNames.end()) {
    auto range = liveRanges.find(it->second);
    if (range != liveRanges.end())
      range->second.second = currentStep;
    return it->second;
  }
  auto type = cast<RankedTensorType>(value.getType());
  std::optional<tgc::DType> dtype = toRuntimeDType(type.getElementType());
  if (!dtype)
    return emitError(value.getLoc()) << "no runtime type for " << type;
  tgc::Buffer buffer;
  buffer.name = "t" + std::to_string(intermediates++);
  buffer.role = tgc::BufferRole::Intermediate;
  buffer.dtype = *dtype;
  buffer.shape.assign(type.getShape().begin(), type.getShape().end());
  SmallVector<int64_t> dense = rowMajorStrides(type.getShape());
  buffer.strides.assign(dense.begin(), dense.end());
  buffer.alignment = kBufferAlignment;
  if (failed(checkLimits(buffer, value.getLoc())))
    return failure();
  // The offset is chosen once every step is known (placeIntermediates).
  liveRanges[buffer.name] = {currentStep, currentStep};
  bufferNames[value] = buffer.name;
  plan.buffers.push_back(buffer);
  return buffer.name;
}

FailureOr<tgc::LaunchVariant>
PlanBuilder::addVariant(const KernelStep &step) {
  const tgc::KernelTarget &target = step.target;
  std::string key = target.str() + '\0' + step.entry + '\0' + step.source +
                    '\0' + (step.earlyLaunch ? "early" : "");
  auto [it, inserted] =
      kernelIds.try_emplace(key, "k" + std::to_string(kernelIds.size()));
  if (inserted) {
    tgc::Kernel kernel;
    kernel.id = it->second;
    kernel.entry = step.entry;
    kernel.source = step.source;
    kernel.target = target;
    kernel.earlyLaunch = step.earlyLaunch;
    plan.kernels.push_back(std::move(kernel));
  }
  tgc::LaunchVariant variant;
  variant.kernel = it->second;
  variant.grid = {step.grid[0], step.grid[1], step.grid[2]};
  variant.block = {step.block[0], step.block[1], step.block[2]};
  variant.sharedBytes = step.sharedBytes;
  for (const KernelArg &arg : step.args) {
    switch (arg.kind) {
    case KernelArg::Kind::Buffer: {
      FailureOr<std::string> name = bufferFor(arg.value);
      if (failed(name))
        return failure();
      variant.args.push_back(tgc::KernelArg::buf(*name));
      break;
    }
    case KernelArg::Kind::Scratch: {
      FailureOr<std::string> name = scratchBufferFor(arg);
      if (failed(name))
        return failure();
      variant.args.push_back(tgc::KernelArg::buf(*name));
      break;
    }
    case KernelArg::Kind::Int64:
      variant.args.push_back(tgc::KernelArg::i64(arg.i64));
      break;
    case KernelArg::Kind::Float32:
      variant.args.push_back(tgc::KernelArg::f32(arg.f32));
      break;
    }
  }
  return variant;
}

void PlanBuilder::placeIntermediates() {
  struct Placed {
    uint64_t offset, end;
    unsigned lastStep;
  };
  SmallVector<Placed> live; // sorted by offset
  uint64_t size = 0;
  // Buffers are created in the order of their first use.
  for (tgc::Buffer &buffer : plan.buffers) {
    if (buffer.role != tgc::BufferRole::Intermediate)
      continue;
    auto [first, last] = liveRanges.lookup(buffer.name);
    // A buffer last used by an earlier step is free; one used by this very
    // step is not (a kernel's inputs and outputs must not alias).
    llvm::erase_if(live, [&](const Placed &p) { return p.lastStep < first; });
    uint64_t bytes = std::max<uint64_t>(buffer.byteSpan(), 1);
    uint64_t offset = 0;
    for (const Placed &p : live) {
      if (alignUp(offset, kWorkspaceAlignment) + bytes <= p.offset)
        break;
      offset = std::max(offset, p.end);
    }
    offset = alignUp(offset, kWorkspaceAlignment);
    buffer.offset = offset;
    Placed placed{offset, offset + bytes, last};
    live.insert(llvm::upper_bound(live, placed,
                                  [](const Placed &a, const Placed &b) {
                                    return a.offset < b.offset;
                                  }),
                placed);
    size = std::max(size, offset + bytes);
  }
  plan.workspaceBytes = alignUp(size, kWorkspaceAlignment);
}

FailureOr<tgc::LaunchStep> PlanBuilder::launchOf(const KernelStep &step) {
  tgc::LaunchStep launch;
  for (const KernelStep &preferred : step.preferred) {
    FailureOr<tgc::LaunchVariant> variant = addVariant(preferred);
    if (failed(variant))
      return failure();
    launch.variants.push_back(std::move(*variant));
  }
  FailureOr<tgc::LaunchVariant> variant = addVariant(step);
  if (failed(variant))
    return failure();
  launch.variants.push_back(std::move(*variant));
  return launch;
}

LogicalResult PlanBuilder::addLaunch(const KernelStep &step) {
  if (!backends) {
    FailureOr<const BackendsDialectInterface *> found =
        backendsFor(fn, "the plan lowering");
    if (failed(found))
      return failure();
    backends = *found;
  }
  std::optional<Backend> placed = step.op ? getBackend(step.op) : std::nullopt;
  return backends->get(placed.value_or(Backend::nvrtc)).lower(step, *this);
}

void PlanBuilder::add(tgc::Step step) {
  plan.steps.push_back(std::move(step));
  ++currentStep;
}

FailureOr<std::string> PlanBuilder::bufferFor(const KernelArg &arg) {
  return arg.kind == KernelArg::Kind::Scratch ? scratchBufferFor(arg)
                                              : bufferFor(arg.value);
}

std::string PlanBuilder::scratchBuffer(tgc::DType dtype,
                                       ArrayRef<int64_t> shape) {
  tgc::Buffer buffer;
  buffer.name = "t" + std::to_string(intermediates++);
  buffer.role = tgc::BufferRole::Intermediate;
  buffer.dtype = dtype;
  buffer.shape.assign(shape.begin(), shape.end());
  SmallVector<int64_t> dense = rowMajorStrides(shape);
  buffer.strides.assign(dense.begin(), dense.end());
  buffer.alignment = kBufferAlignment;
  liveRanges[buffer.name] = {currentStep, currentStep};
  plan.buffers.push_back(buffer);
  return buffer.name;
}

FailureOr<std::string> PlanBuilder::scratchBufferFor(const KernelArg &arg) {
  auto key = std::make_pair(arg.owner, arg.scratchIndex);
  auto it = scratchNames.find(key);
  if (it != scratchNames.end()) {
    liveRanges[it->second].second = currentStep;
    return it->second;
  }
  std::optional<tgc::DType> dtype = toRuntimeDType(arg.scratchElementType);
  if (!dtype)
    return emitError(arg.owner ? arg.owner->getLoc() : fn.getLoc())
           << "no runtime type for scratch element type "
           << arg.scratchElementType;
  std::string name = scratchBuffer(*dtype, arg.scratchShape);
  scratchNames[key] = name;
  return name;
}

LogicalResult PlanBuilder::addResultCopies() {
  auto ret = cast<func::ReturnOp>(fn.front().getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    auto it = directResult.find(value);
    if (it != directResult.end() && it->second == index)
      continue;
    FailureOr<std::string> source = bufferFor(value);
    if (failed(source))
      return failure();
    const tgc::Buffer *from = plan.findBuffer(*source);
    const tgc::Buffer *to = plan.findBuffer(resultName(fn, index));
    if (from->strides == to->strides) {
      plan.steps.push_back(tgc::CopyStep{from->name, to->name});
      ++currentStep;
      continue;
    }
    // The relayout kernel moves whole elements; two i4 elements share a byte.
    if (from->dtype == tgc::DType::I4)
      return ret.emitOpError("result ")
             << index << " is an i4 tensor in another layout than its value's "
             << "(packed i4 is returned only in the layout it has)";
    KernelStep step = emitRelayoutKernel(*from, *to);
    tgc::Kernel kernel;
    kernel.id = "k" + std::to_string(kernelIds.size());
    kernelIds[kernel.id] = kernel.id;
    kernel.entry = step.entry;
    kernel.source = step.source;
    kernel.target = tgc::KernelTarget::portable(80);
    tgc::LaunchVariant variant;
    variant.kernel = kernel.id;
    variant.grid = {step.grid[0], step.grid[1], step.grid[2]};
    variant.block = {step.block[0], step.block[1], step.block[2]};
    variant.args = {tgc::KernelArg::buf(from->name),
                    tgc::KernelArg::buf(to->name)};
    plan.kernels.push_back(std::move(kernel));
    tgc::LaunchStep launch;
    launch.variants.push_back(std::move(variant));
    plan.steps.push_back(std::move(launch));
    ++currentStep;
  }
  return success();
}

FailureOr<tgc::Plan> PlanBuilder::build() {
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("must have a single block to be lowered to a plan");
  if (fn.getNumResults() == 0)
    return fn.emitOpError("has no results: a plan computes at least one "
                          "output");
  plan.name = fn.getSymName().str();
  plan.target = options.target.name();
  plan.workspaceAlignment = kWorkspaceAlignment;

  // Graph arguments and results are the buffers the caller binds.
  llvm::StringMap<bool> seenNames;
  auto addBound = [&](std::string name, tgc::BufferRole role, Type type,
                      SmallVector<int64_t> strides,
                      Location loc) -> LogicalResult {
    if (!seenNames.try_emplace(name, true).second)
      return emitError(loc) << "binding name '" << name << "' is used twice";
    auto tensor = cast<RankedTensorType>(type);
    std::optional<tgc::DType> dtype = toRuntimeDType(tensor.getElementType());
    if (!dtype)
      return emitError(loc) << "no runtime type for " << tensor;
    tgc::Buffer buffer;
    buffer.name = std::move(name);
    buffer.role = role;
    buffer.dtype = *dtype;
    buffer.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    buffer.strides.assign(strides.begin(), strides.end());
    buffer.alignment = kBufferAlignment;
    if (failed(checkLimits(buffer, loc)))
      return failure();
    plan.buffers.push_back(buffer);
    return success();
  };
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    if (failed(addBound(argumentName(fn, i), tgc::BufferRole::Input,
                        fn.getArgumentTypes()[i], argumentStrides(fn, i),
                        fn.getArgument(i).getLoc())))
      return failure();
    bufferNames[fn.getArgument(i)] = argumentName(fn, i);
  }
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (failed(addBound(resultName(fn, i), tgc::BufferRole::Output,
                        fn.getResultTypes()[i], resultStrides(fn, i),
                        fn.getLoc())))
      return failure();

  chooseDirectResults();
  for (auto [value, index] : directResult)
    bufferNames[value] = resultName(fn, index);

  bool attentionForward = false;
  auto emitAttention =
      [&](AttentionOp op) -> FailureOr<SmallVector<KernelStep, 0>> {
    attentionForward = true;
    return emitAttentionStep(op, options.target, options.fastMath, options.attentionTile,
                             [&](Value v) { return stridesOf(v); });
  };
  auto emitAttentionGrad =
      [&](AttentionGradOp op) -> FailureOr<SmallVector<KernelStep, 0>> {
    return emitAttentionGradSteps(op, options.target, options.deterministic, options.fastMath,
                                  [&](Value v) { return stridesOf(v); });
  };
  FailureOr<SmallVector<KernelStep, 0>> steps =
      emitGenericKernels(fn, emitAttention, emitAttentionGrad);
  if (failed(steps))
    return failure();
  if (!options.attentionTile.empty() && !attentionForward)
    return fn.emitOpError("--attention-tile ")
           << options.attentionTile
           << " was given, but the plan has no fused attention forward kernel "
              "(attention on cuDNN or expanded into generic kernels)";
  for (const KernelStep &step : *steps)
    if (failed(addLaunch(step)))
      return failure();
  if (failed(addResultCopies()))
    return failure();
  placeIntermediates();
  if (plan.workspaceBytes > tgc::kMaxPlanBytes)
    return fn.emitOpError("needs a workspace of ")
           << plan.workspaceBytes << " bytes for its intermediates; plans "
           << "have at most " << tgc::kMaxPlanBytes;

  tgc::Status status = plan.validate();
  if (!status.isOk())
    return fn.emitOpError("produced an invalid plan (a tgc bug): ")
           << status.message();
  return plan;
}

FailureOr<tgc::Plan> tg::lowerToPlan(func::FuncOp fn,
                                     const PlanOptions &options) {
  return PlanBuilder(fn, options).build();
}
