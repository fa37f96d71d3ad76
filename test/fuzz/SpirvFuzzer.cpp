//===- SpirvFuzzer.cpp - Valid IR -> every target -> SPIR-V ---------------===//
//
// Input the parser and verifier accept is compiled for every preset target
// core; the backend validates each module with SPIRV-Tools (what spirv-val
// runs). A module that fails validation, or any other "compiler bug"
// diagnostic, is a bug; other diagnostics (a subgroup size the core lacks,
// too much local memory) are the input's fault.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

using namespace comprehend;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  for (llvm::StringRef target : backend::CoreInfo::getPresetNames()) {
    // Each target compiles a fresh copy: lowering rewrites the program.
    llvm::SourceMgr sourceMgr;
    DiagnosticEngine diags(sourceMgr);
    fuzz::DiagnosticSink sink;
    sink.attach(diags);
    ir::Context ctx;
    std::unique_ptr<ir::Program> program =
        ir::parseSource(ctx, diags, text, "fuzz.ir");
    if (!program || failed(ir::verify(*program, diags)) || diags.hasErrors())
      return 0;
    backend::CompileOptions options;
    options.validate = true;
    options.verifyEachPass = true;
    std::optional<backend::CoreInfo> core =
        backend::CoreInfo::getPreset(target);
    std::optional<backend::CompiledProgram> compiled =
        backend::compileProgram(*program, *core, options, diags);
    if (sink.compilerBug)
      fuzz::fail(("compiling for " + target + " is a compiler bug").str(),
                 text.str() + "\n" + sink.text);
    if (compiled && compiled->spirv.empty())
      fuzz::fail("an empty module", text);
  }
  return 0;
}
