#include "TestUtil.h"
#include "tgc/KernelCache.h"
#include "tgc/Log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <dirent.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace tgc;
using namespace tgc::test;

namespace {
// Stands in for NVRTC: fast, counts its calls, and returns an image that
// depends on every input.
struct FakeCompiler {
  std::atomic<int> calls{0};
  bool fail = false;
  KernelCompiler fn() {
    return [this](const Kernel &k, const CompileTarget &t) -> Expected<CompiledKernel> {
      ++calls;
      if (fail)
        return Status(StatusCode::CompileError, "fake compile error");
      CompiledKernel c;
      c.kind = t.kind;
      c.targetName = t.name();
      c.loweredName = k.entry;
      c.image = "image of " + k.source + " for " + t.name();
      return c;
    };
  }
};

Kernel kernel(const std::string &source = "src") {
  return {"k", "entry", source, {"-O3"}, KernelTarget::portable(80)};
}
const CompileTarget kSm90{BinaryKind::Cubin, 90, false};

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

int countOccurrences(const std::string &text, const std::string &what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + 1))
    ++n;
  return n;
}

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override { dir = makeTempDir("tgc-cache-"); }
  void TearDown() override { removeTree(dir); }
  std::string dir;
  FakeCompiler compiler;
};
} // namespace

TEST_F(KernelCacheTest, MissThenMemoryHit) {
  KernelCache cache(dir, compiler.fn(), "v1");
  auto a = cache.get(kernel(), kSm90);
  ASSERT_TRUE(a.hasValue());
  auto b = cache.get(kernel(), kSm90);
  ASSERT_TRUE(b.hasValue());
  EXPECT_EQ(a->get(), b->get());
  CacheStats s = cache.stats();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.memoryHits, 1u);
  EXPECT_EQ(s.diskHits, 0u);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(listDir(dir).size(), 1u);
}

TEST_F(KernelCacheTest, DiskHitInANewProcess) {
  {
    KernelCache first(dir, compiler.fn(), "v1");
    ASSERT_TRUE(first.get(kernel(), kSm90).hasValue());
  }
  KernelCache second(dir, compiler.fn(), "v1"); // as a new process would
  auto loaded = second.get(kernel(), kSm90);
  ASSERT_TRUE(loaded.hasValue());
  EXPECT_EQ((*loaded)->image, "image of src for sm_90");
  EXPECT_EQ((*loaded)->loweredName, "entry");
  EXPECT_EQ((*loaded)->kind, BinaryKind::Cubin);
  CacheStats s = second.stats();
  EXPECT_EQ(s.diskHits, 1u);
  EXPECT_EQ(s.compiles, 0u);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_GT(s.diskLoadSeconds, 0.0);
}

TEST_F(KernelCacheTest, CorruptEntriesAreRebuilt) {
  std::string path;
  {
    KernelCache cache(dir, compiler.fn(), "v1");
    ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
    path = cache.entryPath(kernelCacheKey(kernel(), kSm90, "v1"));
  }
  const std::string good = readText(path);
  std::vector<std::pair<std::string, std::string>> damaged = {
      {"empty", ""},
      {"truncated header", good.substr(0, 40)},
      {"truncated image", good.substr(0, good.size() - 3)},
      {"flipped image byte", good.substr(0, good.size() - 1) + "X"},
      {"flipped length", good.substr(0, 88) + "\x7f" + good.substr(89)},
      {"other magic", "XGCKERNL" + good.substr(8)},
      {"future version", good.substr(0, 8) + "\x02" + good.substr(9)},
      {"garbage", std::string(200, '\xab')},
  };
  for (const auto &[what, bytes] : damaged) {
    writeText(path, bytes);
    FakeCompiler fresh;
    KernelCache cache(dir, fresh.fn(), "v1");
    auto result = cache.get(kernel(), kSm90);
    ASSERT_TRUE(result.hasValue()) << what;
    EXPECT_EQ((*result)->image, "image of src for sm_90") << what;
    EXPECT_EQ(fresh.calls, 1) << what;
    EXPECT_EQ(cache.stats().corruptEntries, 1u) << what;
    EXPECT_EQ(readText(path), good) << what << ": entry not rewritten";
  }
}

