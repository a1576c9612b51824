#include "CudnnLibrary.h"
#include "CudnnContext.h"
#include "ToolkitPaths.h"
#include "tgc/Log.h"
#include "tgc/Testing.h"

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>

namespace tgc {

namespace {
struct LibraryState {
  std::mutex mutex;
  std::string overridePath; // testing::setCudnnLibrary
  bool loaded = false;
  std::unique_ptr<CudnnLibrary> library;
  Status status;
};

LibraryState &libraryState() {
  static LibraryState *state = new LibraryState(); // outlives static destructors
  return *state;
}

std::vector<std::string> chooseLibraryPaths(const LibraryState &state) {
  if (!state.overridePath.empty())
    return {state.overridePath};
  return cudnnCandidatePaths();
}

Expected<std::unique_ptr<CudnnLibrary>> loadLibrary(const std::string &path) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    return makeError(StatusCode::Unsupported, "cannot load ", path, " (",
                     why ? why : "unknown error", ")");
  }
  auto library = std::make_unique<CudnnLibrary>();
  library->libraryPath = path;
  std::string missing;
#define TGC_LOAD(fn)                                                           \
  library->fn = reinterpret_cast<decltype(library->fn)>(::dlsym(handle, #fn)); \
  if (!library->fn)                                                            \
    missing += std::string(missing.empty() ? "" : ", ") + #fn;
  TGC_CUDNN_FUNCTIONS(TGC_LOAD)
#undef TGC_LOAD
  // The handle stays open for the life of the process: plans and handles
  // created through it are cached process-wide.
  if (!missing.empty())
    return makeError(StatusCode::Unsupported, path,
                     " is not a usable cuDNN: it lacks ", missing);
  library->version = int(library->cudnnGetVersion());
  // The backend attributes used here are those of cuDNN 9.
  if (library->version < 90000)
    return makeError(StatusCode::Unsupported, path, " is cuDNN ",
                     cudnnVersionText(library->version),
                     "; the runtime needs cuDNN 9 or newer");
  return library;
}
} // namespace

std::vector<std::string> cudnnCandidatePaths() {
  const char *env = std::getenv("TGC_CUDNN_LIBRARY");
  if (env && *env)
    return {env};
  std::vector<std::string> paths = cudaToolkitLibraries("libcudnn.so.9");
  paths.insert(paths.begin(), "libcudnn.so.9");
  return paths;
}

std::string cudnnVersionText(int version) {
  return strCat(version / 10000, ".", version / 100 % 100, ".", version % 100);
}

Expected<const CudnnLibrary *> CudnnLibrary::get() {
  LibraryState &state = libraryState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.loaded) {
    state.loaded = true;
    std::vector<std::string> paths = chooseLibraryPaths(state);
    std::string path = paths.front();
    Expected<std::unique_ptr<CudnnLibrary>> library = loadLibrary(path);
    // The next candidate only when this one does not load at all; one that
    // loads but is unusable (e.g. too old) is reported as it is.
    auto notLoaded = [](const Expected<std::unique_ptr<CudnnLibrary>> &l) {
      return !l && l.status().message().rfind("cannot load ", 0) == 0;
    };
    std::string tried = library ? "" : library.status().message();
    for (size_t i = 1; notLoaded(library) && i < paths.size(); ++i) {
      path = paths[i];
      library = loadLibrary(path);
      if (!library)
        tried += "; " + library.status().message();
    }
    if (notLoaded(library) && paths.size() > 1)
      library = Status(library.status().code(), tried);
    if (library) {
      state.library = library.take();
      TGC_LOG_INFO("loaded cuDNN ", cudnnVersionText(state.library->version),
                   " from ", path);
    } else {
      state.status = library.takeStatus();
      TGC_LOG_INFO("cuDNN is not available: ", state.status.message(),
                   "; cuDNN steps run their NVRTC fallbacks");
    }
  }
  if (!state.library)
    return state.status;
  return static_cast<const CudnnLibrary *>(state.library.get());
}

std::string CudnnLibrary::lastError() const {
  char last[2048] = {0};
  if (cudnnGetLastErrorString)
    cudnnGetLastErrorString(last, sizeof(last));
  last[sizeof(last) - 1] = '\0';
  std::string text = last;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

std::string CudnnLibrary::errorText(cudnnStatus_t status) const {
  const char *name = cudnnGetErrorString ? cudnnGetErrorString(status) : nullptr;
  std::string text = name && *name ? name : strCat("cuDNN status ", int(status));
  std::string last = lastError();
  if (!last.empty())
    text += ": " + last;
  return text;
}

Status CudnnLibrary::check(cudnnStatus_t status, const std::string &what,
                           StatusCode code) const {
  if (status == CUDNN_STATUS_SUCCESS)
    return Status::ok();
  return makeError(code, what, ": ", errorText(status));
}

void testing::setCudnnLibrary(const std::string &path) {
  LibraryState &state = libraryState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.overridePath = path;
  state.loaded = false;
  // Leaked on purpose, like the driver: cached plans and handles may still
  // refer to its functions. The caches are dropped so that the next
  // library builds its own.
  state.library.release();
  state.status = Status();
  resetCudnnContexts();
}

} // namespace tgc
