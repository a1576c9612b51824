#include "TestUtil.h"
#include "tgc/Plan.h"
#include "tgc/Sha256.h"
#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace tgc;
using namespace tgc::test;

namespace {
void expectSamePlan(const Plan &a, const Plan &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.workspaceBytes, b.workspaceBytes);
  EXPECT_EQ(a.workspaceAlignment, b.workspaceAlignment);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const Buffer &x = a.buffers[i], &y = b.buffers[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.role, y.role);
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.strides, y.strides);
    EXPECT_EQ(x.alignment, y.alignment);
    EXPECT_EQ(x.offset, y.offset);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const Kernel &x = a.kernels[i], &y = b.kernels[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.entry, y.entry);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.options, y.options);
    EXPECT_EQ(x.target, y.target);
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    ASSERT_EQ(a.steps[i].index(), b.steps[i].index());
    if (auto *x = std::get_if<LaunchStep>(&a.steps[i])) {
      auto &y = std::get<LaunchStep>(b.steps[i]);
      ASSERT_EQ(x->variants.size(), y.variants.size());
      for (size_t v = 0; v < x->variants.size(); ++v) {
        EXPECT_EQ(x->variants[v].kernel, y.variants[v].kernel);
        EXPECT_EQ(x->variants[v].grid, y.variants[v].grid);
        EXPECT_EQ(x->variants[v].block, y.variants[v].block);
        EXPECT_EQ(x->variants[v].sharedBytes, y.variants[v].sharedBytes);
        EXPECT_EQ(x->variants[v].args, y.variants[v].args);
      }
    } else if (auto *m = std::get_if<MemsetStep>(&a.steps[i])) {
      EXPECT_EQ(m->buffer, std::get<MemsetStep>(b.steps[i]).buffer);
      EXPECT_EQ(m->value, std::get<MemsetStep>(b.steps[i]).value);
    } else if (auto *c = std::get_if<CopyStep>(&a.steps[i])) {
      EXPECT_EQ(c->src, std::get<CopyStep>(b.steps[i]).src);
      EXPECT_EQ(c->dst, std::get<CopyStep>(b.steps[i]).dst);
    } else {
      const auto &x = std::get<CudnnStep>(a.steps[i]);
      const auto &y = std::get<CudnnStep>(b.steps[i]);
      ASSERT_EQ(x.graphs.size(), y.graphs.size());
      for (size_t g = 0; g < x.graphs.size(); ++g)
        EXPECT_EQ(cudnn::printGraph(x.graphs[g]), cudnn::printGraph(y.graphs[g]));
      ASSERT_EQ(x.fallback.has_value(), y.fallback.has_value());
      if (x.fallback) {
        EXPECT_EQ(x.fallback->variants.size(), y.fallback->variants.size());
      }
    }
  }
}

std::string replaceOnce(std::string text, const std::string &from,
                        const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

std::string resign(const std::string &text) { return resignPlanText(text); }

std::string errorOf(const std::string &text) {
  Expected<Plan> plan = parsePlan(text, "p.plan");
  EXPECT_FALSE(plan.hasValue());
  if (plan)
    return "";
  EXPECT_EQ(plan.status().code(), StatusCode::InvalidPlan);
  return plan.status().message();
}
} // namespace


TEST(Plan, RoundTripEverything) {
  Plan plan = everythingPlan();
  ASSERT_TRUE(plan.validate().isOk()) << plan.validate().message();
  std::string text = serializePlan(plan);
  Expected<Plan> parsed = parsePlan(text, "everything");
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().message();
  expectSamePlan(plan, *parsed);
  EXPECT_EQ(serializePlan(*parsed), text);
}

TEST(Plan, RoundTripThroughFile) {
  std::string dir = makeTempDir("tgc-plan-");
  std::string path = dir + "/e.plan";
  Plan plan = elementwisePlan();
  ASSERT_TRUE(writePlanFile(plan, path).isOk());
  Expected<Plan> read = readPlanFile(path);
  ASSERT_TRUE(read.hasValue()) << read.status().message();
  expectSamePlan(plan, *read);
  removeTree(dir);
}

