// tg-run's GPU mode (see GpuRun.h).
#include "GpuRun.h"
#include "CompiledReference.h"

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Driver/Compile.h"
#include "tg/Plan/LowerToPlan.h"

#include "tgc/Device.h"
#include "tgc/Numerics.h"
#include "tgc/tgc.hpp"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::run;

namespace {
int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tg-run") << message << "\n";
  return 1;
}

int failStatus(const llvm::Twine &what, const tgc::Status &status) {
  return fail(what + ": " + status.message());
}

std::optional<tgc::Format> floatFormat(tgc::DType type) {
  using tgc::Format;
  switch (type) {
  case tgc::DType::F32:
    return Format::F32;
  case tgc::DType::BF16:
    return Format::BF16;
  case tgc::DType::F16:
    return Format::F16;
  case tgc::DType::F8E4M3FN:
    return Format::F8E4M3FN;
  case tgc::DType::F8E5M2:
    return Format::F8E5M2;
  default:
    return std::nullopt;
  }
}

/// Writes one logical value into device layout: element `element` of
/// `buffer` (little endian; i4 into its nibble).
void encode(tgc::DType type, double value, uint8_t *buffer, uint64_t element) {
  if (type == tgc::DType::I4) {
    const unsigned shift = (element % 2) * 4;
    uint8_t &byte = buffer[element / 2];
    byte = static_cast<uint8_t>((byte & ~(0xfu << shift)) |
                                ((static_cast<int64_t>(value) & 0xf) << shift));
    return;
  }
  unsigned size = tgc::dtypeSize(type);
  uint8_t *byte = buffer + element * size;
  uint64_t bits = 0;
  if (auto format = floatFormat(type))
    bits = tgc::toBits(*format, value);
  else
    bits = static_cast<uint64_t>(static_cast<int64_t>(value));
  std::memcpy(byte, &bits, size);
}

double decode(tgc::DType type, const uint8_t *buffer, uint64_t element) {
  if (type == tgc::DType::I4) {
    const unsigned nibble = (buffer[element / 2] >> ((element % 2) * 4)) & 0xfu;
    return static_cast<double>(static_cast<int>(nibble ^ 8u) - 8);
  }
  unsigned size = tgc::dtypeSize(type);
  const uint8_t *byte = buffer + element * size;
  uint64_t bits = 0;
  std::memcpy(&bits, byte, size);
  if (auto format = floatFormat(type))
    return tgc::fromBits(*format, static_cast<uint32_t>(bits));
  switch (type) {
  case tgc::DType::I8:
    return static_cast<int8_t>(bits);
  case tgc::DType::I32:
    return static_cast<int32_t>(bits);
  case tgc::DType::I1:
    return bits & 1;
  default:
    return static_cast<double>(static_cast<int64_t>(bits));
  }
}

/// Operations of one attention: QKᵀ and PV, halved for causal masks of a
/// square score matrix (the convention of the attention benchmarks).
double attentionFlops(ArrayRef<int64_t> q, ArrayRef<int64_t> k,
                      ArrayRef<int64_t> v, bool causal) {
  double flops = 2.0 * q[0] * q[1] * q[2] * k[2] * (q[3] + v[3]);
  return causal && q[2] == k[2] ? flops / 2 : flops;
}
} // namespace

std::pair<double, double> run::checkTolerances(Type type) {
  // bf16 keeps 8 significant bits (relative step 2^-8 = 0.4%); the kernels
  // also round P to the input type before P.V, so allow a few steps.
  if (type.isBF16())
    return {2e-2, 2e-2};
  if (type.isF16())
    return {4e-3, 4e-3};
  if (type.isF32())
    return {1e-3, 1e-3};
  if (isa<FloatType>(type)) // fp8: 3 or 2 mantissa bits
    return {0.125, 0.125};
  return {0.0, 0.0}; // integers and i1 must match exactly
}

