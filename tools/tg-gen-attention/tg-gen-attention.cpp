// tg-gen-attention: prints the CUDA C++ attention forward kernel that tgc
// generates for a spec given by flags, and optionally its launch
// configuration as JSON. Used to inspect kernels and to carry them to a GPU.
//
//   tg-gen-attention --dtype=bf16 --head-dim=128 --causal=bottom_right \
//       --training -o attn.cu --meta=attn.json

#include "tg/Codegen/AttentionKernel.h"
#include "tgc/tgc.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace tg::codegen;

namespace {

const char *kUsage = R"(usage: tg-gen-attention [options]
  --version                   print the tgc version and exit
  --dtype=bf16|f16|e4m3|e5m2  element type of q, k, v, o (default bf16; fp8: FP8
                              attention, sm_90a; the V^T prepare kernel is not written)
  --out-dtype=TYPE            o's type for fp8 inputs (default: the input type)
  --head-dim=N                head dim of q/k and v (default 128)
  --head-dim-qk=N, --head-dim-v=N
  --heads-q=N, --heads-kv=N   query and kv heads (default 1 and 1; GQA ratio)
  --causal=none|top_left|bottom_right
  --window-left=N, --window-right=N
  --seq-len-q, --seq-len-kv   padding masks from per-batch int32 lengths
  --padding                   both of the above
  --dropout=P                 dropout probability in [0, 1)
  --training                  also write the log-sum-exp stats
  --scale=X                   score scale (default 1/sqrt(head dim qk))
  --score=CODE                score modifier: C++ statements rewriting `float s`
  --score-file=PATH           the same, read from a file
  --capture=NAME:TYPE         captured tensor (TYPE f32|f16|bf16|i32|i64|i8|i1), repeatable
  --arch=TARGET               the target, as tg-compile takes it (default sm_80): its arch
                              selects the tile table; sm_90a with head dims multiple of 64
                              gives the wgmma kernel (compile it for sm_90a)
  --tile=MxN:W[:smem|regs][:B][:s1..s4][:pN][:wg][:ws][:pp]  override the tile: M query
                              rows, N keys, W warps, Q in shared memory or registers,
                              B blocks per SM, 1 to 4 K/V buffers, fragment prefetch N,
                              wgmma (sm_90a), warp-specialised (a copying warpgroup),
                              ping-pong between the two compute warpgroups
  -o PATH                     write the source there (default: stdout)
  --meta=PATH                 write entry, block, shared memory, tile as JSON
)";

[[noreturn]] void fail(const std::string &message) {
  std::cerr << "tg-gen-attention: " << message << "\n";
  std::exit(1);
}

long long parseInt(const std::string &flag, const std::string &value) {
  char *end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0')
    fail("expected an integer for " + flag + ", got '" + value + "'");
  return v;
}

double parseDouble(const std::string &flag, const std::string &value) {
  char *end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0')
    fail("expected a number for " + flag + ", got '" + value + "'");
  return v;
}

CaptureType parseCaptureType(const std::string &s) {
  if (s == "f32") return CaptureType::F32;
  if (s == "f16") return CaptureType::F16;
  if (s == "bf16") return CaptureType::BF16;
  if (s == "i32") return CaptureType::I32;
  if (s == "i64") return CaptureType::I64;
  if (s == "i8") return CaptureType::I8;
  if (s == "i1") return CaptureType::Bool;
  fail("unknown capture type '" + s + "' (expected f32, f16, bf16, i32, i64, i8 or i1)");
}

