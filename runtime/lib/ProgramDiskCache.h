//===- ProgramDiskCache.h - Checked files of the on-disk program cache -*- C++
//-*-===//
//
// One file per module and device under ProgramOptions::cacheDir, named by
// getProgramCacheKey. Each file starts with a header (the format's magic
// and version, the payload's size and its xxHash64), so a truncated,
// overwritten or foreign file reads as a miss and is rebuilt, never handed
// to a driver.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_LIB_PROGRAMDISKCACHE_H
#define COMPREHEND_RUNTIME_LIB_PROGRAMDISKCACHE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace comprehend::runtime {

/// The path of the entry `key` of kind `extension` (e.g. "spir12") in `dir`.
std::string getProgramCachePath(llvm::StringRef dir, llvm::StringRef key,
                                llvm::StringRef extension);

/// The payload of the entry at `path`; none when the file is missing, from
/// another format version, or its size or checksum does not match.
std::optional<std::string> readProgramCacheEntry(llvm::StringRef path);

/// Writes `payload` to `path` with its header. Best effort: failures are
/// ignored (the cache is an optimisation). Written to a temporary file and
/// renamed, so concurrent processes never read half a file.
void writeProgramCacheEntry(llvm::StringRef path, llvm::StringRef payload);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_LIB_PROGRAMDISKCACHE_H
