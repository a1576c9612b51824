// Embedding the tgc compiler through its C++ API (docs/api.md): compile a
// tg graph to a plan, list its buffers and steps, and compile the plan's
// kernels with NVRTC for a GPU arch, filling the kernel cache. None of this
// needs a GPU; tgc::Executable::run would then execute the plan on one.
//
//   build/bin/tgc-compile-example [graph.mlir] [--arch=sm_80]
//
// Without a graph it compiles the causal attention below.
#include "tgc/tgc.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace {
const char *kAttention = R"(
func.func @attention(
    %q: tensor<1x4x128x64xbf16> {tg.name = "q"},
    %k: tensor<1x4x128x64xbf16> {tg.name = "k"},
    %v: tensor<1x4x128x64xbf16> {tg.name = "v"})
    -> (tensor<1x4x128x64xbf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v {causal = #tg<causal top_left>}
      : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
      -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}
)";

std::string dims(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}
} // namespace

int main(int argc, char **argv) {
  std::string graph, arch = "sm_80";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--arch=", 7) == 0)
      arch = argv[i] + 7;
    else
      graph = argv[i];
  }
  std::printf("tgc %s\n", tgc::version());

  tgc::Compiler compiler(tgc::CompileOptions{arch, {}});
  tgc::Expected<tgc::Plan> plan = graph.empty()
                                      ? compiler.compileString(kAttention)
                                      : compiler.compileFile(graph);
  if (!plan) {
    std::fprintf(stderr, "compile-example: %s\n",
                 plan.status().message().c_str());
    return 1;
  }
  std::printf("plan '%s': %zu buffers, %zu steps, %zu kernels\n",
              plan->name.c_str(), plan->buffers.size(), plan->steps.size(),
              plan->kernels.size());
  for (const tgc::Buffer &buffer : plan->buffers)
    std::printf("  %s %s %s %s\n", tgc::bufferRoleName(buffer.role),
                buffer.name.c_str(), tgc::dtypeName(buffer.dtype),
                dims(buffer.shape).c_str());
  for (const tgc::Step &step : plan->steps)
    std::printf("  step: %s\n", tgc::stepKindName(step));

  // What a GPU of that arch would run, compiled now ("sm_80" -> 80,
  // "sm_90a" -> 90, "sm_100" -> 100; the compile above rejected other names).
  int deviceArch = std::stoi(arch.substr(arch.find('_') + 1));
  tgc::Status status = tgc::precompilePlan(*plan, deviceArch, false);
  if (!status.isOk()) {
    std::fprintf(stderr, "compile-example: %s\n", status.message().c_str());
    return 1;
  }
  tgc::CacheStats stats = tgc::kernelCacheStats();
  std::printf("kernels for %s: %llu compiled with NVRTC, %llu from the disk "
              "cache\n",
              arch.c_str(), (unsigned long long)stats.compiles,
              (unsigned long long)stats.diskHits);
  return 0;
}
