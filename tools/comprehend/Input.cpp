//===- Input.cpp - Reading the driver's input files -----------------------===//
#include "Input.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace comprehend::tools {

LogicalResult loadInputFile(StringRef path, SourceMgr &sourceMgr) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (std::error_code error = buffer.getError()) {
    errs() << "comprehend: error: cannot read '" << path
           << "': " << error.message() << "\n";
    return failure();
  }
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), SMLoc());
  return success();
}

LogicalResult parseSizes(StringRef text, StringMap<int64_t> &sizes) {
  SmallVector<StringRef, 8> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    name = name.trim();
    value = value.trim();
    int64_t number = 0;
    if (name.empty() || value.getAsInteger(10, number) || number < 0) {
      errs() << "comprehend: error: invalid size '" << item
             << "': expected NAME=VALUE with a non-negative integer value\n";
      return failure();
    }
    if (!sizes.try_emplace(name, number).second) {
      errs() << "comprehend: error: size '" << name << "' given twice\n";
      return failure();
    }
  }
  return success();
}

} // namespace comprehend::tools
