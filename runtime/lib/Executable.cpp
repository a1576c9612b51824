#include "ExecutableImpl.h"
#include "KernelParams.h"
#include "tgc/KernelCache.h"
#include "tgc/Log.h"
#include "tgc/Target.h"

#include <chrono>
#include <cstring>
#include <optional>

namespace tgc {

namespace {
// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are special handles that refer
// to the current context's default streams.
bool isSpecialStream(Stream stream) {
  auto value = reinterpret_cast<uintptr_t>(stream);
  return value == 0 || value == 1 || value == 2;
}

/// Makes a context current for a scope and restores the previous one (no
/// push and pop when it is current already, as on a warm call from the
/// thread that made it current).
class ContextScope {
public:
  ContextScope(const CudaDriver &driver, CUcontext context) : driver_(driver) {
    CUcontext current = nullptr;
    if (driver.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context)
      return;
    result_ = driver.cuCtxPushCurrent(context);
    pushed_ = result_ == CUDA_SUCCESS;
  }
  ~ContextScope() {
    if (pushed_) {
      CUcontext popped;
      driver_.cuCtxPopCurrent(&popped);
    }
  }
  Status status() const {
    return driver_.check(result_, "cannot make the stream's context current");
  }

private:
  const CudaDriver &driver_;
  CUresult result_ = CUDA_SUCCESS;
  bool pushed_ = false;
};

size_t argBytes(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Buffer:
  case KernelArg::Kind::I64:
    return 8;
  case KernelArg::Kind::I32:
  case KernelArg::Kind::F32:
    return 4;
  }
  return 0;
}

const char *argKindName(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Buffer:
    return "buffer pointer";
  case KernelArg::Kind::I32:
    return "i32";
  case KernelArg::Kind::I64:
    return "i64";
  case KernelArg::Kind::F32:
    return "f32";
  }
  return "?";
}

/// The plan's arguments against the parameters in the kernel's image.
Status checkKernelArguments(const LaunchVariant &variant,
                            const CompiledKernel &compiled,
                            const std::string &where, const std::string &what) {
  std::optional<std::vector<uint32_t>> sizes = kernelParamSizes(compiled);
  if (!sizes)
    return Status::ok();
  if (sizes->size() != variant.args.size())
    return makeError(StatusCode::InvalidPlan, where, ": ", what, " takes ",
                     sizes->size(), " parameters but the plan passes ",
                     variant.args.size());
  for (size_t p = 0; p < sizes->size(); ++p)
    if ((*sizes)[p] != argBytes(variant.args[p].kind))
      return makeError(StatusCode::InvalidPlan, where, ": parameter ", p,
                       " of ", what, " is ", (*sizes)[p],
                       " bytes but the plan passes a ",
                       argKindName(variant.args[p].kind));
  return Status::ok();
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// The primary context of the one device that holds every bound buffer, for a
/// run on the default stream with no context current.
Expected<CUcontext> primaryContextOfBindings(const CudaDriver &driver,
                                             const Plan &plan,
                                             const std::vector<uint64_t> &addresses) {
  const char *noContext = "no CUDA context is current on this thread and the "
                          "default stream was given";
  const char *remedy = "make a context current first (e.g. cudaSetDevice() "
                       "or cuCtxSetCurrent())";
  int device = -1;
  size_t first = 0;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    if (!addresses[i])
      continue;
    int ordinal = -1;
    CUresult r = driver.cuPointerGetAttribute(
        &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, addresses[i]);
    if (r != CUDA_SUCCESS)
      return makeError(StatusCode::BindingError, noContext, ", and binding '",
                       plan.buffers[i].name, "' (0x", std::hex, addresses[i],
                       std::dec, ") belongs to no CUDA device (",
                       driver.errorText(r), ") to run on; bind device memory "
                       "or ", remedy);
    if (device < 0) {
      device = ordinal;
      first = i;
    } else if (ordinal != device) {
      return makeError(StatusCode::BindingError, noContext, ", and the bindings "
                       "are on different devices ('", plan.buffers[first].name,
                       "' on device ", device, ", '", plan.buffers[i].name,
                       "' on device ", ordinal, "); ", remedy);
    }
  }
  if (device < 0)
    return makeError(StatusCode::CudaError, noContext, "; ", remedy);
  return driver.primaryContext(device);
}

