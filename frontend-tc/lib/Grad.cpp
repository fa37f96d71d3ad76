//===- Grad.cpp - Reverse-mode differentiation of a TC def ----------------===//
#include "comprehend/tc/Grad.h"
#include "GradBuilder.h"

#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::tc;

namespace {

llvm::Error inputError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The buffer of \p sourceMgr that holds \p source, or a new copy of it.
unsigned findOrAddBuffer(llvm::SourceMgr &sourceMgr, llvm::StringRef source) {
  for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id) {
    llvm::StringRef buffer = sourceMgr.getMemoryBuffer(id)->getBuffer();
    if (buffer.data() == source.data() && buffer.size() == source.size())
      return id;
  }
  return sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "<tc source>"),
      llvm::SMLoc());
}

/// The inputs to differentiate: \p requested, checked, in parameter order;
/// or every floating-point input.
llvm::Expected<std::vector<std::string>>
selectInputs(const Def &def, llvm::ArrayRef<std::string> requested,
             DiagnosticEngine &diags) {
  for (const std::string &name : requested) {
    const Param *param = llvm::find_if(
        def.getInputs(), [&](const Param &p) { return p.name.name == name; });
    if (param == def.getInputs().end()) {
      diags.emitError(def.getName().loc)
          << "'" << name << "' is not an input of '" << def.getName().name
          << "'";
      return inputError("'" + name + "' is not an input");
    }
    if (!isFloatingPoint(param->type->scalar)) {
      diags.emitError(param->name.loc)
          << "input '" << name << "' has type "
          << getSpelling(param->type->scalar) << ": integer tensors have no "
          << "gradient";
      return inputError("'" + name + "' is not a floating-point input");
    }
  }
  std::vector<std::string> inputs;
  for (const Param &param : def.getInputs())
    if (requested.empty() ? isFloatingPoint(param.type->scalar)
                          : llvm::is_contained(requested, param.name.name))
      inputs.push_back(param.name.name.str());
  if (inputs.empty()) {
    diags.emitError(def.getName().loc)
        << "'" << def.getName().name
        << "' has no floating-point input to differentiate";
    return inputError("nothing to differentiate");
  }
  return inputs;
}

/// The derived text must check like any def; a failure is a bug here.
llvm::Error checkDerived(const BackwardDef &backward) {
  llvm::SourceMgr sourceMgr;
  std::string messages;
  llvm::raw_string_ostream os(messages);
  DiagnosticEngine diags(sourceMgr, os);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(backward.source, backward.name),
      llvm::SMLoc());
  diags.setHandler([&](const Diagnostic &diag) {
    if (diag.severity == Severity::Error)
      diags.print(diag, os);
  });
  if (loadProgram(diags, sourceMgr.getMainFileID()))
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "internal error: the derived backward def does not check:\n" + os.str() +
          backward.source);
}

} // namespace

llvm::Expected<BackwardDef> tc::deriveBackward(llvm::StringRef source,
                                               llvm::StringRef entry,
                                               const GradOptions &options,
                                               DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.getNumErrors();
  unsigned bufferId = findOrAddBuffer(diags.getSourceMgr(), source);
  std::unique_ptr<Program> program =
      loadProgram(diags, bufferId, /*inferAllRanges=*/false);
  if (!program)
    return inputError("the source does not check");
  const Def *def = findEntry(*program, entry);
  if (!def)
    return inputError(entry.empty() ? "the source defines no function"
                                    : "no def named '" + entry + "'");
  llvm::StringMap<int64_t> noSizes;
  std::optional<DefRanges> ranges = inferRanges(*program, *def, noSizes, diags);
  if (!ranges || diags.getNumErrors() != errorsBefore)
    return inputError("range inference failed for '" + def->getName().name +
                      "'");
  llvm::Expected<std::vector<std::string>> inputs =
      selectInputs(*def, options.wrt, diags);
  if (!inputs)
    return inputs.takeError();
  BackwardDef backward;
  grad::BackwardBuilder builder(*program, *def, *ranges, diags);
  if (failed(builder.build(*inputs, backward)))
    return inputError("the gradient of '" + def->getName().name +
                      "' cannot be derived");
  if (llvm::Error error = checkDerived(backward))
    return error;
  return backward;
}
