//===- OutputMemory.cpp - Memory of the arrays calls return ---------------===//
#include "OutputMemory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

using namespace comprehend;
using namespace comprehend::python;

namespace {

/// Blocks below this size come from malloc's own free lists without page
/// faults; they are not kept.
constexpr size_t kMinKeptBytes = size_t(1) << 20;
/// A huge page's bytes on x86-64 Linux.
constexpr size_t kHugePageBytes = size_t(2) << 20;

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

/// Whether large blocks go to huge pages: unless COMPREHEND_HUGE_PAGES=0
/// (a process that cannot afford the kernel compacting memory to find a
/// free huge page at a fault).
bool usesHugePages() {
  static const bool uses = [] {
    const char *value = std::getenv("COMPREHEND_HUGE_PAGES");
    return !value || std::string_view(value) != "0";
  }();
  return uses;
}

/// The bytes of the block that holds \p bytes: a multiple of the output
/// alignment, and from a huge page on a multiple of huge pages.
size_t getBlockBytes(size_t bytes) {
  size_t unit = bytes >= kHugePageBytes && usesHugePages() ? kHugePageBytes
                                                           : kOutputAlignment;
  return (std::max<size_t>(bytes, 1) + unit - 1) / unit * unit;
}

/// New memory for a block: from a huge page on, aligned to huge pages and
/// marked for them (where the kernel's transparent huge pages are enabled
/// on request only, as on Debian), so that the kernel's first stores fault
/// it in 2 MiB at a time instead of 4 KiB, and its stores miss the TLB
/// less.
void *allocateBlock(size_t blockBytes) {
  if (blockBytes < kHugePageBytes || !usesHugePages())
    return std::aligned_alloc(kOutputAlignment, blockBytes);
  void *block = std::aligned_alloc(kHugePageBytes, blockBytes);
  if (block)
    madvise(block, blockBytes, MADV_HUGEPAGE);
  return block;
}

/// The blocks of live outputs (by address, so that a capsule's destructor,
/// which gets nothing else, can give its block back) and the kept ones.
class OutputBlocks {
public:
  void *acquire(size_t bytes) {
    size_t blockBytes = getBlockBytes(bytes);
    void *block = takeKept(blockBytes);
    if (!block)
      block = allocateBlock(blockBytes);
    if (!block)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    live[block] = blockBytes;
    return block;
  }

  void release(void *block) {
    std::lock_guard<std::mutex> lock(mutex);
    // Every capsule's block came from acquire(); nothing else is freed.
    auto found = live.find(block);
    if (found == live.end())
      return;
    size_t blockBytes = found->second;
    live.erase(found);
    if (blockBytes < kMinKeptBytes || blockBytes > getMaxKeptBytes()) {
      std::free(block);
      return;
    }
    while (keptBytes + blockBytes > getMaxKeptBytes())
      freeOldest();
    byAge.emplace_back(blockBytes, block);
    bySize.emplace(blockBytes, std::prev(byAge.end()));
    keptBytes += blockBytes;
  }

  size_t freeKept() {
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

  void *takeKept(size_t blockBytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = bySize.find(blockBytes);
    if (found == bySize.end())
      return nullptr;
    void *block = found->second->second;
    byAge.erase(found->second);
    bySize.erase(found);
    keptBytes -= blockBytes;
    return block;
  }

  void freeOldest() {
    auto [blockBytes, block] = byAge.front();
    auto [first, last] = bySize.equal_range(blockBytes);
    bySize.erase(std::find_if(first, last, [&](const auto &entry) {
      return entry.second == byAge.begin();
    }));
    byAge.pop_front();
    keptBytes -= blockBytes;
    std::free(block);
  }

  std::mutex mutex;
  std::unordered_map<void *, size_t> live;
  /// Kept blocks, oldest release first, and by size.
  Age byAge;
  std::multimap<size_t, Age::iterator> bySize;
  size_t keptBytes = 0;
};

/// Left to the process's end: capsules of arrays that outlive the module's
/// static objects still release their memory here.
OutputBlocks &getOutputBlocks() {
  static auto *blocks = new OutputBlocks();
  return *blocks;
}

} // namespace

void *python::acquireOutputMemory(size_t bytes) {
  return getOutputBlocks().acquire(bytes);
}

void python::releaseOutputMemory(void *memory) {
  if (memory)
    getOutputBlocks().release(memory);
}

size_t python::releaseKeptOutputMemory() {
  return getOutputBlocks().freeKept();
}

size_t python::getKeptOutputBytes() { return getOutputBlocks().getKeptBytes(); }
