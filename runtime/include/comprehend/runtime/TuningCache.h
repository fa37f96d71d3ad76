//===- TuningCache.h - Persistent best configurations -----------*- C++ -*-===//
//
// One JSON file maps (kernel content hash, device name, driver version,
// concrete sizes) to the best configuration found and its time:
//
//   {"format": "comprehend-tuning-cache", "version": 1,
//    "entries": {"<key>": {"kernel": "...", "device": "...", "driver": "...",
//                          "sizes": "M=512,N=512", "config": {...},
//                          "median_ms": 1.25, "default_ms": 1.5}}}
//
// Writes are atomic: re-read the file, merge the new entry into what is
// there, write a temporary file in the same directory and rename it over the
// cache. A reader therefore always sees one complete file, without locking.
//
// Guarantee under concurrent writers: writers serialise their
// read-merge-write on `<cache>.lock`, so every entry any `store` wrote is
// kept. Where that lock cannot be taken (no permission, a file system
// without locks, a holder slower than 10 s), `store` still re-reads after its
// rename and merges again when its entry is missing; then the file always
// parses and every entry in it was stored by some `store`, but an entry can be
// lost when two writers' read-merge-write windows overlap.
//
// A corrupt file (not JSON) or a foreign one (JSON in another format) is
// reported through the warning stream and treated as empty; it is never an
// error. The next store renames a corrupt file to
// `<cache>.corrupt-<UTC time>` (and says so) before it writes a new cache, so
// no entry a person could recover is lost; a foreign file is never
// overwritten (store reports a warning and leaves it alone).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNINGCACHE_H
#define COMPREHEND_RUNTIME_TUNINGCACHE_H

#include "comprehend/runtime/TuningSpace.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace comprehend::runtime {

/// What a cached configuration is valid for.
struct TuningKey {
  /// Hex hash of the kernel's source text (see hashKernelText).
  std::string kernelHash;
  std::string deviceName;
  std::string driverVersion;
  /// Canonical `name=value,...` sizes, empty when the kernel has none.
  std::string sizes;
  /// The kernel entry point (part of the key: one file, several kernels).
  std::string entry;

  /// The string the entry is filed under in the JSON object.
  std::string str() const;
};

/// The best known configuration for a key.
struct TuningRecord {
  Configuration config;
  double medianMs = 0;
  /// The default configuration's time when the record was made (0:
  /// unknown), so a later run can tell when the stored answer no longer
  /// beats it.
  double defaultMs = 0;
};

/// A stable hex digest (SHA-256) of a kernel's text.
std::string hashKernelText(llvm::StringRef text);

class TuningCache {
public:
  /// The cache at `path`; warnings (corrupt or foreign files) go to
  /// `warnings` when it is not null.
  explicit TuningCache(std::string path, llvm::raw_ostream *warnings = nullptr);

  /// `$XDG_CACHE_HOME/comprehend/tuning.json`, else
  /// `$HOME/.cache/comprehend/tuning.json`, else `./tuning.json`.
  static std::string getDefaultPath();

  const std::string &getPath() const { return path; }

  /// The record of `key`, if the file exists, is readable and has one.
  std::optional<TuningRecord> lookup(const TuningKey &key) const;

  /// Merges `record` under `key` and rewrites the file atomically. An
  /// existing record with a smaller time is kept (the cache holds the best
  /// configuration ever measured) unless `replace` is set. Errors are
  /// input/output failures (unwritable directory, foreign file).
  llvm::Error store(const TuningKey &key, const TuningRecord &record,
                    bool replace = false);

  /// Number of valid entries in the file (0 for a missing/corrupt file).
  size_t getNumEntries() const;

private:
  enum class FileState { Missing, Valid, Corrupt, Foreign };
  /// Reads the file into `entries` (an object of entries).
  FileState read(llvm::json::Object &entries, bool warn) const;
  void warn(const llvm::Twine &message) const;
  /// Renames a corrupt file to `<path>.corrupt-<UTC time>` and says so.
  llvm::Error keepAside() const;

  std::string path;
  llvm::raw_ostream *warnings;
  /// One warning per cache object: lookup and store read the same file.
  mutable bool warned = false;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNINGCACHE_H