Expected<CUmodule> loadModule(const CudaDriver &driver,
                              const CompiledKernel &compiled,
                              const std::string &what) {
  char errorLog[8192] = {0};
  char infoLog[8192] = {0};
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(sizeof(errorLog)),
                    infoLog, reinterpret_cast<void *>(sizeof(infoLog))};
  auto start = std::chrono::steady_clock::now();
  CUmodule module = nullptr;
  CUresult result = driver.cuModuleLoadDataEx(
      &module, compiled.image.data(), 4, options, values);
  errorLog[sizeof(errorLog) - 1] = infoLog[sizeof(infoLog) - 1] = '\0';
  if (result != CUDA_SUCCESS) {
    Status status = driver.check(
        result, strCat("cannot load ", what, " (",
                       compiled.kind == BinaryKind::Ptx ? "PTX JIT" : "cubin",
                       ")"));
    if (errorLog[0])
      return Status(status.code(), status.message() + "\n" + errorLog);
    return status;
  }
  TGC_LOG_INFO("loaded ", what, " into the context",
               compiled.kind == BinaryKind::Ptx ? " (driver JIT of PTX)" : "",
               " in ", millisecondsSince(start), " ms");
  if (infoLog[0])
    TGC_LOG_DEBUG("JIT log for ", what, ":\n", infoLog);
  return module;
}
} // namespace

//===--------------------------------------------------------------------===//
// Impl
//===--------------------------------------------------------------------===//

Executable::Impl::Impl(Plan p) : plan(std::move(p)) {
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    index.emplace(plan.buffers[i].name, i);
}

Executable::Impl::~Impl() {
  if (!driver)
    return;
  for (auto &[context, state] : contexts) {
    ContextScope scope(*driver, context);
    if (!scope.status().isOk())
      continue; // the context is gone, and its resources with it
    release(*driver, *state);
  }
}

void Executable::Impl::release(const CudaDriver &drv, ContextState &state) {
  for (auto &[key, module] : state.modules)
    drv.cuModuleUnload(module);
  state.modules.clear();
  if (state.workspace)
    drv.cuMemFree(state.workspace);
  if (state.cudnnScratch)
    drv.cuMemFree(state.cudnnScratch);
  if (state.workspaceFree)
    drv.cuEventDestroy(state.workspaceFree);
  state.workspace = state.cudnnScratch = 0;
  state.workspaceFree = nullptr;
  // Cached cuDNN plans and handles are shared by the process: only our
  // references go.
  state.cudnnSteps.clear();
}

Expected<CUcontext>
Executable::Impl::contextOf(const CudaDriver &driver, Stream stream,
                            const std::vector<uint64_t> *addresses) {
  CUcontext context = nullptr;
  if (!isSpecialStream(stream)) {
    TGC_RETURN_IF_ERROR(driver.check(driver.cuStreamGetCtx(stream, &context),
                                     "cannot get the context of the stream"));
  } else {
    TGC_RETURN_IF_ERROR(driver.check(driver.cuCtxGetCurrent(&context),
                                     "cannot get the current context"));
    // A thread the CUDA runtime has not touched (e.g. PyTorch's autograd
    // threads) has none: take the device of the memory, as the runtime would.
    if (!context && addresses)
      return primaryContextOfBindings(driver, plan, *addresses);
  }
  if (!context)
    return makeError(StatusCode::CudaError,
                     "no CUDA context is current on this thread and the "
                     "default stream was given; make a context current first "
                     "(e.g. cudaSetDevice() or cuCtxSetCurrent())");
  return context;
}

