//===- TuningCacheTest.cpp - The persistent tuning cache ------------------===//
#include "comprehend/runtime/TuningCache.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace comprehend::runtime;

namespace {

class TuningCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tuning-cache", dir));
    llvm::SmallString<256> file(dir);
    llvm::sys::path::append(file, "sub", "tuning.json");
    path = std::string(file);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  void writeFile(llvm::StringRef text) {
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << text;
  }
  std::string readFile() {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  }

  static TuningKey makeKey(llvm::StringRef sizes) {
    return TuningKey{hashKernelText("func @k() {}"), "cpu-test", "1.0",
                     sizes.str(), "k"};
  }

  llvm::SmallString<128> dir;
  std::string path;
};

TEST_F(TuningCacheTest, RoundTrip) {
  TuningCache cache(path);
  EXPECT_FALSE(cache.lookup(makeKey("M=4")));
  TuningRecord record{{{"wg0", 32}, {"tile_m", 4}}, 1.5};
  ASSERT_FALSE(bool(cache.store(makeKey("M=4"), record)));
  ASSERT_FALSE(bool(cache.store(makeKey("M=8"), {{{"wg0", 64}}, 3.0})));

  TuningCache other(path);
  std::optional<TuningRecord> back = other.lookup(makeKey("M=4"));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->config, record.config);
  EXPECT_DOUBLE_EQ(back->medianMs, 1.5);
  EXPECT_EQ(other.lookup(makeKey("M=8"))->config.at("wg0"), 64);
  EXPECT_FALSE(other.lookup(makeKey("M=16")));
  EXPECT_EQ(other.getNumEntries(), 2u);

  // Every part of the key matters.
  TuningKey otherDevice = makeKey("M=4");
  otherDevice.deviceName = "gpu";
  EXPECT_FALSE(other.lookup(otherDevice));
  TuningKey otherDriver = makeKey("M=4");
  otherDriver.driverVersion = "2.0";
  EXPECT_FALSE(other.lookup(otherDriver));
  TuningKey otherKernel = makeKey("M=4");
  otherKernel.kernelHash = hashKernelText("func @k2() {}");
  EXPECT_FALSE(other.lookup(otherKernel));
}

TEST_F(TuningCacheTest, KeepsTheFastestUnlessReplaced) {
  TuningCache cache(path);
  ASSERT_FALSE(bool(cache.store(makeKey(""), {{{"x", 1}}, 2.0})));
  ASSERT_FALSE(bool(cache.store(makeKey(""), {{{"x", 2}}, 3.0})));
  EXPECT_EQ(cache.lookup(makeKey(""))->config.at("x"), 1);
  ASSERT_FALSE(bool(cache.store(makeKey(""), {{{"x", 3}}, 1.0})));
  EXPECT_EQ(cache.lookup(makeKey(""))->config.at("x"), 3);
  ASSERT_FALSE(
      bool(cache.store(makeKey(""), {{{"x", 4}}, 9.0}, /*replace=*/true)));
  EXPECT_EQ(cache.lookup(makeKey(""))->config.at("x"), 4);
  EXPECT_EQ(cache.getNumEntries(), 1u);
}

