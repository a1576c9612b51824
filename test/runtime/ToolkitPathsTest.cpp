// Where the runtime looks for the toolkit's files at run time
// (runtime/lib/ToolkitPaths.h): the CUDA headers for NVRTC, and cuDNN after
// the loader's search path (NVRTC: NvrtcLibraryTest.cpp).
#include "CudnnLibrary.h"
#include "TestUtil.h"
#include "ToolkitPaths.h"
#include "tgc/Nvrtc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

using namespace tgc;

namespace {
class ToolkitPathsTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *name : {"CUDA_HOME", "CUDA_PATH", "TGC_CUDNN_LIBRARY"}) {
      const char *value = std::getenv(name);
      saved_.push_back({name, value ? std::optional<std::string>(value) : std::nullopt});
      unsetenv(name);
    }
    root_ = test::makeTempDir("tgc-toolkit-root-");
  }
  void TearDown() override {
    for (const auto &[name, value] : saved_) {
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
    test::removeTree(root_);
  }
  void touch(const std::string &relative) {
    std::filesystem::create_directories(
        std::filesystem::path(root_ + "/" + relative).parent_path());
    test::writeText(root_ + "/" + relative, "");
  }

  std::string root_;

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};
} // namespace

TEST_F(ToolkitPathsTest, RootsAreTheEnvironmentThenTheBuildToolkit) {
  std::vector<std::string> builtIn = cudaToolkitRoots();
  ASSERT_EQ(builtIn.size(), 1u);
  EXPECT_EQ(cudaHome(), builtIn[0]);
  setenv("CUDA_PATH", "/opt/b", 1);
  setenv("CUDA_HOME", "/opt/a", 1);
  EXPECT_EQ(cudaToolkitRoots(), (std::vector<std::string>{"/opt/a", "/opt/b", builtIn[0]}));
  // NVRTC compiles kernels with the first root's headers.
  EXPECT_EQ(cudaHome(), "/opt/a");
}

TEST_F(ToolkitPathsTest, LibrariesAreTheFilesThatExistOnce) {
  touch("lib64/libx.so.1");
  touch("lib/libx.so.1");
  setenv("CUDA_HOME", root_.c_str(), 1);
  setenv("CUDA_PATH", root_.c_str(), 1);
  EXPECT_EQ(cudaToolkitLibraries("libx.so.1"),
            (std::vector<std::string>{root_ + "/lib64/libx.so.1", root_ + "/lib/libx.so.1"}));
  EXPECT_TRUE(cudaToolkitLibraries("liby.so.1").empty());
}

TEST_F(ToolkitPathsTest, CudnnIsLookedForOnTheLoaderPathThenInTheToolkit) {
  touch("lib64/libcudnn.so.9");
  setenv("CUDA_HOME", root_.c_str(), 1);
  std::vector<std::string> paths = cudnnCandidatePaths();
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths[0], "libcudnn.so.9");
  EXPECT_EQ(paths[1], root_ + "/lib64/libcudnn.so.9");
  // An explicit library is the only one tried.
  setenv("TGC_CUDNN_LIBRARY", "/opt/cudnn/libcudnn.so.9", 1);
  EXPECT_EQ(cudnnCandidatePaths(), std::vector<std::string>{"/opt/cudnn/libcudnn.so.9"});
}
