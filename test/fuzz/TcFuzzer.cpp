//===- TcFuzzer.cpp - TC text -> sema -> range inference ------------------===//
//
// Any text: the frontend either reports located errors or returns a checked
// program whose every def's ranges can be inferred (loadProgram infers the
// symbolic ranges; here the entry def is inferred again at small concrete
// sizes and its `ranges` JSON printed, as `comprehend ranges` does). A crash,
// a sanitizer report or a hang is a bug.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "comprehend/tc/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace comprehend;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tc"), llvm::SMLoc());
  DiagnosticEngine diags(sourceMgr);
  fuzz::DiagnosticSink sink;
  sink.attach(diags);
  std::unique_ptr<tc::Program> program = tc::loadProgram(diags, id);
  if (!program)
    return 0;
  const tc::Def *entry = tc::findEntry(*program, "");
  if (!entry || size == 0)
    return 0;
  // Small sizes, different per variable, derived from the input so that the
  // fuzzer can steer them.
  llvm::StringMap<int64_t> sizes;
  unsigned k = 0;
  for (const std::string &name : entry->getSizeVars())
    sizes[name] = 1 + (data[k++ % size] % 7);
  std::optional<tc::DefRanges> ranges =
      tc::inferRanges(*program, *entry, sizes, diags);
  if (ranges) {
    std::string json;
    llvm::raw_string_ostream os(json);
    tc::printRangesJson(os, *entry, *ranges, sizes, sourceMgr);
  }
  if (sink.compilerBug)
    fuzz::fail("the TC frontend reported a compiler bug", sink.text);
  return 0;
}
