// tgc_compile_string on text MLIR's parser would crash on: a compile error
// with a located message, never a crash, whatever the caller's stack.

#include "tgc/tgc.h"
#include "tgc/tgc.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <cstring>
#include <string>

namespace {
const char *kGraph = R"(func.func @f(%x: tensor<4xf32> {tg.name = "x"}) -> (tensor<4xf32> {tg.name = "y"}) {
  %y = tg.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
})";

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

/// Compiles `text`; returns the status and leaves the message in `message`.
tgc_status_t compile(const std::string &text, std::string &message) {
  tgc_executable_t *exe = nullptr;
  tgc_status_t status = tgc_compile_string(text.data(), text.size(), "--arch=sm_80", &exe);
  message = tgc_last_error();
  tgc_executable_destroy(exe);
  return status;
}
} // namespace

TEST(CompileString, GoodGraph) {
  std::string message;
  EXPECT_EQ(compile(kGraph, message), TGC_SUCCESS) << message;
  EXPECT_EQ(message, "");
}

TEST(CompileString, DenseArrayOfIndexIsAnError) {
  std::string message;
  EXPECT_EQ(compile("func.func @f() attributes {a = array<index: 1, 2>} { return }", message),
            TGC_ERROR_COMPILE);
  EXPECT_EQ(message, "<string>:1:38: error: expected an integer or float element type in "
                     "'array<...>', found 'index'\n");
}

TEST(CompileString, DeepNestingIsAnError) {
  const size_t depth = 100000;
  std::string message;
  EXPECT_EQ(compile("func.func @f(%x: " + repeat("tensor<", depth) + "f32" +
                        repeat(">", depth) + ") { return }",
                    message),
            TGC_ERROR_COMPILE);
  EXPECT_EQ(message.rfind("<string>:1:", 0), 0u) << message;
  EXPECT_NE(message.find(": error: brackets nest more than 256 levels deep, more than tgc "
                         "parses"),
            std::string::npos)
      << message;
  EXPECT_EQ(compile("func.func @f(%x: " + repeat("(", 1000000) + ") { return }", message),
            TGC_ERROR_COMPILE);
  EXPECT_NE(message.find("brackets nest more than 256 levels deep"), std::string::npos);
}

// Nesting up to the limit parses also when the caller's thread has a small
// stack: the compile runs on a thread of its own.
TEST(CompileString, SmallCallerStack) {
  struct Call {
    std::string text, message;
    tgc_status_t status = TGC_ERROR_INTERNAL;
  } call;
  // A rank-24 constant: its literal nests 25 deep.
  const size_t rank = 24;
  std::string type = "tensor<" + repeat("1x", rank) + "f32>";
  call.text = "func.func @f() -> (" + type + " {tg.name = \"y\"}) {\n  %c = tg.constant dense<" +
              repeat("[", rank) + "1.5" + repeat("]", rank) + "> : " + type +
              "\n  return %c : " + type + "\n}";
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void *arg) -> void * {
                  auto *c = static_cast<Call *>(arg);
                  c->status = compile(c->text, c->message);
                  return nullptr;
                },
                &call),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(call.status, TGC_SUCCESS) << call.message;
}

TEST(CompileString, InvalidUtf8Name) {
  std::string message;
  EXPECT_EQ(compile("func.func @f(%x: tensor<4xf32> {tg.name = \"x\\FF\"}) -> tensor<4xf32> {\n"
                    "  return %x : tensor<4xf32>\n}",
                    message),
            TGC_ERROR_COMPILE);
  EXPECT_EQ(message, "<string>:1:1: error: 'func.func' op argument 0: 'tg.name' must be "
                     "valid UTF-8\n");
}

// The arch option is parsed once, as tg-compile parses --arch: sm_80 or
// newer; empty is the one default (sm_90a), which the plan records.
TEST(CompileString, ArchBelowSm80IsAnError) {
  tgc_executable_t *exe = nullptr;
  EXPECT_EQ(tgc_compile_string(kGraph, std::strlen(kGraph), "--arch=sm_75", &exe),
            TGC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tgc_last_error(), "unsupported arch 'sm_75': tgc generates kernels for sm_80 "
                                 "(compute capability 8.0) or newer");
  EXPECT_EQ(exe, nullptr);
}

TEST(CompileApi, TargetIsRecordedAndEmptyIsTheDefault) {
  tgc::Expected<tgc::Plan> plan = tgc::Compiler().compileString(kGraph);
  ASSERT_TRUE(plan.hasValue()) << plan.status().message();
  EXPECT_EQ(plan->target, "sm_90a");
  for (const char *arch : {"sm_90", "sm_90a", "compute_80", "sm_86"}) {
    plan = tgc::Compiler(tgc::CompileOptions{arch, {}}).compileString(kGraph);
    ASSERT_TRUE(plan.hasValue()) << arch << ": " << plan.status().message();
    EXPECT_EQ(plan->target, arch);
  }
  plan = tgc::Compiler(tgc::CompileOptions{"sm_90b", {}}).compileString(kGraph);
  ASSERT_FALSE(plan.hasValue());
  EXPECT_EQ(plan.status().code(), tgc::StatusCode::InvalidArgument);
  EXPECT_EQ(plan.status().message(), "unknown arch 'sm_90b' (expected e.g. sm_80, sm_90a, compute_80)");
}