TEST(Plan, TextIsReadable) {
  std::string text = serializePlan(elementwisePlan(1000));
  EXPECT_EQ(text.rfind(std::string("tgc-plan 1\n# written by tgc ") + version() +
                           "\nplan \"elementwise\"\nworkspace 4096 align 256\n",
                       0),
            0u);
  EXPECT_NE(text.find("buffer \"x\" input f32 shape [1000] strides [1] align 16\n"),
            std::string::npos);
  EXPECT_NE(text.find("buffer \"t\" intermediate f32 shape [1000] strides [1] "
                      "align 256 offset 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("kernel \"axpb\" entry \"axpb\" target portable 80\n"
                      "option \"-std=c++17\"\nsource "),
            std::string::npos);
  EXPECT_NE(text.find("launch\nvariant \"axpb\" grid [8,1,1] block [128,1,1] smem 0\n"
                      "arg buffer \"x\"\narg buffer \"t\"\narg f32 2\narg f32 -1\n"
                      "arg i64 1000\n"),
            std::string::npos);
  EXPECT_NE(text.find("memset \"t\" 0\n"), std::string::npos);
}

TEST(Plan, HandWrittenWithComments) {
  std::string body = "tgc-plan 1\n"
                     "# a comment line\n"
                     "plan \"hand\"   # trailing comment\n"
                     "\n"
                     "workspace 0 align 256\n"
                     "buffer \"a\" input f32 shape [4] strides [1] align 16\n"
                     "buffer \"b\" output f32 shape [4] strides [1] align 16\n"
                     "copy \"a\" \"b\"\n";
  Expected<Plan> plan = parsePlan(resign(body + "end sha256 x\n"));
  ASSERT_TRUE(plan.hasValue()) << plan.status().message();
  EXPECT_EQ(plan->name, "hand");
  EXPECT_EQ(plan->steps.size(), 1u);
}

TEST(Plan, WriterVersionIsACommentTheLoaderIgnores) {
  // "MAJOR.MINOR.PATCH+COMMIT", the same string the C API gives.
  std::string writer = version();
  EXPECT_EQ(writer, tgc_version());
  EXPECT_EQ(writer.rfind(std::string(TGC_VERSION_STRING) + "+", 0), 0u) << writer;
  EXPECT_GT(writer.size(), std::strlen(TGC_VERSION_STRING) + 1) << writer;
  // A plan written by any other tgc loads the same.
  std::string text = serializePlan(elementwisePlan());
  std::string other = resign(replaceOnce(
      text, "# written by tgc " + writer + "\n", "# written by tgc 9.9.9+0123456789ab\n"));
  ASSERT_NE(other, text);
  Expected<Plan> parsed = parsePlan(other);
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().message();
  expectSamePlan(elementwisePlan(), *parsed);
}

TEST(Plan, RejectsUnknownVersion) {
  std::string text = serializePlan(elementwisePlan());
  EXPECT_EQ(errorOf(replaceOnce(text, "tgc-plan 1\n", "tgc-plan 5\n")),
            "p.plan: unsupported plan format version 5; this runtime reads versions 1 to 4");
  EXPECT_EQ(errorOf(replaceOnce(text, "tgc-plan 1\n", "tgc-plan one\n")),
            "p.plan: corrupt plan file: bad version 'one' in header (expected 'tgc-plan 1' "
            "to 'tgc-plan 4')");
  // Only the canonical spelling is version 1.
  for (const char *spelling : {"01", "+1", "1.0", " 1", "0x1", "1 "})
    EXPECT_EQ(errorOf(replaceOnce(text, "tgc-plan 1\n", std::string("tgc-plan ") + spelling + "\n")),
              std::string("p.plan: corrupt plan file: bad version '") + spelling +
                  "' in header (expected 'tgc-plan 1' to 'tgc-plan 4')");
}