Expected<ContextState *>
Executable::Impl::prepare(Stream stream,
                          const std::vector<uint64_t> *addresses) {
  Expected<const CudaDriver *> loaded = CudaDriver::get();
  if (!loaded)
    return loaded.takeStatus();
  const CudaDriver &drv = **loaded;
  Expected<CUcontext> context = contextOf(drv, stream, addresses);
  if (!context)
    return context.takeStatus();

  std::lock_guard<std::mutex> lock(mutex);
  driver = &drv;
  auto found = contexts.find(*context);
  if (found != contexts.end())
    return found->second.get();
  auto state = std::make_unique<ContextState>();
  state->context = *context;
  state->driver = &drv;
  state->accessible =
      std::make_unique<std::atomic<uint64_t>[]>(plan.buffers.size());
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    state->accessible[i].store(0, std::memory_order_relaxed);
  ContextScope scope(drv, *context);
  TGC_RETURN_IF_ERROR(scope.status());
  Status status = prepareContext(drv, *state);
  if (!status.isOk()) {
    release(drv, *state); // what was loaded before the failure
    return status.addContext(strCat("cannot prepare plan '", plan.name, "'"));
  }
  ContextState *result = state.get();
  contexts.emplace(*context, std::move(state));
  return result;
}

Status Executable::Impl::prepareContext(const CudaDriver &drv,
                                        ContextState &state) {
  CUdevice device;
  TGC_RETURN_IF_ERROR(drv.check(drv.cuCtxGetDevice(&device),
                                "cannot get the context's device"));
  int major = 0, minor = 0, sharedOptin = 0;
  TGC_RETURN_IF_ERROR(drv.check(
      drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                               device),
      "cannot query the compute capability"));
  TGC_RETURN_IF_ERROR(drv.check(
      drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                               device),
      "cannot query the compute capability"));
  TGC_RETURN_IF_ERROR(drv.check(
      drv.cuDeviceGetAttribute(
          &sharedOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
          device),
      "cannot query the shared memory limit"));
  char deviceName[256] = {0};
  drv.cuDeviceGetName(deviceName, sizeof(deviceName) - 1, device);
  state.deviceArch = major * 10 + minor;
  DeviceInfo info;
  info.ordinal = int(device);
  info.arch = state.deviceArch;
  info.sharedOptin = sharedOptin;
  info.forcePtx = forcePtxFromEnv();
  if (drv.cuDeviceGetAttribute(&info.smCount,
                               CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               device) != CUDA_SUCCESS)
    info.smCount = 0; // then only grids of one CTA per SM launch early
  Expected<bool> earlyLaunch = earlyLaunchFromEnv();
  if (!earlyLaunch)
    return earlyLaunch.takeStatus();
  info.earlyLaunch = *earlyLaunch;
  const NvrtcInfo &nvrtc = nvrtcInfo();
  TGC_LOG_INFO("preparing plan '", plan.name, "' for ", deviceName,
               " (compute capability ", major, ".", minor, ", NVRTC ",
               nvrtc.version(), info.forcePtx ? ", TGC_FORCE_PTX set" : "", ")");

  state.launches.assign(plan.steps.size(), PreparedLaunch());
  state.cudnnSteps.clear();
  state.cudnnSteps.resize(plan.steps.size());
  state.backends.assign(plan.steps.size(), std::string());
  std::optional<BackendChoice> choice;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (const auto *launch = std::get_if<LaunchStep>(&step)) {
      TGC_RETURN_IF_ERROR(prepareLaunch(drv, state, info, i, *launch));
    } else if (const auto *cudnnStep = std::get_if<CudnnStep>(&step)) {
      if (!choice) { // read once per preparation, only for plans that care
        Expected<BackendChoice> fromEnv = backendChoiceFromEnv();
        if (!fromEnv)
          return fromEnv.takeStatus();
        choice = *fromEnv;
      }
      TGC_RETURN_IF_ERROR(prepareCudnn(drv, state, info, i, *cudnnStep, *choice));
    } else {
      state.backends[i] = stepKindName(step);
    }
  }

  // One cuDNN scratch workspace serves every cuDNN step of the plan.
  for (const std::unique_ptr<PreparedCudnnStep> &prepared : state.cudnnSteps)
    if (prepared && uint64_t(prepared->plan->workspaceBytes) > state.cudnnScratchBytes)
      state.cudnnScratchBytes = uint64_t(prepared->plan->workspaceBytes);
  if (state.cudnnScratchBytes > 0) {
    TGC_RETURN_IF_ERROR(drv.check(
        drv.cuMemAlloc(&state.cudnnScratch, state.cudnnScratchBytes),
        strCat("cannot allocate the ", state.cudnnScratchBytes,
               "-byte cuDNN workspace")));
    TGC_LOG_INFO("allocated a ", state.cudnnScratchBytes,
                 "-byte cuDNN workspace for plan '", plan.name, "'");
  }
  return Status::ok();
}