/// The FP8 attention op that produced `value`, with whether `value` is its
/// output o (else another result: stats, amax_s, amax_o).
template <typename OpTy>
static std::optional<std::pair<OpTy, bool>> fp8AttentionOf(Value value) {
  auto op = value.getDefiningOp<OpTy>();
  if (!op || !op.isFp8())
    return std::nullopt;
  return std::make_pair(op, op.getOutput() == value);
}

std::pair<double, double> run::resultTolerances(func::FuncOp fn,
                                                unsigned index,
                                                const ref::HostTensor *expected) {
  Type type = cast<RankedTensorType>(fn.getResultTypes()[index]).getElementType();
  std::pair<double, double> tolerances = checkTolerances(type);
  if (!fn.isExternal()) {
    Value returned = fn.getBody().back().getTerminator()->getOperand(index);
    Value q, amaxO;
    bool isOutput = false;
    if (auto sdpa = fp8AttentionOf<SdpaOp>(returned)) {
      q = sdpa->first.getQ(), amaxO = sdpa->first.getAmaxO(), isOutput = sdpa->second;
    } else if (auto attention = fp8AttentionOf<AttentionOp>(returned)) {
      q = attention->first.getQ(), amaxO = attention->first.getAmaxO(), isOutput = attention->second;
    }
    if (q && returned == amaxO)
      return checkTolerances(Float8E4M3FNType::get(fn.getContext()));
    if (q && isOutput && expected) {
      // Half a step of P's format (q's): 2^-4 for e4m3, 2^-3 for e5m2.
      Type pType = cast<RankedTensorType>(q.getType()).getElementType();
      double halfStep = isa<Float8E5M2Type>(pType) ? 0.125 : 0.0625;
      double largest = 0;
      for (double v : expected->values)
        largest = std::max(largest, std::abs(v));
      tolerances.first = std::max(tolerances.first, halfStep * largest);
      return tolerances;
    }
  }
  if (!type.isF32())
    return tolerances;
  for (Type arg : fn.getArgumentTypes()) {
    Type element = cast<RankedTensorType>(arg).getElementType();
    if (element.isBF16() || element.isF16()) {
      std::pair<double, double> input = checkTolerances(element);
      tolerances = {std::max(tolerances.first, input.first),
                    std::max(tolerances.second, input.second)};
    }
  }
  return tolerances;
}

/// The attention FLOPs of a ragged op: per packed sequence, with the
/// lengths its cu_seqlens arguments hold (0 if they are not arguments).
template <typename OpTy>
static double raggedFlops(OpTy op, ArrayRef<ref::HostTensor> inputs) {
  auto argument = [&](Value v) -> const ref::HostTensor * {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getArgNumber() >= inputs.size())
      return nullptr;
    return &inputs[arg.getArgNumber()];
  };
  const ref::HostTensor *cuQ = argument(op.getCuSeqlensQ());
  const ref::HostTensor *cuKv = argument(op.getCuSeqlensKv());
  if (!cuQ || !cuKv)
    return 0;
  ArrayRef<int64_t> q = cast<RankedTensorType>(op.getQ().getType()).getShape();
  ArrayRef<int64_t> v = cast<RankedTensorType>(op.getV().getType()).getShape();
  bool causal = op.getCausal() != CausalMode::none;
  double flops = 0;
  for (size_t b = 0; b + 1 < cuQ->values.size(); ++b) {
    double lq = cuQ->values[b + 1] - cuQ->values[b];
    double lkv = cuKv->values[b + 1] - cuKv->values[b];
    double f = 2.0 * q[1] * lq * lkv * (q[2] + v[2]);
    flops += causal && lq == lkv ? f / 2 : f;
  }
  return flops;
}