// The compiler's target: version 2 holds it; without one the writer still
// writes version 1, which older runtimes read.
TEST(Plan, TargetNeedsVersionTwo) {
  Plan plan = elementwisePlan();
  ASSERT_EQ(serializePlan(plan).rfind("tgc-plan 1\n", 0), 0u);
  plan.target = "sm_90";
  std::string text = serializePlan(plan);
  EXPECT_EQ(text.rfind("tgc-plan 2\n", 0), 0u);
  EXPECT_NE(text.find("\nworkspace 4096 align 256\ntarget sm_90\n"), std::string::npos) << text;
  Expected<Plan> parsed = parsePlan(text);
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().message();
  EXPECT_EQ(parsed->target, "sm_90");
  EXPECT_EQ(serializePlan(*parsed), text);

  EXPECT_EQ(errorOf(resign(replaceOnce(text, "tgc-plan 2\n", "tgc-plan 1\n"))),
            "p.plan:5: 'target' needs plan format version 2 (the file says version 1)");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "target sm_90\n", "target sm_nine\n"))),
            "p.plan:5: bad target 'sm_nine' (expected e.g. sm_90a, sm_80, compute_80)");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "target sm_90\n", "target sm_90\ntarget sm_90\n"))),
            "p.plan:6: duplicate 'target' line");
}

// Early-launch kernels: version 3 holds them; the record follows its
// kernel line, and validation wants the wait in the source.
TEST(Plan, EarlyLaunchNeedsVersionThreeAndTheWait) {
  Plan plan = elementwisePlan();
  plan.target = "sm_90a";
  ASSERT_EQ(serializePlan(plan).rfind("tgc-plan 2\n", 0), 0u);
  plan.kernels[0].earlyLaunch = true;
  plan.kernels[0].source = std::string(kEarlyLaunchWait) + ";\n" + plan.kernels[0].source;
  std::string text = serializePlan(plan);
  EXPECT_EQ(text.rfind("tgc-plan 3\n", 0), 0u);
  EXPECT_NE(text.find("\nearly-launch\nsource "), std::string::npos) << text;
  Expected<Plan> parsed = parsePlan(text);
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().message();
  EXPECT_TRUE(parsed->kernels[0].earlyLaunch);
  EXPECT_EQ(serializePlan(*parsed), text);

  size_t line = std::count(text.begin(), text.begin() + text.find("early-launch\n"), '\n') + 1;
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "tgc-plan 3\n", "tgc-plan 2\n"))),
            "p.plan:" + std::to_string(line) +
                ": 'early-launch' needs plan format version 3 (the file says version 2)");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "early-launch\n", "early-launch\nearly-launch\n"))),
            "p.plan:" + std::to_string(line + 1) + ": kernel 'axpb' has two 'early-launch' lines");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "early-launch\n", "early-launch now\n"))),
            "p.plan:" + std::to_string(line) + ": expected 'early-launch'");

  // Marked early but never waiting: it would race with the kernel before it.
  Plan racy = plan;
  racy.kernels[0].source = elementwisePlan().kernels[0].source;
  EXPECT_EQ(errorOf(serializePlan(racy)),
            "p.plan: invalid plan 'elementwise': kernel 'axpb' is marked early-launch but its "
            "source never calls tg::device::wait_for_earlier_grids() (launched early, it "
            "would race with the kernel before it)");
}

// i4 buffers (packed weights): version 4 holds them, half a byte per
// element (rounded up).
TEST(Plan, PackedI4NeedsVersionFour) {
  Plan plan = elementwisePlan();
  Buffer &input = plan.buffers[0];
  input.dtype = DType::I4;
  input.shape = {3, 5};
  input.strides = {5, 1};
  EXPECT_EQ(input.byteSpan(), 8u); // 15 nibbles
  EXPECT_EQ(storageBytes(DType::I4, 16), 8u);
  EXPECT_EQ(dtypeBits(DType::I4), 4u);
  EXPECT_EQ(dtypeSize(DType::I4), 0u);
  std::string text = serializePlan(plan);
  ASSERT_EQ(text.rfind("tgc-plan 4\n", 0), 0u) << text;
  Expected<Plan> parsed = parsePlan(text);
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().message();
  EXPECT_EQ(parsed->buffers[0].dtype, DType::I4);
  EXPECT_EQ(serializePlan(*parsed), text);
  size_t line = std::count(text.begin(), text.begin() + text.find(" i4 shape"), '\n') + 1;
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "tgc-plan 4\n", "tgc-plan 3\n"))),
            "p.plan:" + std::to_string(line) +
                ": an i4 buffer needs plan format version 4 (the file says version 3)");
}

