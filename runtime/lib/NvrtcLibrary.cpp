#include "NvrtcLibrary.h"
#include "ToolkitPaths.h"
#include "tgc/Log.h"
#include "tgc/Testing.h"

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <sys/stat.h>

namespace tgc {

namespace {
struct LibraryState {
  std::mutex mutex;
  std::string overridePath; // testing::setNvrtcLibrary
  bool loaded = false;
  std::unique_ptr<NvrtcLibrary> library;
  // Returned by reference from nvrtcInfo(); replaced, never freed, when a
  // test loads another library.
  NvrtcInfo *failure = nullptr;
};

LibraryState &libraryState() {
  static LibraryState *state =
      new LibraryState(); // outlives static destructors
  return *state;
}

const std::string kSoname = strCat("libnvrtc.so.", kNvrtcMajor);

bool isFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// NVRTC finds its builtins library (libnvrtc-builtins.so.MAJOR.MINOR) only
// through the loader's search path. Loading it first from NVRTC's own
// directory makes NVRTC's later dlopen of that soname find it, wherever
// NVRTC itself came from.
std::string directoryOf(void *handle) {
  char origin[4096] = {0};
  return ::dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0 ? origin : "";
}

void preloadBuiltins(const std::string &directory, const NvrtcInfo &info) {
  std::string builtins =
      strCat(directory, "/libnvrtc-builtins.so.", info.major, ".", info.minor);
  if (!directory.empty() && isFile(builtins) &&
      !::dlopen(builtins.c_str(), RTLD_NOW | RTLD_LOCAL))
    TGC_LOG_WARN("cannot preload ", builtins, ": ", ::dlerror());
}

// One candidate: loaded, checked, or an error that says why not.
Expected<std::unique_ptr<NvrtcLibrary>> loadLibrary(const std::string &path) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeError(StatusCode::CompileError, why ? why : "unknown error");
  }
  auto library = std::make_unique<NvrtcLibrary>();
  library->libraryPath = path;
  std::string missing;
#define TGC_LOAD(fn)                                                           \
  library->fn = reinterpret_cast<decltype(library->fn)>(::dlsym(handle, #fn)); \
  if (!library->fn)                                                            \
    missing += std::string(missing.empty() ? "" : ", ") + #fn;
  TGC_NVRTC_FUNCTIONS(TGC_LOAD)
#undef TGC_LOAD
  // The handle stays open for the life of the process: compiled programs
  // and the cache's compiler refer to its functions.
  if (!missing.empty())
    return makeError(StatusCode::CompileError, "not NVRTC: it lacks ", missing);
  NvrtcInfo &info = library->info;
  if (library->nvrtcVersion(&info.major, &info.minor) != NVRTC_SUCCESS)
    return makeError(StatusCode::CompileError, "nvrtcVersion failed");
  if (info.major != kNvrtcMajor)
    return makeError(StatusCode::CompileError, "it is NVRTC ", info.version(),
                     "; this runtime needs NVRTC ", kNvrtcMajor, " (CUDA ",
                     kNvrtcMajor, ")");
  int count = 0;
  if (library->nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS &&
      count > 0) {
    info.archs.resize(size_t(count));
    if (library->nvrtcGetSupportedArchs(info.archs.data()) != NVRTC_SUCCESS)
      info.archs.clear();
  }
  library->directory = directoryOf(handle);
  preloadBuiltins(library->directory, info);
  return library;
}

Expected<std::unique_ptr<NvrtcLibrary>>
loadFirst(const std::vector<std::string> &paths, bool fromEnv) {
  std::string tried;
  for (const std::string &path : paths) {
    Expected<std::unique_ptr<NvrtcLibrary>> library = loadLibrary(path);
    if (library)
      return library;
    tried += strCat(tried.empty() ? "" : "; ", path, ": ",
                    library.status().message());
  }
  if (fromEnv)
    return makeError(StatusCode::CompileError,
                     "cannot load NVRTC from TGC_NVRTC_LIBRARY=", tried,
                     "; point it at the CUDA ", kNvrtcMajor, " toolkit's ",
                     kSoname, " or unset it");
  return makeError(StatusCode::CompileError, "cannot load NVRTC (", kSoname,
                   "), which compiles the plan's kernels; tried ", tried,
                   ". Install the CUDA ", kNvrtcMajor,
                   " toolkit's NVRTC, or set TGC_NVRTC_LIBRARY to its ",
                   kSoname, ", or CUDA_HOME to the toolkit's root");
}
} // namespace

std::vector<std::string> nvrtcCandidatePaths() {
  if (const char *env = std::getenv("TGC_NVRTC_LIBRARY"); env && *env)
    return {env};
  // Only files that exist: the error then lists what was really there.
  std::vector<std::string> paths = cudaToolkitLibraries(kSoname);
  paths.insert(paths.begin(), kSoname);
  return paths;
}

Expected<const NvrtcLibrary *> NvrtcLibrary::get() {
  LibraryState &state = libraryState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.loaded) {
    state.loaded = true;
    std::vector<std::string> paths;
    bool fromEnv = false;
    if (!state.overridePath.empty()) {
      paths = {state.overridePath};
    } else {
      paths = nvrtcCandidatePaths();
      const char *env = std::getenv("TGC_NVRTC_LIBRARY");
      fromEnv = env && *env;
    }
    Expected<std::unique_ptr<NvrtcLibrary>> library = loadFirst(paths, fromEnv);
    if (library) {
      state.library = library.take();
      TGC_LOG_INFO("loaded NVRTC ", state.library->info.version(), " from ",
                   state.library->libraryPath, " (in ",
                   state.library->directory, ")");
    } else {
      state.failure = new NvrtcInfo();
      state.failure->status = library.takeStatus();
      TGC_LOG_INFO(state.failure->status.message());
    }
  }
  if (!state.library)
    return state.failure->status;
  return static_cast<const NvrtcLibrary *>(state.library.get());
}

const NvrtcInfo &nvrtcInfo() {
  Expected<const NvrtcLibrary *> library = NvrtcLibrary::get();
  if (library)
    return (*library)->info;
  LibraryState &state = libraryState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return *state.failure;
}

void testing::setNvrtcLibrary(const std::string &path) {
  LibraryState &state = libraryState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.overridePath = path;
  state.loaded = false;
  // Leaked on purpose, like the driver: the kernel cache and callers of
  // nvrtcInfo() may still refer to it.
  state.library.release();
}

} // namespace tgc
