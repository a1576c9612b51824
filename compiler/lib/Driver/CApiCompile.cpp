// tgc_compile_file / tgc_compile_string: the C API's compile entry points,
// implemented here because they need the MLIR compiler (libtgc).
#include "tgc/CApiSupport.h"
#include "tgc/tgc.hpp"

#include <sstream>

namespace {
/// Parses a tg-compile style option string, options separated by spaces:
/// --arch=X here, every other one checked by the compiler's option parser
/// (Compiler.cpp: compileBuffer), which names the options it knows.
tgc::Expected<tgc::CompileOptions> parseOptions(const char *text) {
  tgc::CompileOptions options;
  if (!text)
    return options;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (word.rfind("--arch=", 0) == 0)
      options.arch = word.substr(7);
    else
      options.extra.push_back(word);
  }
  return options;
}

tgc_status_t finishCompile(tgc::Expected<tgc::Plan> plan,
                           tgc_executable_t **out) {
  if (!plan.hasValue())
    return tgc::reportCApiStatus(plan.status());
  auto executable = tgc::Executable::create(plan.take());
  if (!executable.hasValue())
    return tgc::reportCApiStatus(executable.status());
  return tgc::wrapCApiExecutable(executable.take(), out);
}
} // namespace

extern "C" tgc_status_t tgc_compile_file(const char *path, const char *options,
                                         tgc_executable_t **out) {
  if (!path || !out)
    return tgc::reportCApiStatus(tgc::Status(
        tgc::StatusCode::InvalidArgument,
        "tgc_compile_file: path and out must not be null"));
  auto parsed = parseOptions(options);
  if (!parsed.hasValue())
    return tgc::reportCApiStatus(parsed.status());
  return finishCompile(tgc::Compiler(parsed.take()).compileFile(path), out);
}

extern "C" tgc_status_t tgc_compile_string(const char *source, size_t size,
                                           const char *options,
                                           tgc_executable_t **out) {
  if (!source || !out)
    return tgc::reportCApiStatus(tgc::Status(
        tgc::StatusCode::InvalidArgument,
        "tgc_compile_string: source and out must not be null"));
  auto parsed = parseOptions(options);
  if (!parsed.hasValue())
    return tgc::reportCApiStatus(parsed.status());
  return finishCompile(
      tgc::Compiler(parsed.take()).compileString(std::string(source, size)),
      out);
}