// Writers that do not overlap in time never lose each other's entries: each
// store merges into what the file holds.
TEST_F(TuningCacheTest, InterleavedWritersMerge) {
  TuningCache a(path), b(path);
  for (int i = 0; i < 10; ++i) {
    TuningCache &writer = i % 2 ? a : b;
    ASSERT_FALSE(bool(writer.store(makeKey("i=" + std::to_string(i)),
                                   {{{"i", i}}, double(i)})));
  }
  EXPECT_EQ(a.getNumEntries(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(b.lookup(makeKey("i=" + std::to_string(i)))->config.at("i"), i);
}

TEST_F(TuningCacheTest, HashIsStableAndContentSensitive) {
  EXPECT_EQ(hashKernelText("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(hashKernelText("abc"), hashKernelText("abd"));
}

/// The files beside the cache whose names start with `<cache>.corrupt-`.
static std::vector<std::string> corruptCopies(llvm::StringRef path) {
  std::vector<std::string> result;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator
           it(llvm::sys::path::parent_path(path), ec),
       end;
       !ec && it != end; it.increment(ec))
    if (llvm::StringRef(it->path()).startswith((path + ".corrupt-").str()))
      result.push_back(it->path());
  return result;
}

TEST_F(TuningCacheTest, CorruptFileIsReportedKeptAsideAndReplaced) {
  std::string corrupt =
      "{\"format\": \"comprehend-tuning-cache\", \"entries\": {\"k\": ";
  writeFile(corrupt);
  std::string warnings;
  llvm::raw_string_ostream os(warnings);
  TuningCache cache(path, &os);
  EXPECT_FALSE(cache.lookup(makeKey("")));
  EXPECT_NE(
      warnings.find("warning: tuning cache '" + path + "': is not valid JSON"),
      std::string::npos)
      << warnings;
  ASSERT_FALSE(bool(cache.store(makeKey(""), {{{"x", 1}}, 1.0})));
  EXPECT_EQ(cache.lookup(makeKey(""))->config.at("x"), 1);
  // The unreadable file is kept, byte for byte, beside the new cache.
  std::vector<std::string> copies = corruptCopies(path);
  ASSERT_EQ(copies.size(), 1u) << warnings;
  auto kept = llvm::MemoryBuffer::getFile(copies[0]);
  ASSERT_TRUE(bool(kept));
  EXPECT_EQ((*kept)->getBuffer(), corrupt);
  EXPECT_NE(warnings.find("kept the unreadable file as '" + copies[0] + "'"),
            std::string::npos)
      << warnings;
  // Reported once, although lookup and store both read the corrupt file.
  EXPECT_EQ(llvm::StringRef(warnings).count("is not valid JSON"), 1u)
      << warnings;

  // A second corrupt file (within the same second) gets its own name.
  writeFile("not json");
  TuningCache again(path);
  ASSERT_FALSE(bool(again.store(makeKey(""), {{{"x", 2}}, 1.0})));
  EXPECT_EQ(corruptCopies(path).size(), 2u);
}

TEST_F(TuningCacheTest, ForeignFileIsReportedAndNeverOverwritten) {
  std::string foreign = "{\"name\": \"someone else's settings\"}\n";
  writeFile(foreign);
  std::string warnings;
  llvm::raw_string_ostream os(warnings);
  TuningCache cache(path, &os);
  EXPECT_FALSE(cache.lookup(makeKey("")));
  EXPECT_NE(warnings.find("is not a comprehend tuning cache"),
            std::string::npos)
      << warnings;
  llvm::Error error = cache.store(makeKey(""), {{{"x", 1}}, 1.0});
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "not overwriting '" + path +
                "': it is not a comprehend tuning cache");
  EXPECT_EQ(readFile(), foreign);
}

TEST_F(TuningCacheTest, MalformedEntriesAreDropped) {
  writeFile(R"({"format": "comprehend-tuning-cache", "version": 1,
               "entries": {"bad": {"config": 3, "median_ms": 1},
                           "worse": [1, 2],
                           "negative": {"config": {}, "median_ms": -1}}})");
  std::string warnings;
  llvm::raw_string_ostream os(warnings);
  TuningCache cache(path, &os);
  EXPECT_EQ(cache.getNumEntries(), 0u);
  EXPECT_FALSE(cache.lookup(makeKey("")));
  EXPECT_NE(warnings.find("ignoring 3 malformed entries"), std::string::npos)
      << warnings;
  ASSERT_FALSE(bool(cache.store(makeKey(""), {{{"x", 1}}, 1.0})));
  EXPECT_EQ(cache.getNumEntries(), 1u);
}

TEST_F(TuningCacheTest, DefaultPathFollowsXdgThenHome) {
  std::optional<std::string> oldXdg, oldHome;
  if (const char *v = std::getenv("XDG_CACHE_HOME"))
    oldXdg = v;
  if (const char *v = std::getenv("HOME"))
    oldHome = v;
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(TuningCache::getDefaultPath(), "/xdg/comprehend/tuning.json");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(TuningCache::getDefaultPath(),
            "/home/u/.cache/comprehend/tuning.json");
  if (oldXdg)
    setenv("XDG_CACHE_HOME", oldXdg->c_str(), 1);
  if (oldHome)
    setenv("HOME", oldHome->c_str(), 1);
  else
    unsetenv("HOME");
}

/// Whether the file at `path` is a complete, valid cache (or missing).
static bool parsesAsCache(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return true;
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return false;
  }
  const llvm::json::Object *root = json->getAsObject();
  return root &&
         root->getString("format") ==
             llvm::StringRef("comprehend-tuning-cache") &&
         root->getObject("entries");
}