AttentionTileConfig parseTile(const std::string &s) {
  std::string error;
  std::optional<AttentionTileConfig> tile = parseAttentionTile(s, &error);
  if (!tile)
    fail("--tile: " + error);
  return *tile;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  AttentionForwardSpec spec;
  std::string outPath, metaPath;
  bool scaleGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string flag = arg, value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (flag == "-h" || flag == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (flag == "--version") {
      std::cout << "tg-gen-attention: tgc " << tgc::version() << "\n";
      return 0;
    } else if (flag == "-o") {
      if (i + 1 >= argc)
        fail("-o needs a path");
      outPath = argv[++i];
    } else if (flag == "--meta") {
      metaPath = value;
    } else if (flag == "--dtype") {
      if (value == "bf16")
        spec.elementType = AttentionElementType::BF16;
      else if (value == "f16")
        spec.elementType = AttentionElementType::F16;
      else if (value == "e4m3")
        spec.elementType = AttentionElementType::E4M3;
      else if (value == "e5m2")
        spec.elementType = AttentionElementType::E5M2;
      else
        fail("--dtype expects bf16, f16, e4m3 or e5m2, got '" + value + "'");
    } else if (flag == "--out-dtype") {
      if (value == "bf16")
        spec.outputType = AttentionElementType::BF16;
      else if (value == "f16")
        spec.outputType = AttentionElementType::F16;
      else if (value == "e4m3")
        spec.outputType = AttentionElementType::E4M3;
      else if (value == "e5m2")
        spec.outputType = AttentionElementType::E5M2;
      else
        fail("--out-dtype expects bf16, f16, e4m3 or e5m2, got '" + value + "'");
    } else if (flag == "--head-dim") {
      spec.headDimQK = spec.headDimV = int(parseInt(flag, value));
    } else if (flag == "--head-dim-qk") {
      spec.headDimQK = int(parseInt(flag, value));
    } else if (flag == "--head-dim-v") {
      spec.headDimV = int(parseInt(flag, value));
    } else if (flag == "--heads-q") {
      spec.numHeadsQ = int(parseInt(flag, value));
    } else if (flag == "--heads-kv") {
      spec.numHeadsKV = int(parseInt(flag, value));
    } else if (flag == "--causal") {
      if (value == "none")
        spec.causal = AttentionCausalMode::None;
      else if (value == "top_left")
        spec.causal = AttentionCausalMode::TopLeft;
      else if (value == "bottom_right")
        spec.causal = AttentionCausalMode::BottomRight;
      else
        fail("--causal expects none, top_left or bottom_right, got '" + value + "'");
    } else if (flag == "--window-left") {
      spec.windowLeft = parseInt(flag, value);
    } else if (flag == "--window-right") {
      spec.windowRight = parseInt(flag, value);
    } else if (flag == "--seq-len-q") {
      spec.hasSeqLenQ = true;
    } else if (flag == "--seq-len-kv") {
      spec.hasSeqLenKv = true;
    } else if (flag == "--padding") {
      spec.hasSeqLenQ = spec.hasSeqLenKv = true;
    } else if (flag == "--dropout") {
      spec.dropoutProbability = parseDouble(flag, value);
    } else if (flag == "--training") {
      spec.training = true;
    } else if (flag == "--scale") {
      spec.scale = parseDouble(flag, value);
      scaleGiven = true;
    } else if (flag == "--score") {
      spec.scoreModifier = value;
    } else if (flag == "--score-file") {
      std::ifstream in(value);
      if (!in)
        fail("cannot read " + value);
      std::stringstream ss;
      ss << in.rdbuf();
      spec.scoreModifier = ss.str();
    } else if (flag == "--capture") {
      size_t colon = value.rfind(':');
      if (colon == std::string::npos)
        fail("--capture expects NAME:TYPE, got '" + value + "'");
      spec.captures.push_back(
          {value.substr(0, colon), parseCaptureType(value.substr(colon + 1))});
    } else if (flag == "--arch") {
      tgc::Expected<tgc::CompileTarget> target = tgc::parseTarget(value);
      if (!target)
        fail("--arch: " + target.status().message());
      spec.target = *target;
    } else if (flag == "--tile") {
      spec.tileOverride = parseTile(value);
    } else {
      fail("unknown option '" + arg + "' (see --help)");
    }
  }
  if (!scaleGiven)
    spec.scale = 1.0 / std::sqrt(double(spec.headDimQK));

  std::string error;
  std::optional<AttentionKernel> kernel = generateAttentionForward(spec, &error);
  if (!kernel)
    fail(error);

  if (outPath.empty()) {
    std::cout << kernel->source;
  } else {
    std::ofstream out(outPath);
    out << kernel->source;
    if (!out)
      fail("cannot write " + outPath);
  }
  if (!metaPath.empty()) {
    std::ofstream meta(metaPath);
    meta << "{\"entry\": \"" << jsonEscape(kernel->entry) << "\", \"threads\": "
         << kernel->threads << ", \"shared_bytes\": " << kernel->sharedBytes
         << ", \"block_m\": " << kernel->tile.blockM << ", \"block_n\": " << kernel->tile.blockN
         << ", \"warps\": " << kernel->tile.warps << ", \"stages\": " << kernel->tile.stages << ", \"prefetch\": " << kernel->tile.prefetch
         << ", \"wgmma\": " << (kernel->tile.wgmma ? "true" : "false")
         << ", \"required_target\": \"" << kernel->requiredTarget << "\""
         << ", \"q_in_registers\": "
         << (kernel->tile.qInRegisters ? "true" : "false")
         << ", \"num_params\": " << kernel->numParams << "}\n";
    if (!meta)
      fail("cannot write " + metaPath);
  }
  return 0;
}