double run::countFlops(func::FuncOp fn, ArrayRef<ref::HostTensor> inputs) {
  double flops = 0;
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  fn.walk([&](Operation *op) {
    if (auto sdpa = dyn_cast<SdpaOp>(op))
      flops += sdpa.isRagged()
                   ? raggedFlops(sdpa, inputs)
                   : attentionFlops(shape(sdpa.getQ()), shape(sdpa.getK()),
                                    shape(sdpa.getV()),
                                    sdpa.getCausal() != CausalMode::none);
    else if (auto attention = dyn_cast<AttentionOp>(op))
      flops += attention.isRagged()
                   ? raggedFlops(attention, inputs)
                   : attentionFlops(shape(attention.getQ()),
                                    shape(attention.getK()),
                                    shape(attention.getV()),
                                    attention.getCausal() != CausalMode::none);
    else if (isa<MatmulOp, FusedMatmulOp>(op)) {
      ArrayRef<int64_t> a = shape(op->getOperand(0));
      ArrayRef<int64_t> result = shape(op->getResult(0));
      double outputs = 1;
      for (int64_t d : result)
        outputs *= d;
      flops += 2.0 * outputs * a.back();
    }
  });
  return flops;
}

int run::runOnGpu(ModuleOp module, func::FuncOp fn,
                  ArrayRef<ref::HostTensor> inputs,
                  const GpuRunOptions &options,
                  llvm::function_ref<void(StringRef, StringRef,
                                          const ref::HostTensor &)>
                      printTensor) {
  llvm::raw_ostream &os = llvm::outs();
  if (tgc::Status s = tgc::useDevice(0); !s)
    return failStatus("cannot use the GPU", s);
  tgc::Expected<int> arch = tgc::currentDeviceArch();
  if (!arch)
    return failStatus("cannot query the GPU", arch.status());

  // The check compares with the reference of the compiled graph (after
  // fusion: what the kernels are meant to compute) and reports the
  // deviation from the graph as written on its own line. Fusion keeps the
  // scores in f32 where the graph may round them to bf16/f16; it says so in
  // a remark, collected here.
  FailureOr<SmallVector<ref::HostTensor>> asWritten, expected;
  if (options.check) {
    asWritten = ref::interpret(fn, inputs);
    if (failed(asWritten))
      return 1;
  }
  OwningOpRef<ModuleOp> compiled = module.clone();
  CompileSettings settings;
  settings.entry = fn.getName().str();
  settings.target = tgc::deviceTarget(*arch); // sm_90a on an H100/H200
  settings.fusionNumerics = options.check;
  if (!options.backend.empty())
    settings.backend = options.backend;
  settings.deterministic = options.deterministic;
  if (!options.mixedMatmul.empty())
    settings.mixedMatmul = options.mixedMatmul;
  unsigned droppedRoundings = 0;
  FailureOr<tgc::Plan> plan;
  {
    RoundingRemarkCounter roundings(module.getContext());
    plan = compileModule(*compiled, settings, [&](func::FuncOp entry) {
      if (!options.check)
        return success();
      expected = interpretCompiled(fn, entry, inputs);
      return success(succeeded(expected));
    });
    droppedRoundings = roundings.count();
  }
  if (failed(plan))
    return 1;
  if (options.printPlan)
    os << tgc::serializePlan(*plan);
  tgc::Expected<std::unique_ptr<tgc::Executable>> executable =
      tgc::Executable::create(*plan);
  if (!executable)
    return failStatus("invalid plan", executable.status());

  // Device buffers: inputs uploaded in their plan layout, outputs poisoned
  // with 0xff bytes (NaN in every float format) so that an element the plan
  // never writes cannot pass the check.
  std::vector<tgc::DeviceBuffer> memory;
  std::vector<tgc::Binding> bindings;
  SmallVector<const tgc::Buffer *> outputs;
  unsigned inputIndex = 0;
  for (const tgc::Buffer &buffer : plan->buffers) {
    if (buffer.role == tgc::BufferRole::Intermediate)
      continue;
    auto device = tgc::DeviceBuffer::allocate(buffer.byteSpan());
    if (!device)
      return failStatus("allocating '" + buffer.name + "'", device.status());
    std::vector<uint8_t> host(buffer.byteSpan(), 0xff);
    if (buffer.role == tgc::BufferRole::Input) {
      unsigned index = inputIndex++;
      const ref::HostTensor &tensor = inputs[index];
      tgc::Buffer layout =
          declaredLayout(fn.getArgumentTypes()[index],
                         argumentStrides(fn, index), buffer.dtype);
      if (layout.byteSpan() != buffer.byteSpan())
        return fail("input '" + buffer.name + "' occupies " +
                    llvm::Twine(layout.byteSpan()) + " bytes as declared "
                    "but " + llvm::Twine(buffer.byteSpan()) +
                    " bytes in the plan (a tgc bug)");
      std::vector<uint64_t> offsets = elementOffsets(layout);
      for (size_t i = 0; i < offsets.size(); ++i)
        encode(buffer.dtype, tensor.values[i], host.data(), offsets[i]);
    } else {
      outputs.push_back(&buffer);
    }
    if (tgc::Status s = device->upload(host.data(), host.size()); !s)
      return failStatus("uploading '" + buffer.name + "'", s);
    bindings.emplace_back(buffer.name, device->data());
    memory.push_back(device.take());
  }

  tgc::Executable &exe = **executable;
  if (tgc::Status s = exe.run(bindings, nullptr); !s)
    return failStatus("running the plan", s);
  if (tgc::Status s = tgc::synchronizeDevice(); !s)
    return failStatus("running the plan", s);

  os << "tg-run: @" << fn.getName() << " on the GPU (sm_" << *arch << ", "
     << plan->kernels.size() << " kernels, " << plan->steps.size()
     << " steps, workspace " << plan->workspaceBytes << " bytes)\n";
  // How the kernels were obtained: compiled now (cold) or loaded from the
  // disk cache (warm, TGC_CACHE_DIR).
  tgc::CacheStats cache = tgc::kernelCacheStats();
  os << "kernels: " << cache.compiles << " compiled by NVRTC in "
     << cache.compileSeconds << " s, " << cache.diskHits
     << " loaded from the disk cache in " << cache.diskLoadSeconds << " s";
  if (cache.corruptEntries)
    os << " (" << cache.corruptEntries << " corrupt entries rebuilt)";
  os << "\n";
  // Which backend ran each step (cuDNN engine, NVRTC kernel or fallback).
  if (tgc::Expected<std::vector<std::string>> backends = exe.stepBackends();
      backends.hasValue())
    for (auto [index, what] : llvm::enumerate(*backends))
      os << "step " << index << ": " << what << "\n";
  bool allPassed = true;
  size_t memoryIndex = inputs.size();
  for (auto [i, buffer] : llvm::enumerate(outputs)) {
    std::vector<uint8_t> host(buffer->byteSpan());
    if (tgc::Status s = memory[memoryIndex + i].download(host.data(), host.size());
        !s)
      return failStatus("downloading '" + buffer->name + "'", s);
    auto type = cast<RankedTensorType>(fn.getResultTypes()[i]);
    ref::HostTensor result = ref::HostTensor::zeros(type);
    tgc::Buffer layout =
        declaredLayout(type, resultStrides(fn, i), buffer->dtype);
    if (layout.byteSpan() != buffer->byteSpan())
      return fail("output '" + buffer->name + "' occupies " +
                  llvm::Twine(layout.byteSpan()) + " bytes as declared but " +
                  llvm::Twine(buffer->byteSpan()) +
                  " bytes in the plan (a tgc bug)");
    std::vector<uint64_t> offsets = elementOffsets(layout);
    for (size_t e = 0; e < offsets.size(); ++e)
      result.values[e] = decode(buffer->dtype, host.data(), offsets[e]);
    printTensor("output", buffer->name, result);
    if (!options.check)
      continue;
    auto [atol, rtol] = resultTolerances(fn, i, &(*expected)[i]);
    auto report = [&](StringRef label, const ref::Comparison &cmp) {
      os << label << " " << buffer->name << ": " << (cmp.ok() ? "PASS" : "FAIL")
         << " max_abs " << cmp.maxAbsError << " max_rel " << cmp.maxRelError
         << " mismatches " << cmp.mismatches << "/" << result.numElements()
         << (cmp.nanOrShapeMismatch ? " (NaN or shape mismatch)" : "")
         << " (atol " << atol << ", rtol " << rtol << ")";
    };
    ref::Comparison cmp = ref::compare(result, (*expected)[i], atol, rtol);
    allPassed &= cmp.ok();
    report("check", cmp);
    os << "\n";
    ref::Comparison written = ref::compare(result, (*asWritten)[i], atol, rtol);
    if (written.maxAbsError != cmp.maxAbsError || written.ok() != cmp.ok()) {
      // The compiled graph computes something else than the graph as
      // written. Only roundings fusion named may explain that; a deviation
      // beyond tolerance without one is a fusion bug.
      bool explained = written.ok() || droppedRoundings > 0;
      allPassed &= explained;
      report(explained ? "as-written" : "check-as-written", written);
      os << (written.ok() ? ": within tolerance of the graph as written"
             : explained
                 ? ": the graph as written rounds the scores where the fused "
                   "op does not (see the remark)"
                 : ": differs from the graph as written and fusion named no "
                   "rounding that explains it (a tgc bug)")
         << "\n";
    }
  }

  // --repeat: the same inputs again, outputs poisoned again; every byte of
  // every output must come back as in the first run.
  if (options.repeats > 0) {
    std::vector<std::vector<uint8_t>> first(outputs.size());
    for (auto [i, buffer] : llvm::enumerate(outputs)) {
      first[i].resize(buffer->byteSpan());
      if (tgc::Status s = memory[memoryIndex + i].download(first[i].data(),
                                                          first[i].size());
          !s)
        return failStatus("downloading '" + buffer->name + "'", s);
    }
    SmallVector<std::string> differing;
    for (int r = 1; r <= options.repeats; ++r) {
      for (auto [i, buffer] : llvm::enumerate(outputs)) {
        std::vector<uint8_t> poison(buffer->byteSpan(), 0xff);
        if (tgc::Status s = memory[memoryIndex + i].upload(poison.data(),
                                                           poison.size());
            !s)
          return failStatus("uploading '" + buffer->name + "'", s);
      }
      if (tgc::Status s = exe.run(bindings, nullptr); !s)
        return failStatus("running the plan", s);
      if (tgc::Status s = tgc::synchronizeDevice(); !s)
        return failStatus("running the plan", s);
      for (auto [i, buffer] : llvm::enumerate(outputs)) {
        std::vector<uint8_t> again(buffer->byteSpan());
        if (tgc::Status s =
                memory[memoryIndex + i].download(again.data(), again.size());
            !s)
          return failStatus("downloading '" + buffer->name + "'", s);
        size_t bytes = 0;
        for (size_t e = 0; e < again.size(); ++e)
          bytes += again[e] != first[i][e];
        if (bytes)
          differing.push_back(buffer->name + " (" + std::to_string(bytes) +
                              " bytes on run " + std::to_string(r + 1) + ")");
      }
    }
    bool same = differing.empty();
    allPassed &= same;
    os << "repeat: " << (same ? "PASS" : "FAIL") << " " << options.repeats + 1
       << " runs";
    if (same)
      os << ", every output bitwise identical";
    else
      os << ", outputs differ: " << llvm::join(differing, ", ");
    os << "\n";
  }

  if (options.benchRuns > 0) {
    auto timer = tgc::StreamTimer::create();
    if (!timer)
      return failStatus("timing", timer.status());
    for (int warm = 0; warm < 3; ++warm)
      if (tgc::Status s = exe.run(bindings, nullptr); !s)
        return failStatus("running the plan", s);
    std::vector<float> times;
    for (int r = 0; r < options.benchRuns; ++r) {
      timer->start(nullptr);
      if (tgc::Status s = exe.run(bindings, nullptr); !s)
        return failStatus("running the plan", s);
      timer->stop(nullptr);
      tgc::Expected<float> ms = timer->elapsedMs();
      if (!ms)
        return failStatus("timing", ms.status());
      times.push_back(*ms);
    }
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    double flops = countFlops(fn, inputs);
    os << "bench: median " << median << " ms over " << options.benchRuns
       << " runs";
    if (flops > 0)
      os << ", " << flops / (median * 1e-3) / 1e12 << " TFLOP/s";
    os << "\n";
  }
  return allPassed ? 0 : 1;
}
