// Tests of the device library (compiler/lib/Codegen/device/): every header
// compiles with NVRTC as it is, the pasting of headers into kernel sources,
// and the mask rule compiled on the host against a brute-force reading of
// tg's masks (philox.cuh: PhiloxTest.cpp).

#include "../../compiler/lib/Codegen/DeviceLibrary.h"

#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// Host shims for what the headers use from CUDA.
namespace device_host {
#define TG_DEVICE_HOST_EMULATION 1 // ptx.cuh's functions are not needed here
#define __device__
#define __host__
#define __forceinline__ inline
static float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
static float __uint_as_float(unsigned i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
static unsigned long long __cvta_generic_to_shared(const void *) { return 0; }
#include "../../compiler/lib/Codegen/device/masks.cuh"
#undef __device__
#undef __host__
#undef __forceinline__
} // namespace device_host

using namespace tg::codegen;

namespace {

//===----------------------------------------------------------------------===//
// NVRTC: each header as a translation unit of its own
//===----------------------------------------------------------------------===//

std::string compileHeader(const std::string &name, const std::string &arch) {
  const auto &headers = deviceLibraryHeaders();
  std::vector<const char *> names, texts;
  for (const auto &[n, t] : headers) {
    names.push_back(n.c_str());
    texts.push_back(t.c_str());
  }
  std::string source = "#include \"" + name + "\"\n";
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), "header_check.cu", int(names.size()), texts.data(),
                         names.data()) != NVRTC_SUCCESS)
    return "nvrtcCreateProgram failed";
  std::string archFlag = "--gpu-architecture=" + arch;
  const char *options[] = {archFlag.c_str(), "-std=c++17", "-I" TGC_CUDA_INCLUDE_DIR};
  nvrtcResult r = nvrtcCompileProgram(prog, 3, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  if (logSize)
    nvrtcGetProgramLog(prog, log.data());
  nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS)
    return "failed:\n" + log;
  if (log.find("warning") != std::string::npos)
    return "warnings:\n" + log;
  return "";
}

TEST(DeviceLibrary, EveryHeaderCompilesAsItIs) {
  ASSERT_GE(deviceLibraryHeaders().size(), 9u);
  for (const auto &[name, text] : deviceLibraryHeaders()) {
    EXPECT_NE(text.find("#pragma once"), std::string::npos) << name;
    EXPECT_EQ(compileHeader(name, "compute_80"), "") << name;
  }
}

