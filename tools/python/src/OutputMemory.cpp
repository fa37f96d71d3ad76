//===- OutputMemory.cpp - Memory of the arrays calls return ---------------===//
#include "OutputMemory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>

using namespace comprehend;
using namespace comprehend::python;

namespace {

/// Blocks below this size come from malloc's own free lists without page
/// faults; they are not kept.
constexpr size_t kMinKeptBytes = size_t(1) << 20;
/// The most the kept blocks hold together: 512 MiB, or a sixteenth of the
/// machine's memory where that is less. The blocks released longest ago
/// are freed first to stay under it.
size_t getMaxKeptBytes() {
  static const size_t bound = [] {
    size_t most = size_t(512) << 20;
    long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageBytes > 0)
      most = std::min(most, size_t(pages) * size_t(pageBytes) / 16);
    return most;
  }();
  return bound;
}

/// Every block starts with a header of kOutputAlignment bytes holding its
/// size, so that a block is released by its data pointer alone (the
/// destructor of a NumPy array's capsule gets nothing else).
struct Header {
  size_t bytes;
};

class KeptBlocks {
public:
  void *take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = bySize.find(bytes);
    if (found == bySize.end())
      return nullptr;
    void *block = found->second->second;
    byAge.erase(found->second);
    bySize.erase(found);
    keptBytes -= bytes;
    return block;
  }

  /// Keeps \p block; false when it is too small to keep.
  bool keep(void *block, size_t bytes) {
    if (bytes < kMinKeptBytes || bytes > getMaxKeptBytes())
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    while (keptBytes + bytes > getMaxKeptBytes())
      freeOldest();
    byAge.emplace_back(bytes, block);
    bySize.emplace(bytes, std::prev(byAge.end()));
    keptBytes += bytes;
    return true;
  }

  size_t freeAll() {
    std::lock_guard<std::mutex> lock(mutex);
    size_t freed = keptBytes;
    while (!byAge.empty())
      freeOldest();
    return freed;
  }

  size_t getKeptBytes() {
    std::lock_guard<std::mutex> lock(mutex);
    return keptBytes;
  }

private:
  using Age = std::list<std::pair<size_t, void *>>;

  void freeOldest() {
    auto [bytes, block] = byAge.front();
    for (auto it = bySize.lower_bound(bytes); it != bySize.end(); ++it)
      if (it->second == byAge.begin()) {
        bySize.erase(it);
        break;
      }
    byAge.pop_front();
    keptBytes -= bytes;
    std::free(block);
  }

  std::mutex mutex;
  /// Oldest release first.
  Age byAge;
  std::multimap<size_t, Age::iterator> bySize;
  size_t keptBytes = 0;
};

/// Left to the process's end: capsules of arrays that outlive the module's
/// static objects still release their memory here.
KeptBlocks &getKeptBlocks() {
  static auto *blocks = new KeptBlocks();
  return *blocks;
}

size_t roundedBlockBytes(size_t bytes) {
  size_t rounded = (std::max<size_t>(bytes, 1) + kOutputAlignment - 1) /
                   kOutputAlignment * kOutputAlignment;
  return rounded + kOutputAlignment;
}

/// A huge page's bytes on x86-64 Linux.
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// New memory for a block: from kHugePageBytes on, aligned to huge pages
/// and marked for them (where the kernel's transparent huge pages are
/// enabled on request only, as on Debian), so that the kernel's first
/// stores fault it in 2 MiB at a time instead of 4 KiB, and its stores
/// miss the TLB less.
void *allocateBlock(size_t blockBytes) {
  if (blockBytes < kHugePageBytes)
    return std::aligned_alloc(kOutputAlignment, blockBytes);
  size_t rounded =
      (blockBytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void *block = std::aligned_alloc(kHugePageBytes, rounded);
  if (block)
    madvise(block, rounded, MADV_HUGEPAGE);
  return block;
}

} // namespace

void *python::acquireOutputMemory(size_t bytes) {
  size_t blockBytes = roundedBlockBytes(bytes);
  void *block = getKeptBlocks().take(blockBytes);
  if (!block)
    block = allocateBlock(blockBytes);
  if (!block)
    return nullptr;
  static_cast<Header *>(block)->bytes = blockBytes;
  return static_cast<char *>(block) + kOutputAlignment;
}

void python::releaseOutputMemory(void *memory) {
  if (!memory)
    return;
  void *block = static_cast<char *>(memory) - kOutputAlignment;
  size_t blockBytes = static_cast<Header *>(block)->bytes;
  if (!getKeptBlocks().keep(block, blockBytes))
    std::free(block);
}

size_t python::releaseKeptOutputMemory() { return getKeptBlocks().freeAll(); }

size_t python::getKeptOutputBytes() { return getKeptBlocks().getKeptBytes(); }
