//===- ProgramDiskCache.cpp - Checked files of the on-disk program cache --===//
#include "ProgramDiskCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace comprehend::runtime;
using llvm::StringRef;

/// The magic and format version; bump the version when what an entry holds
/// changes for the same key (e.g. the SPIR 1.2 bridge's output).
static constexpr StringRef kMagic = "CMPRPRG1";
/// Magic, payload size, payload xxHash64.
static constexpr size_t kHeaderSize = 8 + 8 + 8;

std::string comprehend::runtime::getProgramCachePath(StringRef dir,
                                                     StringRef key,
                                                     StringRef extension) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + "." + extension);
  return std::string(path);
}

std::optional<std::string>
comprehend::runtime::readProgramCacheEntry(StringRef path) {
  llvm::TimeTraceScope scope("program cache read");
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < kHeaderSize || !bytes.startswith(kMagic))
    return std::nullopt;
  using llvm::support::endian::read64le;
  uint64_t size = read64le(bytes.data() + 8);
  uint64_t hash = read64le(bytes.data() + 16);
  StringRef payload = bytes.drop_front(kHeaderSize);
  if (payload.size() != size || llvm::xxHash64(payload) != hash)
    return std::nullopt;
  return payload.str();
}

void comprehend::runtime::writeProgramCacheEntry(StringRef path,
                                                 StringRef payload) {
  llvm::TimeTraceScope scope("program cache write");
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return;
  llvm::SmallString<256> temp;
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    char header[kHeaderSize];
    memcpy(header, kMagic.data(), 8);
    llvm::support::endian::write64le(header + 8, payload.size());
    llvm::support::endian::write64le(header + 16, llvm::xxHash64(payload));
    os.write(header, kHeaderSize);
    os << payload;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}