Status Executable::Impl::prepareCudnn(const CudaDriver &drv,
                                      ContextState &state,
                                      const DeviceInfo &device, size_t i,
                                      const CudnnStep &step,
                                      BackendChoice choice) {
  std::string where = strCat("step ", i, " (cudnn)");
  std::string reason;
  if (choice == BackendChoice::Nvrtc) {
    reason = "TGC_BACKEND=nvrtc";
  } else if (Expected<const CudnnLibrary *> lib = CudnnLibrary::get(); !lib) {
    reason = "cuDNN is not available: " + lib.status().message();
  } else if (Expected<std::shared_ptr<cudnn::CudnnContext>> context =
                 cudnn::cudnnContextFor(**lib, state.context, device.ordinal,
                                        device.arch);
             !context) {
    reason = context.status().message();
  } else {
    Expected<std::unique_ptr<PreparedCudnnStep>> prepared =
        prepareCudnnStep(*context, step, index);
    if (prepared) {
      const cudnn::ExecutionPlan &chosen = *(*prepared)->plan;
      state.backends[i] = strCat("cudnn: graph '", (*prepared)->graphName,
                                 "' engine ", chosen.engine, " (",
                                 chosen.source, ", workspace ",
                                 chosen.workspaceBytes, " bytes)");
      TGC_LOG_INFO(where, ": ", state.backends[i]);
      state.cudnnSteps[i] = prepared.take();
      return Status::ok();
    }
    reason = prepared.status().message();
  }

  if (choice == BackendChoice::Cudnn)
    return makeError(StatusCode::Unsupported, where, ": ", reason,
                     " (TGC_BACKEND=cudnn forbids the NVRTC fallback)");
  if (!step.fallback)
    return makeError(StatusCode::Unsupported, where, ": ", reason,
                     "; the step has no NVRTC fallback");
  TGC_LOG_DEBUG(where, ": running the NVRTC fallback: ", reason);
  TGC_RETURN_IF_ERROR(prepareLaunch(drv, state, device, i, *step.fallback));
  state.backends[i] += ", fallback: " + reason;
  return Status::ok();
}

