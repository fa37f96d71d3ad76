//===- GradBindings.cpp - Reverse-mode differentiation from Python --------===//
//
// derive_backward(source, entry, wrt, name): tc::deriveBackward, the TC text
// of the backward def of `entry` (comprehend._autograd defines and runs it
// like any def). A def whose gradient cannot be derived raises CompileError
// with the located diagnostics, as an invalid source does.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

#include "comprehend/tc/Grad.h"

#include "llvm/Support/MemoryBuffer.h"

#include <pybind11/stl.h>

using namespace comprehend;
using namespace comprehend::python;

namespace {

/// Every error of the derivation is the source's: its diagnostics when
/// there are any, else the error's own message.
Outcome toCompileError(llvm::Error error, std::string diagnostics) {
  std::string message = llvm::toString(std::move(error));
  return Outcome::compile(diagnostics.empty() ? message : diagnostics);
}

py::dict deriveBackward(const std::string &source, const std::string &entry,
                        const std::vector<std::string> &wrt,
                        const std::string &name) {
  Outcome outcome;
  tc::BackwardDef backward;
  {
    py::gil_scoped_release release;
    llvm::SourceMgr sourceMgr;
    // The source is the engine's first buffer, under the caller's name, so
    // that diagnostics say `<name>:line:col`.
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
    DiagnosticBuffer buffer(sourceMgr);
    tc::GradOptions options;
    options.wrt = wrt;
    auto derived = tc::deriveBackward(sourceMgr.getMemoryBuffer(1)->getBuffer(),
                                      entry, options, buffer.diags);
    if (derived)
      backward = std::move(*derived);
    else
      outcome = toCompileError(derived.takeError(), buffer.take());
  }
  check(outcome);
  py::dict result;
  result["name"] = backward.name;
  result["source"] = backward.source;
  result["inputs"] = backward.inputs;
  result["outputs"] = backward.outputs;
  return result;
}

} // namespace

void python::bindGrad(py::module_ &m) {
  m.def("derive_backward", &deriveBackward, py::arg("source"),
        py::arg("entry") = "", py::arg("wrt") = std::vector<std::string>(),
        py::arg("name") = "<string>",
        "The backward def of def `entry` of TC `source`: a dict with its "
        "name, TC text, inputs (the forward's inputs, outputs, then d_<O> per "
        "output) and outputs (d_<I> per differentiated input; `wrt` empty: "
        "every floating-point input).");
}
