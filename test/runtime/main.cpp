// Runs the runtime tests with a private kernel cache directory, so that the
// user's ~/.cache/tgc is never touched and each run starts cold.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstdio>

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string cacheDir = tgc::test::makeTempDir("tgc-runtime-tests-cache-");
  setenv("TGC_CACHE_DIR", cacheDir.c_str(), 1);
  unsetenv("TGC_FORCE_PTX");
  // The cache tests corrupt entries on purpose; their warnings are noise here.
  setenv("TGC_LOG", "error", 0);
  int result = RUN_ALL_TESTS();
  tgc::test::removeTree(cacheDir);
  return result;
}