TEST(Plan, RejectsOtherFiles) {
  EXPECT_EQ(errorOf(""), "p.plan: not a tgc plan file (it does not start with 'tgc-plan')");
  EXPECT_EQ(errorOf("\x7f" "ELF\x02\x01"),
            "p.plan: not a tgc plan file (it does not start with 'tgc-plan')");
  EXPECT_EQ(errorOf("tgc-planet 1\n"),
            "p.plan: not a tgc plan file (it does not start with 'tgc-plan')");
}

TEST(Plan, RejectsCorruptFiles) {
  std::string text = serializePlan(elementwisePlan());
  // Truncated anywhere: no checksum line, or a checksum that does not match.
  for (size_t keep : {text.size() / 3, text.size() / 2, text.size() - 10}) {
    std::string message = errorOf(text.substr(0, keep));
    EXPECT_EQ(message.rfind("p.plan: corrupt plan file: ", 0), 0u) << message;
  }
  EXPECT_EQ(errorOf(text.substr(0, text.find("end sha256"))),
            "p.plan: corrupt plan file: it is truncated (no 'end sha256' line)");
  // One flipped byte in a kernel source.
  std::string flipped = text;
  flipped[text.find("a * x[i] + b")] = 'A';
  EXPECT_EQ(errorOf(flipped).rfind("p.plan: corrupt plan file: checksum mismatch "
                                   "(the file was modified or damaged): recorded ",
                                   0),
            0u);
  // Data after the end line is not silently ignored.
  EXPECT_NE(errorOf(text + "buffer \"z\"\n").find("corrupt plan file"),
            std::string::npos);
}

TEST(Plan, ParseErrorsNameTheLine) {
  std::string text = serializePlan(elementwisePlan());
  EXPECT_EQ(errorOf(resign(replaceOnce(text, " f32 shape [1000] strides [1] align 16\n",
                                       " f33 shape [1000] strides [1] align 16\n"))),
            "p.plan:5: unknown dtype 'f33'");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "memset \"t\" 0", "memset \"t\" 256"))),
            "p.plan:" + std::to_string(std::count(text.begin(),
                                                  text.begin() + long(text.find("memset")),
                                                  '\n') + 1) +
                ": expected an integer, found '256'");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "workspace 4096", "frobnicate 4096"))),
            "p.plan:4: unknown keyword 'frobnicate'");
  EXPECT_EQ(errorOf(resign(replaceOnce(text, "plan \"elementwise\"", "plan \"elementwise"))),
            "p.plan:3: unterminated string");
  std::string message = errorOf(resign(replaceOnce(text, "grid [8,1,1]", "grid [8,1]")));
  EXPECT_NE(message.find(": expected three dims [x,y,z], found '[8,1]'"), std::string::npos)
      << message;
  // A source length that overruns the file.
  std::string sourceLine = "source " + std::to_string(std::strlen(kAxpbSource));
  message = errorOf(resign(replaceOnce(text, sourceLine, "source 99999")));
  EXPECT_NE(message.find("blob of 99999 bytes is truncated"), std::string::npos) << message;
}

TEST(Plan, LineNumbersCountBlobLines) {
  std::string text = serializePlan(elementwisePlan());
  // The last launch comes after two multi-line sources.
  std::string edited = replaceOnce(text, "arg i32 1000", "arg u32 1000");
  size_t line = std::count(edited.begin(), edited.begin() + long(edited.find("arg u32")), '\n') + 1;
  EXPECT_EQ(errorOf(resign(edited)),
            "p.plan:" + std::to_string(line) +
                ": unknown argument kind 'u32' (expected buffer, i32, i64 or f32)");
}

