//===- Diagnostics.cpp - Located diagnostics over llvm::SourceMgr ---------===//
#include "comprehend/ir/Diagnostics.h"

using namespace comprehend;

InFlightDiagnostic &InFlightDiagnostic::note(Location loc,
                                             const llvm::Twine &message) & {
  diag.notes.push_back({loc, message.str()});
  return *this;
}

void InFlightDiagnostic::report() {
  if (!engine)
    return;
  DiagnosticEngine *target = engine;
  engine = nullptr;
  target->report(std::move(diag));
}

InFlightDiagnostic DiagnosticEngine::emit(Severity severity, Location loc,
                                          const llvm::Twine &message) {
  Diagnostic diag;
  diag.severity = severity;
  diag.loc = loc;
  diag.message = message.str();
  return InFlightDiagnostic(this, std::move(diag));
}

InFlightDiagnostic DiagnosticEngine::emitError(Location loc,
                                               const llvm::Twine &message) {
  return emit(Severity::Error, loc, message);
}

InFlightDiagnostic DiagnosticEngine::emitWarning(Location loc,
                                                 const llvm::Twine &message) {
  return emit(Severity::Warning, loc, message);
}

InFlightDiagnostic DiagnosticEngine::emitRemark(Location loc,
                                                const llvm::Twine &message) {
  return emit(Severity::Remark, loc, message);
}

void DiagnosticEngine::report(Diagnostic diag) {
  if (diag.severity == Severity::Warning && warningsAsErrors)
    diag.severity = Severity::Error;
  if (diag.severity == Severity::Error)
    ++numErrors;
  else if (diag.severity == Severity::Warning)
    ++numWarnings;
  if (handler) {
    handler(diag);
    return;
  }
  print(diag, *os);
}

static llvm::SourceMgr::DiagKind toDiagKind(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return llvm::SourceMgr::DK_Error;
  case Severity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case Severity::Note:
    return llvm::SourceMgr::DK_Note;
  case Severity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  return llvm::SourceMgr::DK_Error;
}

static void printOne(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &out,
                     Severity severity, Location loc,
                     const std::string &message) {
  if (!loc.isValid() || !sourceMgr.FindBufferContainingLoc(loc.Start)) {
    static constexpr const char *names[] = {"error", "warning", "note",
                                            "remark"};
    out << "comprehend: " << names[static_cast<int>(severity)] << ": "
        << message << "\n";
    return;
  }
  llvm::SMRange range = loc;
  // A range that ends in another buffer or before its start cannot be drawn.
  if (!range.End.isValid() || range.End.getPointer() < range.Start.getPointer())
    range.End = range.Start;
  llvm::ArrayRef<llvm::SMRange> ranges;
  if (range.End.getPointer() > range.Start.getPointer())
    ranges = range;
  sourceMgr.PrintMessage(out, range.Start, toDiagKind(severity), message,
                         ranges, {}, /*ShowColors=*/false);
}

void DiagnosticEngine::print(const Diagnostic &diag,
                             llvm::raw_ostream &out) const {
  printOne(sourceMgr, out, diag.severity, diag.loc, diag.message);
  for (const Diagnostic::Note &note : diag.notes)
    printOne(sourceMgr, out, Severity::Note, note.loc, note.message);
}