TEST(DeviceLibrary, PastesEachHeaderOnceInIncludeOrder) {
  std::string src = deviceLibrarySource({"attention_bwd.cuh", "prelude.cuh", "mma.cuh"});
  for (const char *h : {"ptx.cuh", "prelude.cuh", "copy.cuh", "masks.cuh", "mma.cuh",
                        "philox.cuh", "attention_bwd.cuh"}) {
    std::string banner = std::string("// ---- device/") + h + " ----";
    size_t at = src.find(banner);
    ASSERT_NE(at, std::string::npos) << h;
    EXPECT_EQ(src.find(banner, at + 1), std::string::npos) << h << " pasted twice";
  }
  EXPECT_LT(src.find("device/ptx.cuh"), src.find("device/prelude.cuh"));
  EXPECT_LT(src.find("device/prelude.cuh"), src.find("device/copy.cuh"));
  EXPECT_LT(src.find("device/mma.cuh"), src.find("device/attention_bwd.cuh"));
  EXPECT_EQ(src.find("#pragma once"), std::string::npos);
  EXPECT_EQ(src.find("#include \""), std::string::npos);
  // Only what was asked for (and its includes).
  EXPECT_EQ(src.find("device/attention_bwd_convert.cuh"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// The mask rule (masks.cuh) against a brute-force reading of tg's masks
//===----------------------------------------------------------------------===//

struct MaskCase {
  int lenQ, lenKv;
  bool bottomRight, upper, left;
  int right, windowLeft;
};

/// tg.attention's masks as the reference interpreter states them.
bool visibleByDefinition(const MaskCase &c, int q, int kv) {
  if (q >= c.lenQ || kv >= c.lenKv)
    return false;
  int diag = c.bottomRight ? q + c.lenKv - c.lenQ : q;
  if (c.upper && kv > diag + c.right)
    return false;
  if (c.left && kv < diag - c.windowLeft)
    return false;
  return true;
}

template <bool kUpper, bool kLeft, int kRight, int kWindow>
void checkRule(const MaskCase &c, std::mt19937 &rng) {
  device_host::tg::device::MaskRule<kUpper, kRight, kLeft, kWindow> rule{
      c.lenQ, c.lenKv, c.bottomRight ? c.lenKv - c.lenQ : 0};
  MaskCase d = c;
  d.upper = kUpper;
  d.left = kLeft;
  d.right = kRight;
  d.windowLeft = kWindow;
  const int maxQ = c.lenQ + 40, maxKv = c.lenKv + 40;
  for (int q = 0; q < maxQ; q += 3)
    for (int kv = 0; kv < maxKv; kv += 2)
      ASSERT_EQ(rule.visible(q, kv), visibleByDefinition(d, q, kv)) << q << "," << kv;
  for (int trial = 0; trial < 60; ++trial) {
    int size = 16 << (trial % 3);
    int lo = int(rng() % unsigned(maxKv)) / size * size, hi = lo + size;
    // Rows that see a key of [lo, hi): rows_seeing must give exactly their span.
    int first = -1, last = -1;
    for (int q = 0; q < maxQ; ++q)
      for (int kv = lo; kv < hi; ++kv)
        if (visibleByDefinition(d, q, kv)) {
          if (first < 0)
            first = q;
          last = q;
          break;
        }
    int begin, end;
    rule.rows_seeing(lo, hi, &begin, &end);
    if (first < 0) {
      // None sees the block: empty, or (window left + right < 0 only) rows
      // whose keys are all masked per element.
      if (kWindow + kRight >= 0 || !(kUpper && kLeft)) {
        EXPECT_EQ(begin, end) << lo;
      }
    } else {
      EXPECT_EQ(begin, first) << "keys " << lo << ".." << hi;
      EXPECT_EQ(end, last + 1) << "keys " << lo << ".." << hi;
    }
    // Keys seen from rows [lo, hi) (reusing the block as a row block).
    int kFirst = -1, kLast = -1;
    for (int kv = 0; kv < maxKv; ++kv)
      for (int q = lo; q < hi; ++q)
        if (visibleByDefinition(d, q, kv)) {
          if (kFirst < 0)
            kFirst = kv;
          kLast = kv;
          break;
        }
    rule.keys_seen(lo, hi, &begin, &end);
    if (kFirst >= 0) {
      EXPECT_EQ(begin, kFirst);
      EXPECT_EQ(end, kLast + 1);
    } else if (kWindow + kRight >= 0 || !(kUpper && kLeft)) {
      EXPECT_EQ(begin, end);
    }
    // all_visible may only claim blocks that are visible everywhere.
    int q0 = int(rng() % unsigned(maxQ)) / 16 * 16;
    bool all = true;
    for (int q = q0; q < q0 + 16; ++q)
      for (int kv = lo; kv < hi; ++kv)
        all = all && visibleByDefinition(d, q, kv);
    EXPECT_EQ(rule.all_visible(q0, q0 + 16, lo, hi), all) << q0 << " x " << lo;
  }
}

TEST(DeviceMasks, RuleMatchesTheDefinition) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    MaskCase c{};
    c.lenQ = 1 + int(rng() % 200);
    c.lenKv = 1 + int(rng() % 200);
    c.bottomRight = trial % 2;
    checkRule<false, false, 0, 0>(c, rng);   // padding only
    checkRule<true, false, 0, 0>(c, rng);    // causal
    checkRule<true, true, 0, 37>(c, rng);    // causal + window left
    checkRule<true, true, 16, 40>(c, rng);   // window both sides
    checkRule<true, false, -3, 0>(c, rng);   // window right < 0
    checkRule<false, true, 0, 5>(c, rng);    // window left only
    checkRule<true, true, -20, 10>(c, rng);  // empty band (left + right < 0)
  }
}

} // namespace