Status Executable::Impl::prepareLaunch(const CudaDriver &drv,
                                       ContextState &state,
                                       const DeviceInfo &device, size_t i,
                                       const LaunchStep &launch) {
  const NvrtcInfo &nvrtc = nvrtcInfo();
  TGC_RETURN_IF_ERROR(nvrtc.status);
  const int sharedOptin = device.sharedOptin;
  std::string where = strCat("step ", i);
  Expected<VariantChoice> choice = selectLaunchVariant(
      plan, launch, state.deviceArch, nvrtc.archs, device.forcePtx);
  if (!choice)
    return choice.takeStatus().addContext(where);
  const LaunchVariant &variant = launch.variants[choice->index];
  const Kernel &kernel = *plan.findKernel(variant.kernel);
  std::string what = strCat("kernel '", kernel.id, "' (", choice->target.name(),
                            ")");
  TGC_LOG_INFO(where, ": ", what, ", variant ", choice->index, " of ",
               launch.variants.size());

  Expected<std::shared_ptr<const CompiledKernel>> compiled =
      KernelCache::global().get(kernel, choice->target);
  if (!compiled)
    return compiled.takeStatus().addContext(where);
  // The argument list must match the kernel's parameters exactly, or the
  // driver would read garbage.
  TGC_RETURN_IF_ERROR(checkKernelArguments(variant, **compiled, where, what));
  std::string moduleKey = kernel.id + "@" + choice->target.name();
  auto moduleIt = state.modules.find(moduleKey);
  if (moduleIt == state.modules.end()) {
    Expected<CUmodule> module = loadModule(drv, **compiled, what);
    if (!module)
      return module.takeStatus().addContext(where);
    moduleIt = state.modules.emplace(moduleKey, *module).first;
  }
  PreparedLaunch &prepared = state.launches[i];
  prepared.variant = &variant;
  TGC_RETURN_IF_ERROR(
      drv.check(drv.cuModuleGetFunction(&prepared.function, moduleIt->second,
                                        (*compiled)->loweredName.c_str()),
                strCat(where, ": cannot find entry '", kernel.entry, "' in ",
                       what)));

  // Limits the kernel was compiled with, checked here so that a bad plan
  // fails with a message instead of a launch error.
  int maxThreads = 0, staticShared = 0, dynamicLimit = 0;
  drv.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                         prepared.function);
  drv.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                         prepared.function);
  drv.cuFuncGetAttribute(&dynamicLimit,
                         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                         prepared.function);
  if (maxThreads > 0 && variant.block.volume() > uint64_t(maxThreads))
    return makeError(StatusCode::Unsupported, where, ": ", what,
                     " runs at most ", maxThreads,
                     " threads per block but the plan launches ",
                     variant.block.volume());
  if (uint64_t(variant.sharedBytes) + uint64_t(staticShared) >
      uint64_t(sharedOptin))
    return makeError(StatusCode::Unsupported, where, ": ", what, " needs ",
                     variant.sharedBytes, " bytes of dynamic shared memory (+",
                     staticShared, " static) but the device allows ",
                     sharedOptin);
  // Beyond the default 48 KiB the kernel must opt in.
  if (variant.sharedBytes > uint32_t(dynamicLimit))
    TGC_RETURN_IF_ERROR(drv.check(
        drv.cuFuncSetAttribute(prepared.function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(variant.sharedBytes)),
        strCat(where, ": cannot allow ", variant.sharedBytes,
               " bytes of dynamic shared memory for ", what)));

  if (kernel.earlyLaunch && device.earlyLaunch && choice->target.arch >= 90 &&
      drv.cuLaunchKernelEx) {
    int perSM = 0;
    if (drv.cuOccupancyMaxActiveBlocksPerMultiprocessor)
      drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSM, prepared.function, int(variant.block.volume()),
          variant.sharedBytes);
    prepared.early = earlyLaunchKeepsPlacement(variant.grid.volume(), perSM,
                                               device.smCount);
    TGC_LOG_DEBUG(where, ": ", what,
                  prepared.early ? " launches early"
                                 : " launches in stream order: launched early, "
                                   "its grid would pile onto too few SMs "
                                   "(or its occupancy is unknown)",
                  " (", variant.grid.volume(), " CTAs, ", perSM, " per SM, ",
                  device.smCount, " SMs)");
  }

  // Only when the image does not say what the parameters are is the driver
  // asked, for the parameters the plan passes (never past them: that call
  // would fail on every correct plan).
  if (!kernelParamSizes(**compiled) && drv.cuFuncGetParamInfo) {
    for (size_t p = 0; p < variant.args.size(); ++p) {
      size_t offset = 0, size = 0;
      CUresult r = drv.cuFuncGetParamInfo(prepared.function, p, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE)
        return makeError(StatusCode::InvalidPlan, where, ": ", what, " takes ",
                         p, " parameters but the plan passes ",
                         variant.args.size());
      if (r != CUDA_SUCCESS)
        break; // the driver cannot tell
      if (size != argBytes(variant.args[p].kind))
        return makeError(StatusCode::InvalidPlan, where, ": parameter ", p,
                         " of ", what, " is ", size,
                         " bytes but the plan passes a ",
                         argKindName(variant.args[p].kind));
    }
  }

  for (const KernelArg &arg : variant.args) {
    ArgSlot slot{arg.kind};
    switch (arg.kind) {
    case KernelArg::Kind::Buffer:
      slot.buffer = index.at(arg.buffer);
      break;
    case KernelArg::Kind::I32: {
      int32_t value = int32_t(arg.intValue);
      std::memcpy(&slot.bits, &value, sizeof(value));
      break;
    }
    case KernelArg::Kind::I64:
      std::memcpy(&slot.bits, &arg.intValue, sizeof(int64_t));
      break;
    case KernelArg::Kind::F32:
      std::memcpy(&slot.bits, &arg.floatValue, sizeof(float));
      break;
    }
    prepared.args.push_back(slot);
  }
  state.backends[i] = "nvrtc: " + what + (prepared.early ? ", early launch" : "");
  return Status::ok();
}

