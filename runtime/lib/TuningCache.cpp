//===- TuningCache.cpp - Persistent best configurations -------------------===//
#include "comprehend/runtime/TuningCache.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>

using namespace comprehend::runtime;
using llvm::StringRef;

static constexpr StringRef formatName = "comprehend-tuning-cache";
static constexpr int64_t formatVersion = 1;
/// How often store() merges again when a concurrent writer dropped its entry.
static constexpr unsigned maxStoreAttempts = 4;

std::string TuningKey::str() const {
  return (llvm::Twine("kernel=") + kernelHash + ";entry=" + entry + ";device=" +
          deviceName + ";driver=" + driverVersion + ";sizes=" + sizes)
      .str();
}

std::string comprehend::runtime::hashKernelText(StringRef text) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(text.bytes_begin(), text.bytes_end()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

TuningCache::TuningCache(std::string path, llvm::raw_ostream *warnings)
    : path(std::move(path)), warnings(warnings) {}

std::string TuningCache::getDefaultPath() {
  llvm::SmallString<256> result;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    result = *xdg;
  } else if (auto home = llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    result = *home;
    llvm::sys::path::append(result, ".cache");
  } else {
    return "tuning.json";
  }
  llvm::sys::path::append(result, "comprehend", "tuning.json");
  return std::string(result);
}

void TuningCache::warn(const llvm::Twine &message) const {
  if (!warnings || warned)
    return;
  warned = true;
  *warnings << "warning: tuning cache '" << path << "': " << message << '\n';
}

/// The record of one JSON entry, if it is well formed.
static std::optional<TuningRecord> parseRecord(const llvm::json::Value &value) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  const llvm::json::Value *config = object->get("config");
  auto ms = object->getNumber("median_ms");
  if (!config || !ms || !(*ms >= 0))
    return std::nullopt;
  llvm::Expected<Configuration> parsed = configurationFromJSON(*config);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  llvm::Optional<double> defaultMs = object->getNumber("default_ms");
  return TuningRecord{std::move(*parsed), *ms,
                      defaultMs && *defaultMs >= 0 ? *defaultMs : 0};
}

TuningCache::FileState TuningCache::read(llvm::json::Object &entries,
                                         bool warnUser) const {
  entries = llvm::json::Object();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    if (buffer.getError() != std::errc::no_such_file_or_directory && warnUser)
      warn("cannot be read (" + buffer.getError().message() + "); ignoring it");
    return buffer.getError() == std::errc::no_such_file_or_directory
               ? FileState::Missing
               : FileState::Corrupt;
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    std::string reason = llvm::toString(json.takeError());
    if (warnUser)
      warn("is not valid JSON (" + reason + "); ignoring it");
    return FileState::Corrupt;
  }
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != formatName) {
    if (warnUser)
      warn("is not a comprehend tuning cache (no \"format\": \"" + formatName +
           "\"); ignoring it");
    return FileState::Foreign;
  }
  if (root->getInteger("version") != formatVersion) {
    if (warnUser)
      warn("has an unsupported version; ignoring it");
    return FileState::Foreign;
  }
  const llvm::json::Object *stored = root->getObject("entries");
  if (!stored) {
    if (warnUser)
      warn("has no \"entries\" object; ignoring it");
    return FileState::Corrupt;
  }
  unsigned dropped = 0;
  for (const auto &[key, value] : *stored) {
    if (parseRecord(value))
      entries[key] = value;
    else
      ++dropped;
  }
  if (dropped && warnUser)
    warn("ignoring " + llvm::Twine(dropped) + " malformed entries");
  return FileState::Valid;
}

std::optional<TuningRecord> TuningCache::lookup(const TuningKey &key) const {
  llvm::json::Object entries;
  if (read(entries, /*warnUser=*/true) != FileState::Valid)
    return std::nullopt;
  const llvm::json::Value *value = entries.get(key.str());
  if (!value)
    return std::nullopt;
  return parseRecord(*value);
}

size_t TuningCache::getNumEntries() const {
  llvm::json::Object entries;
  read(entries, /*warnUser=*/false);
  return entries.size();
}

/// Writes `root` to a unique temporary file next to `path` and renames it
/// over `path`.
static llvm::Error writeAtomically(StringRef path,
                                   const llvm::json::Value &root) {
  StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return makeInputError("cannot create directory '" + dir +
                            "': " + ec.message());
  int fd = -1;
  llvm::SmallString<256> tempPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%%%%%", fd, tempPath))
    return makeInputError("cannot create a temporary file next to '" + path +
                          "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << llvm::formatv("{0:2}", root) << '\n';
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tempPath);
      return makeInputError("cannot write '" + tempPath + "': " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return makeInputError("cannot rename '" + tempPath + "' to '" + path +
                          "': " + ec.message());
  }
  return llvm::Error::success();
}