// An entry that is not a regular file is never read as one: a directory is
// removed (or moved aside when not empty) and the entry rewritten, with one
// warning; a FIFO is not waited on; a link to a device is not read forever.
TEST_F(KernelCacheTest, EntriesThatAreNotFilesAreRepaired) {
  std::string logFile = dir + "/log.txt";
  setLogLevel(LogLevel::Warn);
  setLogFile(logFile);
  std::string path;
  std::string good;
  {
    KernelCache cache(dir + "/c", compiler.fn(), "v1");
    ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
    path = cache.entryPath(kernelCacheKey(kernel(), kSm90, "v1"));
    good = readText(path);
  }
  auto check = [&](const std::string &what, const std::string &expectedLog) {
    FakeCompiler fresh;
    KernelCache cache(dir + "/c", fresh.fn(), "v1");
    auto result = cache.get(kernel(), kSm90);
    ASSERT_TRUE(result.hasValue()) << what;
    EXPECT_EQ(fresh.calls, 1) << what;
    EXPECT_EQ(cache.stats().corruptEntries, 1u) << what;
    EXPECT_EQ(readText(path), good) << what << ": entry not rewritten";
    // The next process finds a good entry and says nothing.
    KernelCache next(dir + "/c", fresh.fn(), "v1");
    ASSERT_TRUE(next.get(kernel(), kSm90).hasValue());
    EXPECT_EQ(next.stats().diskHits, 1u) << what;
    setLogFile("");
    std::string log = readText(logFile);
    EXPECT_NE(log.find(expectedLog), std::string::npos) << what << ": " << log;
    EXPECT_EQ(countOccurrences(log, "[tgc warn]"), 1) << what << ": " << log;
    writeText(logFile, "");
    setLogFile(logFile);
  };

  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  check("empty directory", "' is a directory, not a file; removed it; recompiling kernel "
                           "'k' for sm_90 and rewriting the entry");

  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  writeText(path + "/inside", "not ours");
  check("directory with a file", "' is a directory, not a file; moved it to '" + path +
                                     ".unusable.");
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  check("fifo", "is unusable (cannot read '" + path + "': it is not a regular file)");

  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", path.c_str()), 0);
  check("link to /dev/zero", "is unusable (cannot read '" + path +
                                 "': it is not a regular file)");
  reloadLogConfig();
}

TEST_F(KernelCacheTest, DirectoryEntryThatCannotBeMovedIsNotRetried) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root ignores directory permissions";
  std::string cacheDir = dir + "/c";
  std::string path;
  {
    KernelCache cache(cacheDir, compiler.fn(), "v1");
    ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
    path = cache.entryPath(kernelCacheKey(kernel(), kSm90, "v1"));
  }
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  writeText(path + "/inside", "x");
  ASSERT_EQ(::chmod(cacheDir.c_str(), 0555), 0);
  KernelCache cache(cacheDir, compiler.fn(), "v1");
  EXPECT_TRUE(cache.get(kernel(), kSm90).hasValue());
  EXPECT_EQ(cache.stats().diskWriteFailures, 1u);
  ::chmod(cacheDir.c_str(), 0755);
}

TEST_F(KernelCacheTest, EntryFromAnotherKeyIsRejected) {
  KernelCache cache(dir, compiler.fn(), "v1");
  ASSERT_TRUE(cache.get(kernel("a"), kSm90).hasValue());
  Digest keyA = kernelCacheKey(kernel("a"), kSm90, "v1");
  Digest keyB = kernelCacheKey(kernel("b"), kSm90, "v1");
  // A valid entry copied under another key's name does not verify.
  writeText(cache.entryPath(keyB), readText(cache.entryPath(keyA)));
  Expected<CompiledKernel> decoded = decodeCacheEntry(readText(cache.entryPath(keyB)), keyB);
  ASSERT_FALSE(decoded.hasValue());
  EXPECT_EQ(decoded.status().message(), "key does not match the file name");
}

