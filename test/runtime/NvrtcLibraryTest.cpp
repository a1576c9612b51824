// Loading NVRTC at run time (runtime/lib/NvrtcLibrary.h): where it is looked
// for, and the errors when it cannot be used.
#include "NvrtcLibrary.h"
#include "TestUtil.h"
#include "tgc/Testing.h"
#include "tgc/tgc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

using namespace tgc;

namespace {
Kernel axpb() {
  return {"axpb", "axpb", tgc::test::kAxpbSource, {}, KernelTarget::portable(80)};
}

std::string compileError() {
  Expected<CompiledKernel> k = compileKernel(axpb(), {BinaryKind::Cubin, 80, false});
  EXPECT_FALSE(k.hasValue());
  if (k)
    return "";
  EXPECT_EQ(k.status().code(), StatusCode::CompileError);
  return k.status().message();
}

// Restores the variables these tests change, and the default search.
class NvrtcLibraryTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *name : {"TGC_NVRTC_LIBRARY", "CUDA_HOME", "CUDA_PATH"}) {
      const char *value = std::getenv(name);
      saved_.push_back({name, value ? std::optional<std::string>(value) : std::nullopt});
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (const auto &[name, value] : saved_) {
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
    tgc::testing::setNvrtcLibrary("");
  }

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};
} // namespace

TEST_F(NvrtcLibraryTest, MissingNvrtcIsACompileErrorThatSaysWhatToDo) {
  tgc::testing::setNvrtcLibrary("/nonexistent/libnvrtc.so.13");
  const std::string why =
      "cannot load NVRTC (libnvrtc.so.13), which compiles the plan's kernels; "
      "tried /nonexistent/libnvrtc.so.13: /nonexistent/libnvrtc.so.13: cannot "
      "open shared object file: No such file or directory. Install the CUDA 13 "
      "toolkit's NVRTC, or set TGC_NVRTC_LIBRARY to its libnvrtc.so.13, or "
      "CUDA_HOME to the toolkit's root";
  EXPECT_EQ(compileError(), why);
  EXPECT_EQ(nvrtcInfo().status.code(), StatusCode::CompileError);
  EXPECT_EQ(nvrtcInfo().status.message(), why);
  // Executables report it before choosing a variant (no misleading "no
  // variant for this GPU").
  Status status = precompilePlan(test::elementwisePlan(), 80, false);
  EXPECT_EQ(status.code(), StatusCode::CompileError);
  EXPECT_EQ(status.message(), why);
  // Plans still load and validate without NVRTC.
  EXPECT_TRUE(Executable::create(test::elementwisePlan()).hasValue());
}

TEST_F(NvrtcLibraryTest, ALibraryThatIsNotNvrtcIsRejected) {
  tgc::testing::setNvrtcLibrary(TGC_MOCK_CUDA_PATH);
  std::string message = compileError();
  EXPECT_NE(message.find(std::string("tried ") + TGC_MOCK_CUDA_PATH +
                         ": not NVRTC: it lacks nvrtcVersion, nvrtcGetErrorString"),
            std::string::npos)
      << message;
}

TEST_F(NvrtcLibraryTest, TheEnvironmentVariableIsTheOnlyPlaceTriedWhenSet) {
  setenv("TGC_NVRTC_LIBRARY", "/nonexistent/nvrtc.so", 1);
  setenv("CUDA_HOME", "/usr/local/cuda", 1);
  EXPECT_EQ(nvrtcCandidatePaths(), std::vector<std::string>{"/nonexistent/nvrtc.so"});
  tgc::testing::setNvrtcLibrary("");
  EXPECT_EQ(compileError(),
            "cannot load NVRTC from "
            "TGC_NVRTC_LIBRARY=/nonexistent/nvrtc.so: /nonexistent/nvrtc.so: "
            "cannot open shared object file: No such file or directory; point it "
            "at the CUDA 13 toolkit's libnvrtc.so.13 or unset it");
}

TEST_F(NvrtcLibraryTest, SearchesTheLoaderPathThenToolkitRoots) {
  std::string root = test::makeTempDir("tgc-nvrtc-root-");
  std::filesystem::create_directories(root + "/lib64");
  test::writeText(root + "/lib64/libnvrtc.so.13", "not a library");
  setenv("CUDA_HOME", root.c_str(), 1);
  setenv("CUDA_PATH", (root + "/nonexistent").c_str(), 1);
  std::vector<std::string> paths = nvrtcCandidatePaths();
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths[0], "libnvrtc.so.13");
  EXPECT_EQ(paths[1], root + "/lib64/libnvrtc.so.13");
  // Only files that exist are listed, so that an error names real tries.
  for (const std::string &path : paths)
    EXPECT_EQ(path.find("/nonexistent"), std::string::npos) << path;
  test::removeTree(root);
}

TEST_F(NvrtcLibraryTest, LoadsAgainAfterAFailure) {
  tgc::testing::setNvrtcLibrary("/nonexistent/libnvrtc.so.13");
  compileError();
  tgc::testing::setNvrtcLibrary("");
  Expected<CompiledKernel> k = compileKernel(axpb(), {BinaryKind::Cubin, 80, false});
  ASSERT_TRUE(k.hasValue()) << k.status().message();
  EXPECT_TRUE(nvrtcInfo().status.isOk());
  EXPECT_EQ(nvrtcInfo().major, kNvrtcMajor);
}