// Several processes store many keys into one file at once while the parent
// reads it. The file must parse at every moment, hold only entries that were
// written with the values they were written with, and a store after the
// writers finish must keep every entry it found.
TEST_F(TuningCacheTest, ConcurrentWritersNeverCorruptTheFile) {
  constexpr int numWriters = 4;
  constexpr int keysPerWriter = 25;
  std::vector<pid_t> children;
  for (int w = 0; w < numWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TuningCache cache(path);
      int failures = 0;
      for (int i = 0; i < keysPerWriter; ++i) {
        TuningKey key =
            makeKey("w=" + std::to_string(w) + ",i=" + std::to_string(i));
        if (llvm::Error error =
                cache.store(key, {{{"w", w}, {"i", i}}, 1.0 + i}))
          ++failures, llvm::consumeError(std::move(error));
      }
      _exit(failures > 100 ? 100 : failures);
    }
    children.push_back(pid);
  }
  int reads = 0, corrupt = 0;
  int running = numWriters;
  while (running > 0) {
    ++reads;
    if (!parsesAsCache(path))
      ++corrupt;
    for (pid_t &pid : children) {
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
        EXPECT_TRUE(WIFEXITED(status));
        pid = -1;
        --running;
      }
    }
  }
  EXPECT_EQ(corrupt, 0) << "of " << reads << " reads";
  ASSERT_TRUE(parsesAsCache(path));

  TuningCache cache(path);
  size_t found = 0;
  for (int w = 0; w < numWriters; ++w)
    for (int i = 0; i < keysPerWriter; ++i) {
      std::optional<TuningRecord> record = cache.lookup(
          makeKey("w=" + std::to_string(w) + ",i=" + std::to_string(i)));
      if (!record)
        continue;
      ++found;
      EXPECT_EQ(record->config, (Configuration{{"w", w}, {"i", i}}));
      EXPECT_DOUBLE_EQ(record->medianMs, 1.0 + i);
    }
  // Writers serialise on the lock file: every entry written is kept, and
  // nothing else is in the file.
  EXPECT_EQ(found, size_t(numWriters * keysPerWriter));
  EXPECT_EQ(cache.getNumEntries(), found);

  // The last merge keeps everything it read.
  ASSERT_FALSE(bool(cache.store(makeKey("last"), {{{"x", 1}}, 1.0})));
  EXPECT_EQ(cache.getNumEntries(), found + 1);

  // No temporary file is left behind: only the cache and its lock file.
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator
           it(llvm::sys::path::parent_path(path), ec),
       end;
       it != end && !ec; it.increment(ec))
    files.push_back(std::string(llvm::sys::path::filename(it->path())));
  llvm::sort(files);
  std::string name = std::string(llvm::sys::path::filename(path));
  EXPECT_EQ(files, (std::vector<std::string>{name, name + ".lock"}));
}

} // namespace