TEST_F(KernelCacheTest, WritesAreAtomic) {
  KernelCache cache(dir, compiler.fn(), "v1");
  std::string path = cache.entryPath(kernelCacheKey(kernel(), kSm90, "v1"));
  // A hard link to a stale entry: an in-place rewrite would change it too,
  // a write-to-temporary-then-rename leaves it alone.
  writeText(path, "stale");
  std::string witness = dir + "/witness";
  ASSERT_EQ(link(path.c_str(), witness.c_str()), 0);
  ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
  EXPECT_EQ(readText(witness), "stale");
  EXPECT_TRUE(decodeCacheEntry(readText(path), kernelCacheKey(kernel(), kSm90, "v1")).hasValue());
  // No temporary files are left behind.
  std::vector<std::string> names = listDir(dir);
  EXPECT_EQ(names.size(), 2u);
  for (const std::string &name : names)
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

TEST_F(KernelCacheTest, KeyCoversEveryInput) {
  Kernel k = kernel();
  Digest base = kernelCacheKey(k, kSm90, "v1");
  EXPECT_EQ(base, kernelCacheKey(kernel(), kSm90, "v1"));

  Kernel otherSource = k;
  otherSource.source += " ";
  Kernel otherEntry = k;
  otherEntry.entry = "entry2";
  Kernel otherOptions = k;
  otherOptions.options = {"-O2"};
  Kernel splitOptions = k; // same characters, different option boundaries
  splitOptions.options = {"-", "O3"};
  EXPECT_NE(base, kernelCacheKey(otherSource, kSm90, "v1"));
  EXPECT_NE(base, kernelCacheKey(otherEntry, kSm90, "v1"));
  EXPECT_NE(base, kernelCacheKey(otherOptions, kSm90, "v1"));
  EXPECT_NE(base, kernelCacheKey(splitOptions, kSm90, "v1"));
  EXPECT_NE(base, kernelCacheKey(k, {BinaryKind::Cubin, 80, false}, "v1"));
  EXPECT_NE(base, kernelCacheKey(k, {BinaryKind::Cubin, 90, true}, "v1"));
  EXPECT_NE(base, kernelCacheKey(k, {BinaryKind::Ptx, 90, false}, "v1"));
  EXPECT_NE(base, kernelCacheKey(k, kSm90, "v2")); // NVRTC version
}

TEST_F(KernelCacheTest, DifferentTargetsAreDifferentEntries) {
  KernelCache cache(dir, compiler.fn(), "v1");
  ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
  ASSERT_TRUE(cache.get(kernel(), {BinaryKind::Ptx, 90, false}).hasValue());
  EXPECT_EQ(compiler.calls, 2);
  EXPECT_EQ(listDir(dir).size(), 2u);
}

TEST_F(KernelCacheTest, UnwritableDirectoryStillCompiles) {
  KernelCache cache("/proc/tgc-cannot-write-here", compiler.fn(), "v1");
  auto result = cache.get(kernel(), kSm90);
  ASSERT_TRUE(result.hasValue());
  EXPECT_EQ(cache.stats().diskWriteFailures, 1u);
  EXPECT_EQ(cache.stats().compiles, 1u);
}

TEST_F(KernelCacheTest, MemoryOnly) {
  KernelCache cache("", compiler.fn(), "v1");
  ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
  ASSERT_TRUE(cache.get(kernel(), kSm90).hasValue());
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(cache.stats().diskWriteFailures, 0u);
}

TEST_F(KernelCacheTest, CompileErrorsAreNotCached) {
  compiler.fail = true;
  KernelCache cache(dir, compiler.fn(), "v1");
  auto result = cache.get(kernel(), kSm90);
  ASSERT_FALSE(result.hasValue());
  EXPECT_EQ(result.status().message(), "fake compile error");
  compiler.fail = false;
  EXPECT_TRUE(cache.get(kernel(), kSm90).hasValue());
  EXPECT_EQ(compiler.calls, 2);
  EXPECT_EQ(cache.stats().compiles, 1u);
}

TEST_F(KernelCacheTest, ConcurrentRequestsCompileOnce) {
  KernelCache cache(dir, compiler.fn(), "v1");
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] { ok += cache.get(kernel(), kSm90).hasValue(); });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(cache.stats().memoryHits, 7u);
}

TEST_F(KernelCacheTest, RealNvrtcColdThenWarm) {
  Kernel k{"axpb", "axpb", kAxpbSource, {}, KernelTarget::portable(80)};
  CompileTarget ptx{BinaryKind::Ptx, 80, false};
  {
    KernelCache cold(dir);
    auto compiled = cold.get(k, ptx);
    ASSERT_TRUE(compiled.hasValue()) << compiled.status().message();
    EXPECT_EQ(cold.stats().compiles, 1u);
    EXPECT_GT(cold.stats().compileSeconds, 0.0);
  }
  KernelCache warm(dir);
  auto loaded = warm.get(k, ptx);
  ASSERT_TRUE(loaded.hasValue());
  EXPECT_EQ(warm.stats().diskHits, 1u);
  EXPECT_EQ(warm.stats().compiles, 0u);
  EXPECT_NE((*loaded)->image.find(".entry axpb"), std::string::npos);
}

TEST(KernelCacheDir, FollowsTheEnvironment) {
  auto save = [](const char *name) {
    const char *value = getenv(name);
    return std::pair<bool, std::string>(value != nullptr, value ? value : "");
  };
  auto restore = [](const char *name, const std::pair<bool, std::string> &saved) {
    if (saved.first)
      setenv(name, saved.second.c_str(), 1);
    else
      unsetenv(name);
  };
  auto cacheDir = save("TGC_CACHE_DIR"), xdg = save("XDG_CACHE_HOME"), home = save("HOME");
  setenv("TGC_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(defaultCacheDir(), "/some/where");
  unsetenv("TGC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(defaultCacheDir(), "/xdg/tgc");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(defaultCacheDir(), "/home/u/.cache/tgc");
  restore("TGC_CACHE_DIR", cacheDir);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}