namespace {
/// Serialises the read-merge-write of cooperating writers on a lock file
/// beside the cache (`<cache>.lock`), so no writer loses another's entries.
/// Readers never take it: the rename keeps every read consistent. Where the
/// lock cannot be had (no permission, a file system without locks, a writer
/// that holds it too long), store() falls back to its verify-and-merge loop.
class WriterLock {
public:
  explicit WriterLock(StringRef cachePath) {
    llvm::SmallString<256> lockPath(cachePath);
    lockPath += ".lock";
    if (llvm::sys::fs::openFileForWrite(lockPath, fd,
                                        llvm::sys::fs::CD_OpenAlways))
      return;
    if (!llvm::sys::fs::tryLockFile(fd, std::chrono::seconds(10)))
      locked = true;
  }
  ~WriterLock() {
    if (locked)
      llvm::sys::fs::unlockFile(fd);
    if (fd >= 0)
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  WriterLock(const WriterLock &) = delete;
  WriterLock &operator=(const WriterLock &) = delete;

private:
  int fd = -1;
  bool locked = false;
};
} // namespace

llvm::Error TuningCache::keepAside() const {
  // Only a file holds entries; the write fails on anything else by itself.
  if (!llvm::sys::fs::is_regular_file(path))
    return llvm::Error::success();
  auto now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
  std::string aside = path + ".corrupt-" + stamp;
  // Two corrupt files within a second (or two writers) must not collide.
  for (unsigned n = 1; llvm::sys::fs::exists(aside); ++n)
    aside = path + ".corrupt-" + stamp + "-" + std::to_string(n);
  if (std::error_code ec = llvm::sys::fs::rename(path, aside)) {
    // Another writer may have moved or replaced it meanwhile: nothing lost.
    if (!llvm::sys::fs::exists(path))
      return llvm::Error::success();
    return makeInputError("cannot keep the unreadable tuning cache '" + path +
                          "' aside as '" + aside + "': " + ec.message() +
                          "; not overwriting it");
  }
  if (warnings)
    *warnings << "warning: tuning cache '" << path
              << "': kept the unreadable file as '" << aside
              << "'; starting a new cache\n";
  return llvm::Error::success();
}

llvm::Error TuningCache::store(const TuningKey &key, const TuningRecord &record,
                               bool replace) {
  StringRef dir = llvm::sys::path::parent_path(path);
  if (!dir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return makeInputError("cannot create directory '" + dir +
                            "': " + ec.message());
  WriterLock lock(path);
  std::string name = key.str();
  llvm::json::Object entry{
      {"kernel", key.kernelHash},    {"entry", key.entry},
      {"device", key.deviceName},    {"driver", key.driverVersion},
      {"sizes", key.sizes},          {"config", toJSON(record.config)},
      {"median_ms", record.medianMs}};
  if (record.defaultMs > 0)
    entry["default_ms"] = record.defaultMs;
  for (unsigned attempt = 0; attempt < maxStoreAttempts; ++attempt) {
    llvm::json::Object entries;
    FileState state = read(entries, /*warnUser=*/attempt == 0);
    if (state == FileState::Foreign)
      return makeInputError("not overwriting '" + path +
                            "': it is not a comprehend tuning cache");
    // An unreadable file may still hold entries a person can recover (a
    // truncated write, a hand edit gone wrong): keep it aside, never replace
    // it.
    if (state == FileState::Corrupt)
      if (llvm::Error error = keepAside())
        return error;
    if (const llvm::json::Value *existing = entries.get(name)) {
      std::optional<TuningRecord> old = parseRecord(*existing);
      // Another process (or an earlier run) already stored something at
      // least as good: keep it, nothing to write.
      if (!replace && old && old->medianMs <= record.medianMs)
        return llvm::Error::success();
    }
    entries[name] = llvm::json::Object(entry);
    llvm::json::Object root{{"format", formatName},
                            {"version", formatVersion},
                            {"entries", std::move(entries)}};
    if (llvm::Error error = writeAtomically(path, std::move(root)))
      return error;
    // Check that no concurrent writer replaced the file with a version read
    // before our rename; if one did, merge again.
    llvm::json::Object after;
    if (read(after, /*warnUser=*/false) == FileState::Valid && after.get(name))
      return llvm::Error::success();
  }
  return makeInputError("concurrent writers kept replacing '" + path +
                        "'; the entry for " + name + " was not kept");
}
