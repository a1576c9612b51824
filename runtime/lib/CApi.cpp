// The C API over tgc::Executable. No exception crosses this boundary.

#include "ExecutableImpl.h"
#include "tgc/tgc.h"
#include "tgc/CApiSupport.h"

#include <cstring>
#include <new>

struct tgc_executable {
  std::unique_ptr<tgc::Executable> executable;
};

namespace {
thread_local std::string lastError;
thread_local std::string describeText; // tgc_executable_describe

tgc_status_t finish(const tgc::Status &status) {
  lastError = status.message();
  return static_cast<tgc_status_t>(status.code());
}

/// The int a C caller passed as an enum. C allows any int there; in C++ a
/// value outside the enum's range must not be read as the enum (UB), so its
/// bytes are read as an int.
template <typename Enum> int enumValue(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are ints here");
  int bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

tgc_status_t invalid(const std::string &message) {
  return finish(tgc::Status(tgc::StatusCode::InvalidArgument, message));
}

// Runs `body`, turning exceptions (allocation failure) into a status.
template <typename Body> tgc_status_t guarded(Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return finish(tgc::Status(tgc::StatusCode::OutOfMemory, "out of host memory"));
  } catch (const std::exception &e) {
    return finish(tgc::Status(tgc::StatusCode::Internal, e.what()));
  } catch (...) {
    return finish(tgc::Status(tgc::StatusCode::Internal, "unknown exception"));
  }
}

tgc_status_t wrap(tgc::Expected<std::unique_ptr<tgc::Executable>> created,
                  tgc_executable_t **out) {
  if (!created)
    return finish(created.status());
  *out = new tgc_executable{created.take()};
  return finish(tgc::Status());
}

tgc_status_t runImpl(tgc_executable_t *exe, const tgc_binding_t *bindings,
                     size_t count, const tgc::Workspace *workspace,
                     tgc_stream_t stream) {
  if (!exe)
    return invalid("tgc_run: the executable is null");
  if (count > 0 && !bindings)
    return invalid("tgc_run: num_bindings is " + std::to_string(count) +
                   " but bindings is null");
  // More bindings than the plan has inputs and outputs is an error whatever
  // they say, and a count past the caller's array must not be read.
  const tgc::Plan &plan = exe->executable->plan();
  size_t bindable = 0;
  for (const tgc::Buffer &buffer : plan.buffers)
    bindable += buffer.role != tgc::BufferRole::Intermediate;
  if (count > bindable)
    return invalid("tgc_run: num_bindings is " + std::to_string(count) +
                   " but the plan '" + plan.name + "' has " +
                   std::to_string(bindable) + " inputs and outputs");
  std::vector<tgc::BindingRef> refs(count);
  for (size_t i = 0; i < count; ++i) {
    const tgc_binding_t &b = bindings[i];
    if (!b.name)
      return invalid("tgc_run: bindings[" + std::to_string(i) +
                     "].name is null");
    tgc::BindingRef &r = refs[i];
    r.name = b.name;
    r.data = b.data;
    int dtype = enumValue(b.dtype);
    r.dtype = dtype;
    if (dtype != TGC_DTYPE_UNSPECIFIED && !tgc::isValidDType(dtype))
      return invalid(std::string("tgc_run: binding '") + b.name +
                     "' has an invalid dtype value " + std::to_string(dtype));
    r.hasShape = b.shape != nullptr;
    r.rank = b.rank;
    r.shape = b.shape;
    r.strides = b.strides;
    if (b.strides && !b.shape)
      return invalid(std::string("tgc_run: binding '") + b.name +
                     "' gives strides without a shape");
  }
  return finish(exe->executable->impl()->run(refs.data(), refs.size(),
                                             workspace, stream));
}
} // namespace