Status Executable::Impl::run(const BindingRef *bindings, size_t count,
                             const Workspace *workspace, Stream stream) {
  std::vector<uint64_t> addresses;
  TGC_RETURN_IF_ERROR(
      resolveBindings(plan, index, bindings, count, workspace, addresses));
  Expected<ContextState *> prepared = prepare(stream, &addresses);
  if (!prepared)
    return prepared.takeStatus();
  ContextState &state = **prepared;
  const CudaDriver &drv = *state.driver;
  ContextScope scope(drv, state.context);
  TGC_RETURN_IF_ERROR(scope.status());

  // A host pointer would fault inside a kernel; the driver can tell (once
  // per address: see ContextState::accessible).
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    if (!addresses[i] ||
        state.accessible[i].load(std::memory_order_relaxed) == addresses[i])
      continue;
    unsigned memoryType = 0;
    CUresult r = drv.cuPointerGetAttribute(
        &memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addresses[i]);
    if (r != CUDA_SUCCESS)
      return makeError(StatusCode::BindingError, "binding '",
                       plan.buffers[i].name, "' (0x", std::hex, addresses[i],
                       std::dec, ") is not memory the GPU can access: ",
                       drv.errorText(r));
    state.accessible[i].store(addresses[i], std::memory_order_relaxed);
  }

  CUstream cuStream = stream;
  uint64_t workspaceBase = 0;
  std::unique_lock<std::mutex> workspaceLock;
  // Memory the executable owns is shared by its runs in this context: the
  // internal workspace (unless the caller passes one) and the cuDNN scratch
  // workspace (always).
  bool internalWorkspace = !workspace && plan.workspaceBytes > 0;
  bool shared = internalWorkspace || state.cudnnScratchBytes > 0;
  if (shared) {
    // A captured graph would keep using the shared memory on every replay,
    // unordered with later runs.
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (drv.cuStreamIsCapturing(cuStream, &capture) == CUDA_SUCCESS &&
        capture != CU_STREAM_CAPTURE_STATUS_NONE) {
      if (internalWorkspace)
        return makeError(StatusCode::Unsupported,
                         "the stream is being captured into a CUDA graph: pass "
                         "a workspace of ", plan.workspaceBytes,
                         " bytes to run() so that the graph owns its "
                         "intermediates");
      return makeError(StatusCode::Unsupported,
                       "the stream is being captured into a CUDA graph but the "
                       "plan's cuDNN steps use the executable's ",
                       state.cudnnScratchBytes,
                       "-byte cuDNN workspace, which a graph cannot own; set "
                       "TGC_BACKEND=nvrtc to capture this plan");
    }
    workspaceLock = std::unique_lock<std::mutex>(state.workspaceMutex);
    if (!state.workspaceFree)
      TGC_RETURN_IF_ERROR(drv.check(
          drv.cuEventCreate(&state.workspaceFree, CU_EVENT_DISABLE_TIMING),
          "cannot create the workspace event"));
    if (internalWorkspace && !state.workspace) {
      // cuMemAlloc aligns to at least 256 bytes; over-allocate for more.
      uint64_t extra = plan.workspaceAlignment > 256 ? plan.workspaceAlignment : 0;
      TGC_RETURN_IF_ERROR(drv.check(
          drv.cuMemAlloc(&state.workspace, plan.workspaceBytes + extra),
          strCat("cannot allocate the ", plan.workspaceBytes,
                 "-byte workspace")));
      TGC_LOG_INFO("allocated a ", plan.workspaceBytes,
                   "-byte workspace for plan '", plan.name, "'");
    }
    // The previous run may still be using the memory on another stream.
    if (state.eventRecorded && state.lastStream != cuStream)
      TGC_RETURN_IF_ERROR(
          drv.check(drv.cuStreamWaitEvent(cuStream, state.workspaceFree, 0),
                    "cannot order the run after the previous one"));
  }
  if (workspace) {
    workspaceBase = reinterpret_cast<uintptr_t>(workspace->data);
  } else if (internalWorkspace) {
    uint64_t align = plan.workspaceAlignment;
    workspaceBase = (state.workspace + align - 1) / align * align;
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].role == BufferRole::Intermediate)
      addresses[i] = workspaceBase + plan.buffers[i].offset;

  Status status;
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  auto launch = [&](size_t i) {
    const PreparedLaunch &prepared = state.launches[i];
    size_t n = prepared.args.size();
    storage.assign(n, 0);
    params.assign(n, nullptr);
    for (size_t a = 0; a < n; ++a) {
      const ArgSlot &slot = prepared.args[a];
      storage[a] = slot.kind == KernelArg::Kind::Buffer ? addresses[slot.buffer]
                                                        : slot.bits;
      params[a] = &storage[a]; // little-endian: narrow values in low bytes
    }
    const LaunchVariant &v = *prepared.variant;
    CUresult result;
    if (!prepared.early) {
      result = drv.cuLaunchKernel(prepared.function, v.grid.x, v.grid.y, v.grid.z,
                                  v.block.x, v.block.y, v.block.z, v.sharedBytes,
                                  cuStream, n ? params.data() : nullptr, nullptr);
    } else {
      // The kernel waits for the grids before it itself (kEarlyLaunchWait),
      // so the stream need not: its CTAs may start while the previous
      // kernel's last ones finish.
      CUlaunchAttribute attribute = {};
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config = {};
      config.gridDimX = v.grid.x;
      config.gridDimY = v.grid.y;
      config.gridDimZ = v.grid.z;
      config.blockDimX = v.block.x;
      config.blockDimY = v.block.y;
      config.blockDimZ = v.block.z;
      config.sharedMemBytes = v.sharedBytes;
      config.hStream = cuStream;
      config.attrs = &attribute;
      config.numAttrs = 1;
      result = drv.cuLaunchKernelEx(&config, prepared.function,
                                    n ? params.data() : nullptr, nullptr);
    }
    if (result == CUDA_SUCCESS) // the message only on failure: this is every run's path
      return Status::ok();
    return drv.check(result, strCat("step ", i, ": cannot launch kernel '", v.kernel,
                                    "'", prepared.early ? " (early launch)" : ""));
  };
  for (size_t i = 0; i < plan.steps.size() && status.isOk(); ++i) {
    const Step &step = plan.steps[i];
    if (std::holds_alternative<LaunchStep>(step)) {
      status = launch(i);
    } else if (std::holds_alternative<CudnnStep>(step)) {
      if (const PreparedCudnnStep *prepared = state.cudnnSteps[i].get())
        status = executeCudnnStep(*prepared, addresses, state.cudnnScratch,
                                  cuStream)
                     .addContext(strCat("step ", i, " (cudnn)"));
      else
        status = launch(i); // the NVRTC fallback
    } else if (const auto *memset = std::get_if<MemsetStep>(&step)) {
      size_t b = index.at(memset->buffer);
      if (uint64_t span = plan.buffers[b].byteSpan())
        status = drv.check(
            drv.cuMemsetD8Async(addresses[b], memset->value, span, cuStream),
            strCat("step ", i, ": cannot set '", memset->buffer, "'"));
    } else if (const auto *copy = std::get_if<CopyStep>(&step)) {
      size_t src = index.at(copy->src), dst = index.at(copy->dst);
      if (uint64_t span = plan.buffers[src].byteSpan())
        status = drv.check(
            drv.cuMemcpyAsync(addresses[dst], addresses[src], span, cuStream),
            strCat("step ", i, ": cannot copy '", copy->src, "' to '",
                   copy->dst, "'"));
    }
  }
  if (shared) {
    // Recorded even after a failure: earlier steps may be in flight.
    Status recorded =
        drv.check(drv.cuEventRecord(state.workspaceFree, cuStream),
                  "cannot record the workspace event");
    state.eventRecorded = recorded.isOk();
    state.lastStream = cuStream;
    if (status.isOk())
      status = recorded;
  }
  return status;
}

