#include "TestUtil.h"
#include "tgc/Log.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tgc;
using namespace tgc::test;

namespace {
class LogTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char *level = getenv("TGC_LOG");
    savedLevel = level ? level : "";
    dir = makeTempDir("tgc-log-");
    file = dir + "/log.txt";
    setenv("TGC_LOG_FILE", file.c_str(), 1);
  }
  void TearDown() override {
    if (savedLevel.empty())
      unsetenv("TGC_LOG");
    else
      setenv("TGC_LOG", savedLevel.c_str(), 1);
    unsetenv("TGC_LOG_FILE");
    reloadLogConfig();
    removeTree(dir);
  }
  std::string logAll(const char *level) {
    if (level)
      setenv("TGC_LOG", level, 1);
    else
      unsetenv("TGC_LOG");
    reloadLogConfig();
    TGC_LOG_ERROR("e ", 1);
    TGC_LOG_WARN("w ", 2);
    TGC_LOG_INFO("i ", 3);
    TGC_LOG_DEBUG("d ", 4);
    setLogFile(""); // closes the file
    std::string text = readText(file);
    writeText(file, "");
    return text;
  }
  std::string dir, file, savedLevel;
};
} // namespace

TEST_F(LogTest, Levels) {
  EXPECT_EQ(logAll("error"), "[tgc error] e 1\n");
  EXPECT_EQ(logAll("warn"), "[tgc error] e 1\n[tgc warn] w 2\n");
  EXPECT_EQ(logAll("info"), "[tgc error] e 1\n[tgc warn] w 2\n[tgc info] i 3\n");
  EXPECT_EQ(logAll("DEBUG"),
            "[tgc error] e 1\n[tgc warn] w 2\n[tgc info] i 3\n[tgc debug] d 4\n");
  EXPECT_EQ(logAll("off"), "");
  EXPECT_EQ(logAll(nullptr), "[tgc error] e 1\n[tgc warn] w 2\n"); // default: warn
}

TEST_F(LogTest, UnknownLevelWarnsAndUsesWarn) {
  EXPECT_EQ(logAll("verbose"),
            "[tgc warn] unknown TGC_LOG value 'verbose' (expected error, warn, info, "
            "debug or off); using warn\n[tgc error] e 1\n[tgc warn] w 2\n");
}

TEST_F(LogTest, DisabledMessagesAreNotEvaluated) {
  setenv("TGC_LOG", "error", 1);
  reloadLogConfig();
  int evaluated = 0;
  auto expensive = [&] {
    ++evaluated;
    return "x";
  };
  TGC_LOG_DEBUG(expensive());
  EXPECT_EQ(evaluated, 0);
  TGC_LOG_ERROR(expensive());
  EXPECT_EQ(evaluated, 1);
}

TEST_F(LogTest, UnopenableFileFallsBackToStderr) {
  setenv("TGC_LOG_FILE", "/proc/no/such/dir/log", 1);
  setenv("TGC_LOG", "warn", 1);
  ::testing::internal::CaptureStderr();
  reloadLogConfig();
  TGC_LOG_WARN("still here");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cannot open TGC_LOG_FILE '/proc/no/such/dir/log'"), std::string::npos)
      << err;
  EXPECT_NE(err.find("[tgc warn] still here\n"), std::string::npos) << err;
}
