//===- Main.cpp - comprehend-tblgen: generates IR code from Instructions.td
//===//
//
// Usage: comprehend-tblgen -gen-<what> Instructions.td -I <dir> -o <file>
// Links the static LLVMTableGen + LLVMSupport, never libLLVM-15.so.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"

using namespace llvm;
using namespace comprehend::tblgen;

namespace {

enum class Action {
  Kinds,
  Descriptors,
  ViewDecls,
  ViewDefs,
  Verifier,
  VerifyHooks,
  Traits,
  Folds,
  Spirv,
  CustomFormats,
  Docs
};

cl::opt<Action> action(
    cl::desc("What to generate:"),
    cl::values(
        clEnumValN(Action::Kinds, "gen-inst-kinds", "InstKinds.inc"),
        clEnumValN(Action::Descriptors, "gen-inst-descriptors",
                   "InstDescriptors.cpp.inc"),
        clEnumValN(Action::ViewDecls, "gen-inst-view-decls", "InstViews.h.inc"),
        clEnumValN(Action::ViewDefs, "gen-inst-view-defs",
                   "InstBuilders.cpp.inc"),
        clEnumValN(Action::Verifier, "gen-inst-verifier", "InstVerify.cpp.inc"),
        clEnumValN(Action::VerifyHooks, "gen-inst-verify-hooks",
                   "InstVerifyHooks.h.inc"),
        clEnumValN(Action::Traits, "gen-inst-traits", "InstTraits.inc"),
        clEnumValN(Action::Folds, "gen-inst-folds", "InstFolds.h.inc"),
        clEnumValN(Action::Spirv, "gen-inst-spirv", "InstSpirv.inc"),
        clEnumValN(Action::CustomFormats, "gen-inst-custom-formats",
                   "InstCustomFormats.inc"),
        clEnumValN(Action::Docs, "gen-inst-docs", "instructions.md")));

bool generate(raw_ostream &os, RecordKeeper &records) {
  std::vector<InstSpec> insts = readInstructions(records);
  switch (action) {
  case Action::Kinds:
    emitKinds(insts, os);
    break;
  case Action::Descriptors:
    emitDescriptors(insts, os);
    break;
  case Action::ViewDecls:
    emitViewDecls(insts, os);
    break;
  case Action::ViewDefs:
    emitViewDefs(insts, os);
    break;
  case Action::Verifier:
    emitVerifier(insts, os);
    break;
  case Action::VerifyHooks:
    emitVerifyHookDecls(insts, os);
    break;
  case Action::Traits:
    emitTraits(records, os);
    break;
  case Action::Folds:
    emitFolds(insts, os);
    break;
  case Action::Spirv:
    emitSpirv(insts, os);
    break;
  case Action::CustomFormats:
    emitCustomFormats(insts, os);
    break;
  case Action::Docs:
    emitDocs(insts, os);
    break;
  }
  return false;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "comprehend instruction generator\n");
  return TableGenMain(argv[0], &generate);
}