//===--------------------------------------------------------------------===//
// Executable
//===--------------------------------------------------------------------===//

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;

Expected<std::unique_ptr<Executable>> Executable::create(Plan plan) {
  TGC_RETURN_IF_ERROR(plan.validate());
  return std::unique_ptr<Executable>(
      new Executable(std::make_unique<Impl>(std::move(plan))));
}

Expected<std::unique_ptr<Executable>>
Executable::loadPlan(const std::string &path) {
  Expected<Plan> plan = readPlanFile(path);
  if (!plan)
    return plan.takeStatus();
  return create(plan.take());
}

const Plan &Executable::plan() const { return impl_->plan; }

Expected<std::vector<std::string>> Executable::stepBackends(Stream stream) {
  Expected<ContextState *> state = impl_->prepare(stream);
  if (!state)
    return state.takeStatus();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return (*state)->backends;
}
uint64_t Executable::workspaceSize() const { return impl_->plan.workspaceBytes; }

Status Executable::prepare(Stream stream) {
  Expected<ContextState *> state = impl_->prepare(stream);
  return state ? Status::ok() : state.takeStatus();
}

namespace {
std::vector<BindingRef> toRefs(const std::vector<Binding> &bindings) {
  std::vector<BindingRef> refs(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding &b = bindings[i];
    BindingRef &r = refs[i];
    r.name = b.name;
    r.data = b.data;
    r.dtype = b.dtype ? static_cast<int>(*b.dtype) : 0;
    if (b.shape) {
      r.hasShape = true;
      r.rank = int32_t(b.shape->size());
      r.shape = b.shape->data();
    }
    if (b.strides) {
      r.strides = b.strides->data();
      r.stridesCount = int32_t(b.strides->size());
    }
  }
  return refs;
}
} // namespace

