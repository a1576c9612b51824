// tgc-kernel-fingerprint: compiles the attention forward variants
// (AttentionForwardVariants.h, plus the benchmark's own configurations) with
// NVRTC and prints, per variant and target, what a change to the generator
// must not change without a reason: ptxas's resource usage (registers,
// stack, spills, shared memory), the SASS size and a hash of its bytes (the
// cubin's .text section), and counts of the key PTX instructions. No GPU is
// needed. scripts/kernel-fingerprint.sh compares two runs.
//
//   tgc-kernel-fingerprint [name-substring]    fingerprints (of matching variants)
//   tgc-kernel-fingerprint --source NAME        the generated source of variant NAME

#include "AttentionForwardVariants.h"
#include "NvrtcCompile.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <regex>
#include <string>
#include <vector>

using namespace tg::codegen;
using namespace tg::codegen::testing;

namespace {

template <class T>
T readAt(const std::vector<char> &bytes, size_t offset) {
  T value{};
  if (offset + sizeof(T) <= bytes.size())
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// Total size and FNV-1a hash of the cubin's code sections (.text.*): the
/// SASS, 16 bytes per instruction.
std::pair<uint64_t, uint32_t> sassOf(const std::vector<char> &elf) {
  uint64_t shoff = readAt<uint64_t>(elf, 0x28);
  uint16_t shentsize = readAt<uint16_t>(elf, 0x3A), shnum = readAt<uint16_t>(elf, 0x3C),
           shstrndx = readAt<uint16_t>(elf, 0x3E);
  uint64_t names = readAt<uint64_t>(elf, shoff + uint64_t(shstrndx) * shentsize + 0x18);
  uint64_t size = 0;
  uint32_t hash = 2166136261u;
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t header = shoff + uint64_t(i) * shentsize;
    uint32_t name = readAt<uint32_t>(elf, header);
    uint64_t offset = readAt<uint64_t>(elf, header + 0x18), bytes = readAt<uint64_t>(elf, header + 0x20);
    if (names + name >= elf.size() || std::strncmp(elf.data() + names + name, ".text.", 6) != 0)
      continue;
    size += bytes;
    for (uint64_t b = offset; b < offset + bytes && b < elf.size(); ++b)
      hash = (hash ^ static_cast<unsigned char>(elf[b])) * 16777619u;
  }
  return {size, hash};
}

std::string field(const std::string &log, const char *pattern) {
  std::smatch m;
  return std::regex_search(log, m, std::regex(pattern)) ? m[1].str() : "-";
}

/// Occurrences of PTX instructions starting with `opcode` (at a line start;
/// inline asm blocks put instructions at the start of a line).
int countPtx(const std::string &ptx, const std::string &opcode) {
  int n = 0;
  for (size_t at = 0; (at = ptx.find(opcode, at)) != std::string::npos; at += opcode.size())
    if (at > 0 && (ptx[at - 1] == '\t' || ptx[at - 1] == ' ' || ptx[at - 1] == '\n'))
      ++n;
  return n;
}

std::string ptxCounts(const std::string &ptx) {
  std::string out;
  for (const char *op : {"mma.sync", "wgmma.mma_async", "ldmatrix", "cp.async.cg", "cp.async.wait",
                         "ex2.approx", "shfl.sync", "bar.sync", "fence.proxy.async"})
    out += std::string(" ") + op + "=" + std::to_string(countPtx(ptx, op));
  return out;
}

std::vector<Variant> allVariants() {
  std::vector<Variant> v = variants();
  // The forward benchmark's configurations (bench/bench_attention.py).
  auto add = [&](const char *name, int d, bool sm90a, AttentionCausalMode causal,
                 bool softcap) {
    AttentionForwardSpec s = baseSpec(d);
    s.causal = causal;
    if (sm90a) {
      s.target = tgc::CompileTarget::cubin(90, true);
    }
    if (softcap)
      s.scoreModifier = "s = 30.0f * tanhf(s / 30.0f);";
    v.push_back({name, s, false, sm90a});
  };
  using C = AttentionCausalMode;
  add("bench_d128_bf16_causal_br", 128, false, C::BottomRight, false);
  add("bench_d128_bf16_softcap", 128, false, C::None, true);
  add("bench_wgmma_d128_bf16_plain", 128, true, C::None, false);
  add("bench_wgmma_d128_bf16_causal_tl", 128, true, C::TopLeft, false);
  add("bench_wgmma_d256_bf16_causal_br", 256, true, C::BottomRight, false);
  add("bench_wgmma_d64_bf16_softcap", 64, true, C::None, true);
  return v;
}

std::string fingerprint(const Variant &var, const std::string &arch) {
  std::string error;
  auto k = generateAttentionForward(var.spec, &error);
  if (!k)
    return std::string(var.name) + " " + arch + " GENERATOR ERROR " + error + "\n";
  std::string line = std::string(var.name) + " " + arch;
  bool cubin = arch.rfind("sm_", 0) == 0;
  NvrtcCompiled c = compileWithNvrtc(k->source, arch, "attention.cu");
  if (!c.ok)
    return line + " COMPILE ERROR\n" + c.log + "\n";
  if (cubin) {
    auto [sass, hash] = sassOf(c.image);
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%08x", hash);
    line += " regs=" + field(c.log, "Used (\\d+) registers") +
            " stack=" + field(c.log, "(\\d+) bytes stack frame") +
            " spill_st=" + field(c.log, "(\\d+) bytes spill stores") +
            " spill_ld=" + field(c.log, "(\\d+) bytes spill loads") +
            " smem_dyn=" + std::to_string(k->sharedBytes) +
            " smem_static=" + field(c.log, "(\\d+) bytes smem") +
            " sass=" + std::to_string(sass / 16) + " sass_hash=" + hex;
    // The PTX that ptxas compiled: the same source for the virtual arch.
    NvrtcCompiled p = compileWithNvrtc(k->source, "compute_" + arch.substr(3), "attention.cu");
    line += p.ok ? ptxCounts(p.image.data()) : " PTX ERROR";
  } else {
    line += ptxCounts(c.image.data());
  }
  return line + "\n";
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--source") {
    for (const Variant &v : allVariants())
      if (v.name == std::string(argv[2])) {
        std::string error;
        auto k = generateAttentionForward(v.spec, &error);
        std::fputs(k ? k->source.c_str() : error.c_str(), stdout);
        return k ? 0 : 1;
      }
    std::fprintf(stderr, "no variant named %s\n", argv[2]);
    return 1;
  }
  std::string filter = argc > 1 ? argv[1] : "";
  std::vector<std::pair<Variant, std::string>> jobs;
  for (const Variant &v : allVariants()) {
    if (!filter.empty() && std::string(v.name).find(filter) == std::string::npos)
      continue;
    std::vector<std::string> archs = {"sm_80", "sm_90a", "compute_80"};
    if (v.wgmmaOnly)
      archs = {"sm_90a"};
    for (const std::string &a : archs)
      jobs.push_back({v, a});
  }
  // Two compilations at a time, printed in order.
  std::vector<std::future<std::string>> running;
  size_t next = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    while (next < jobs.size() && next < i + 2) {
      running.push_back(std::async(std::launch::async, [&jobs, next] {
        return fingerprint(jobs[next].first, jobs[next].second);
      }));
      ++next;
    }
    std::fputs(running[i].get().c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}
