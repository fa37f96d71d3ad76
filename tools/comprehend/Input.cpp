//===- Input.cpp - Reading the driver's input files -----------------------===//
#include "Input.h"
#include "Options.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
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

int getConfigOption(llvm::StringRef command, runtime::Configuration &config) {
  config.clear();
  llvm::StringRef text = llvm::StringRef(Config).trim();
  if (text.empty())
    return ExitSuccess;
  std::string contents;
  if (!text.startswith("{")) {
    auto file = llvm::MemoryBuffer::getFile(text);
    if (!file) {
      llvm::errs() << "comprehend " << command << ": error: --config '" << text
                   << "' is neither a JSON object nor a readable file: "
                   << file.getError().message() << "\n";
      return ExitUsage;
    }
    contents = (*file)->getBuffer().str();
    text = contents;
  }
  auto json = llvm::json::parse(text);
  if (!json) {
    llvm::errs() << "comprehend " << command
                 << ": error: --config: " << llvm::toString(json.takeError())
                 << "\n";
    return ExitUsage;
  }
  auto parsed = runtime::configurationFromJSON(*json);
  if (!parsed) {
    llvm::errs() << "comprehend " << command
                 << ": error: --config: " << llvm::toString(parsed.takeError())
                 << "\n";
    return ExitUsage;
  }
  config = std::move(*parsed);
  return ExitSuccess;
}

/// How the input an error is about is given on the command line; empty for
/// none. The libraries' messages name no flag.
static std::string flagHint(const runtime::RuntimeError &error) {
  using runtime::InputSubject;
  std::string name = error.getSubjectName().str();
  switch (error.getSubject()) {
  case InputSubject::Size:
    return "give it with --sizes or an --arg array";
  case InputSubject::Argument:
    return "check --arg";
  case InputSubject::MissingArray:
    return "give it with --arg " + name + "=FILE.npy";
  case InputSubject::MissingScalar:
    return "give it with --arg " + name + "=VALUE";
  case InputSubject::Device:
    return "see 'comprehend devices'";
  case InputSubject::Grid:
    return "check --grid";
  case InputSubject::Entry:
    return "check --entry";
  case InputSubject::None:
    break;
  }
  return "";
}

int reportFailure(llvm::Error error, StringRef command) {
  runtime::ErrorKind kind = runtime::reportError(
      std::move(error), errs(), ("comprehend " + command).str(), flagHint);
  return kind == runtime::ErrorKind::Input ? ExitInvalidInput : ExitRuntime;
}

} // namespace comprehend::tools