Status Executable::run(const std::vector<Binding> &bindings, Stream stream) {
  std::vector<BindingRef> refs = toRefs(bindings);
  return impl_->run(refs.data(), refs.size(), nullptr, stream);
}

Status Executable::run(const std::vector<Binding> &bindings,
                       const Workspace &workspace, Stream stream) {
  std::vector<BindingRef> refs = toRefs(bindings);
  return impl_->run(refs.data(), refs.size(), &workspace, stream);
}

Status Executable::checkBindings(const std::vector<Binding> &bindings,
                                 const Workspace *workspace) const {
  std::vector<BindingRef> refs = toRefs(bindings);
  std::vector<uint64_t> addresses;
  return resolveBindings(impl_->plan, impl_->index, refs.data(), refs.size(),
                         workspace, addresses);
}

Status precompilePlan(const Plan &plan, int deviceArch, bool forcePtx) {
  TGC_RETURN_IF_ERROR(plan.validate());
  const NvrtcInfo &nvrtc = nvrtcInfo();
  TGC_RETURN_IF_ERROR(nvrtc.status);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    // A cuDNN step's fallback runs wherever cuDNN does not.
    const auto *launch = std::get_if<LaunchStep>(&plan.steps[i]);
    if (const auto *cudnnStep = std::get_if<CudnnStep>(&plan.steps[i]))
      launch = cudnnStep->fallback ? &*cudnnStep->fallback : nullptr;
    if (!launch)
      continue;
    Expected<VariantChoice> choice =
        selectLaunchVariant(plan, *launch, deviceArch, nvrtc.archs, forcePtx);
    if (!choice)
      return choice.takeStatus().addContext(strCat("step ", i));
    const LaunchVariant &variant = launch->variants[choice->index];
    const Kernel &kernel = *plan.findKernel(variant.kernel);
    Expected<std::shared_ptr<const CompiledKernel>> compiled =
        KernelCache::global().get(kernel, choice->target);
    if (!compiled)
      return compiled.takeStatus().addContext(strCat("step ", i));
    TGC_RETURN_IF_ERROR(checkKernelArguments(
        variant, **compiled, strCat("step ", i),
        strCat("kernel '", kernel.id, "' (", choice->target.name(), ")")));
  }
  return Status::ok();
}

CacheStats kernelCacheStats() { return KernelCache::global().stats(); }

} // namespace tgc
