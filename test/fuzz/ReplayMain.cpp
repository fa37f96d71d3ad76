//===- ReplayMain.cpp - Runs a fuzz target over files, without libFuzzer --===//
//
// Built into each fuzz target when the fuzzers themselves are not (a GCC
// build): every file named on the command line, or found under a directory
// named there (recursively; `--ext=.tc` keeps only names with that ending),
// is passed to LLVMFuzzerTestOneInput once. ctest runs each target over its
// seed corpus and its regression inputs this way, so the oracles run in
// every build.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> exts;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--ext=")) {
      exts.push_back(arg.str());
      continue;
    }
    if (!llvm::sys::fs::is_directory(arg)) {
      files.push_back(arg.str());
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(arg, ec), end;
         !ec && it != end; it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()))
        files.push_back(it->path());
    if (ec) {
      llvm::errs() << "cannot read '" << arg << "': " << ec.message() << "\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  unsigned count = 0;
  for (const std::string &file : files) {
    if (!exts.empty() &&
        std::none_of(exts.begin(), exts.end(), [&](const std::string &ext) {
          return llvm::StringRef(file).endswith(ext);
        }))
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      llvm::errs() << "cannot read '" << file << "'\n";
      return 2;
    }
    // A copy of exactly the file's bytes, as libFuzzer passes them (a read
    // past the end is then an ASan report, not a read of the terminator).
    std::vector<uint8_t> bytes((*buffer)->getBufferStart(),
                               (*buffer)->getBufferEnd());
    llvm::errs() << "running " << file << "\n";
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++count;
  }
  llvm::outs() << "ran " << count << " inputs\n";
  return count ? 0 : 1;
}
