//===- Input.h - Reading the driver's input files ---------------*- C++ -*-===//
#ifndef COMPREHEND_TOOLS_INPUT_H
#define COMPREHEND_TOOLS_INPUT_H

#include "comprehend/ir/Support.h"
#include "comprehend/runtime/TuningSpace.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

namespace comprehend::tools {

/// Adds \p path ("-" for stdin) to \p sourceMgr as its main buffer. Prints a
/// one-line reason and fails when the file cannot be read.
LogicalResult loadInputFile(llvm::StringRef path, llvm::SourceMgr &sourceMgr);

/// Parses `M=64,N=32` into \p sizes; prints a one-line reason on failure.
LogicalResult parseSizes(llvm::StringRef text, llvm::StringMap<int64_t> &sizes);

/// Reads --config (JSON text, or the path of a JSON file) into \p config;
/// empty when the option is not given. Prints a one-line reason prefixed by
/// `comprehend <command>` and returns the exit code on failure, else 0.
int getConfigOption(llvm::StringRef command, runtime::Configuration &config);

/// Prints \p error as `comprehend <command>: error: ...` and returns its exit
/// code: invalid input (1) or a device/runtime error (3).
int reportFailure(llvm::Error error, llvm::StringRef command);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_INPUT_H