TEST(Plan, ValidationErrors) {
  auto invalid = [](Plan plan) {
    Status status = plan.validate();
    EXPECT_EQ(status.code(), StatusCode::InvalidPlan);
    return status.message();
  };
  {
    Plan plan = elementwisePlan();
    plan.buffers.push_back(plan.buffers[0]);
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 'x' is declared twice");
  }
  {
    Plan plan = elementwisePlan();
    plan.buffers[2].offset = 256;
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 't' (offset 256, "
                             "4000 bytes) ends past the 4096-byte workspace");
  }
  {
    Plan plan = elementwisePlan();
    plan.buffers[0].alignment = 12;
    EXPECT_EQ(invalid(plan),
              "invalid plan 'elementwise': buffer 'x' alignment 12 is not a power of two "
              "up to 1048576");
  }
  {
    Plan plan = elementwisePlan();
    plan.buffers[1].strides = {1, 1};
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 'y' has 1 dims but 2 strides");
  }
  {
    Plan plan = elementwisePlan();
    std::get<LaunchStep>(plan.steps[1]).variants[0].kernel = "nope";
    EXPECT_EQ(invalid(plan),
              "invalid plan 'elementwise': step 1 (launch) variant 0 names unknown kernel 'nope'");
  }
  {
    Plan plan = elementwisePlan();
    std::get<LaunchStep>(plan.steps[2]).variants[0].args[1] = KernelArg::buf("z");
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 2 (launch) variant 0 "
                             "argument 1 names unknown buffer 'z'");
  }
  {
    Plan plan = elementwisePlan();
    std::get<LaunchStep>(plan.steps[2]).variants[0].block = {64, 32, 1};
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 2 (launch) variant 0 "
                             "block [64,32,1] exceeds 1024 threads (or z > 64)");
  }
  {
    Plan plan = elementwisePlan();
    plan.steps.push_back(MemsetStep{"x", 0});
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 3 (memset) writes input 'x'");
  }
  {
    Plan plan = elementwisePlan();
    plan.buffers[2].dtype = DType::F16;
    plan.steps.push_back(CopyStep{"t", "y"});
    EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 3 (copy) from 't' to 'y' "
                             "needs equal dtype, shape and strides");
  }
  // Validation also runs when parsing.
  {
    Plan plan = elementwisePlan();
    plan.buffers[2].offset = 256;
    std::string text = serializePlan(plan);
    EXPECT_EQ(errorOf(text), "p.plan: invalid plan 'elementwise': buffer 't' (offset "
                             "256, 4000 bytes) ends past the 4096-byte workspace");
  }
}

TEST(Plan, ByteSpan) {
  Buffer b{"b", BufferRole::Input, DType::BF16, {2, 8, 128, 64}, {65536, 64, 512, 1}, 16, 0};
  EXPECT_EQ(b.byteSpan(), uint64_t(2) * 65536 * 2);
  b.shape = {2, 8, 0, 64};
  EXPECT_EQ(b.byteSpan(), 0u);
  Buffer scalar{"s", BufferRole::Input, DType::I64, {}, {}, 8, 0};
  EXPECT_EQ(scalar.byteSpan(), 8u);
  Buffer broadcast{"c", BufferRole::Input, DType::F32, {4, 5}, {0, 1}, 4, 0};
  EXPECT_EQ(broadcast.byteSpan(), 20u);
}

// examples/embed/square.plan is what the embed example runs; it must stay
// loadable by this runtime and equal to the plan the tests build.
TEST(Plan, BundledExamplePlanIsCurrent) {
  Expected<Plan> bundled = readPlanFile(TGC_SOURCE_DIR "/examples/embed/square.plan");
  ASSERT_TRUE(bundled.hasValue()) << bundled.status().message();
  Plan expected = elementwisePlan(4096);
  expected.name = "embed_square";
  EXPECT_EQ(serializePlan(*bundled), serializePlan(expected));
}