extern "C" {

const char *tgc_last_error(void) { return lastError.c_str(); }

const char *tgc_status_name(tgc_status_t status) {
  return tgc::statusCodeName(static_cast<tgc::StatusCode>(enumValue(status)));
}

tgc_status_t tgc_executable_load_plan(const char *path, tgc_executable_t **out) {
  return guarded([&] {
    if (!path || !out)
      return invalid("tgc_executable_load_plan: path and out must not be null");
    *out = nullptr;
    return wrap(tgc::Executable::loadPlan(path), out);
  });
}

tgc_status_t tgc_executable_load_plan_string(const char *text, size_t size,
                                             tgc_executable_t **out) {
  return guarded([&] {
    if (!text || !out)
      return invalid(
          "tgc_executable_load_plan_string: text and out must not be null");
    *out = nullptr;
    tgc::Expected<tgc::Plan> plan =
        tgc::parsePlan(std::string_view(text, size), "<string>");
    if (!plan)
      return finish(plan.status());
    return wrap(tgc::Executable::create(plan.take()), out);
  });
}

void tgc_executable_destroy(tgc_executable_t *exe) { delete exe; }

tgc_status_t tgc_executable_workspace_size(const tgc_executable_t *exe,
                                           uint64_t *bytes) {
  if (!exe || !bytes)
    return invalid("tgc_executable_workspace_size: null argument");
  *bytes = exe->executable->workspaceSize();
  return finish(tgc::Status());
}

tgc_status_t tgc_executable_num_buffers(const tgc_executable_t *exe,
                                        size_t *count) {
  if (!exe || !count)
    return invalid("tgc_executable_num_buffers: null argument");
  *count = exe->executable->plan().buffers.size();
  return finish(tgc::Status());
}

tgc_status_t tgc_executable_buffer_info(const tgc_executable_t *exe,
                                        size_t index, tgc_buffer_info_t *info) {
  if (!exe || !info)
    return invalid("tgc_executable_buffer_info: null argument");
  const tgc::Plan &plan = exe->executable->plan();
  if (index >= plan.buffers.size())
    return invalid("tgc_executable_buffer_info: index " + std::to_string(index) +
                   " is out of range (the plan has " +
                   std::to_string(plan.buffers.size()) + " buffers)");
  const tgc::Buffer &b = plan.buffers[index];
  info->name = b.name.c_str();
  info->role = static_cast<tgc_buffer_role_t>(b.role);
  info->dtype = static_cast<tgc_dtype_t>(b.dtype);
  info->rank = int32_t(b.shape.size());
  info->shape = b.shape.data();
  info->strides = b.strides.data();
  info->bytes = b.byteSpan();
  info->alignment = b.alignment;
  return finish(tgc::Status());
}

tgc_status_t tgc_executable_prepare(tgc_executable_t *exe, tgc_stream_t stream) {
  return guarded([&] {
    if (!exe)
      return invalid("tgc_executable_prepare: the executable is null");
    return finish(exe->executable->prepare(stream));
  });
}

tgc_status_t tgc_executable_describe(tgc_executable_t *exe, tgc_stream_t stream,
                                     const char **text) {
  return guarded([&] {
    if (!exe || !text)
      return invalid("tgc_executable_describe: null argument");
    *text = "";
    tgc::Expected<std::vector<std::string>> backends =
        exe->executable->stepBackends(stream);
    if (!backends)
      return finish(backends.status());
    describeText.clear();
    for (size_t i = 0; i < backends->size(); ++i)
      describeText += "step " + std::to_string(i) + ": " + (*backends)[i] + "\n";
    *text = describeText.c_str();
    return finish(tgc::Status());
  });
}

tgc_status_t tgc_run(tgc_executable_t *exe, const tgc_binding_t *bindings,
                     size_t num_bindings, tgc_stream_t stream) {
  return guarded(
      [&] { return runImpl(exe, bindings, num_bindings, nullptr, stream); });
}

tgc_status_t tgc_run_with_workspace(tgc_executable_t *exe,
                                    const tgc_binding_t *bindings,
                                    size_t num_bindings, void *workspace,
                                    uint64_t workspace_bytes,
                                    tgc_stream_t stream) {
  return guarded([&] {
    tgc::Workspace ws{workspace, workspace_bytes};
    return runImpl(exe, bindings, num_bindings, &ws, stream);
  });
}

tgc_status_t tgc_cache_stats(tgc_cache_stats_t *stats) {
  if (!stats)
    return invalid("tgc_cache_stats: stats is null");
  tgc::CacheStats s = tgc::kernelCacheStats();
  stats->memory_hits = s.memoryHits;
  stats->disk_hits = s.diskHits;
  stats->compiles = s.compiles;
  stats->corrupt_entries = s.corruptEntries;
  stats->disk_write_failures = s.diskWriteFailures;
  stats->compile_seconds = s.compileSeconds;
  stats->disk_load_seconds = s.diskLoadSeconds;
  return finish(tgc::Status());
}

} // extern "C"

tgc_status_t tgc::reportCApiStatus(const tgc::Status &status) {
  return finish(status);
}

tgc_status_t tgc::wrapCApiExecutable(std::unique_ptr<tgc::Executable> executable,
                                     tgc_executable_t **out) {
  if (!out)
    return invalid("the output pointer is null");
  return guarded([&] {
    *out = new tgc_executable{std::move(executable)};
    return finish(tgc::Status());
  });
}
