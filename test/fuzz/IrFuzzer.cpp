//===- IrFuzzer.cpp - IR text -> verifier -> printer round trip -----------===//
//
// Any text: the parser and verifier either report located errors or accept
// it. What they accept prints to text that parses and verifies again and
// prints the same (the printer's output is a fixed point).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace comprehend;

/// Parses and verifies \p text; returns its printed form, or nothing when
/// it was rejected.
static std::optional<std::string> roundTrip(llvm::StringRef text,
                                            fuzz::DiagnosticSink &sink) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  sink.attach(diags);
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, text, "fuzz.ir");
  if (!program || failed(ir::verify(*program, diags)) || diags.hasErrors())
    return std::nullopt;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  ir::print(*program, os);
  return printed;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  fuzz::DiagnosticSink sink;
  std::optional<std::string> first = roundTrip(text, sink);
  if (!first)
    return 0;
  fuzz::DiagnosticSink again;
  std::optional<std::string> second = roundTrip(*first, again);
  if (!second)
    fuzz::fail("the printed program does not parse and verify again",
               *first + "\n" + again.text);
  if (*second != *first)
    fuzz::fail("printing is not a fixed point",
               "first:\n" + *first + "\nsecond:\n" + *second);
  return 0;
}
