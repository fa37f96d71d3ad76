//===- Diagnostics.h - Located diagnostics over llvm::SourceMgr -*- C++ -*-===//
//
// One DiagnosticEngine per compilation. Locations are SMRanges into buffers of
// its SourceMgr (IR and TC sources alike), so diagnostics raised after
// lowering still point into the user's file. Report, don't throw:
//
//   emitError(range) << "operand 'A' must have order 2, but has type " << ty;
//
// returns a move-only InFlightDiagnostic that is reported when destroyed, can
// carry notes, and converts to failure().
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_DIAGNOSTICS_H
#define COMPREHEND_IR_DIAGNOSTICS_H

#include "comprehend/ir/Support.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace comprehend {

/// A source range; invalid for entities that have no source text.
using Location = llvm::SMRange;

enum class Severity { Error, Warning, Note, Remark };

/// A finished diagnostic, as handed to a DiagnosticEngine handler.
struct Diagnostic {
  struct Note {
    Location loc;
    std::string message;
  };
  Severity severity = Severity::Error;
  Location loc;
  std::string message;
  llvm::SmallVector<Note, 1> notes;
};

class DiagnosticEngine;

/// A diagnostic being built; reported to its engine when destroyed.
class [[nodiscard]] InFlightDiagnostic {
public:
  InFlightDiagnostic(DiagnosticEngine *engine, Diagnostic diag)
      : engine(engine), diag(std::move(diag)) {}
  InFlightDiagnostic(InFlightDiagnostic &&other) noexcept
      : engine(other.engine), diag(std::move(other.diag)) {
    other.engine = nullptr;
  }
  InFlightDiagnostic(const InFlightDiagnostic &) = delete;
  InFlightDiagnostic &operator=(const InFlightDiagnostic &) = delete;
  InFlightDiagnostic &operator=(InFlightDiagnostic &&) = delete;
  ~InFlightDiagnostic() { report(); }

  template <typename T> InFlightDiagnostic &operator<<(const T &value) & {
    llvm::raw_string_ostream os(diag.message);
    os << value;
    return *this;
  }
  template <typename T> InFlightDiagnostic &&operator<<(const T &value) && {
    return std::move(*this << value);
  }

  /// Attaches a note, e.g. "'A' defined here", at \p loc.
  InFlightDiagnostic &note(Location loc, const llvm::Twine &message) &;
  InFlightDiagnostic &&note(Location loc, const llvm::Twine &message) && {
    return std::move(note(loc, message));
  }

  /// Reports now; later streaming is ignored.
  void report();
  /// Drops the diagnostic without reporting it.
  void abandon() { engine = nullptr; }

  operator LogicalResult() const { return failure(); }

private:
  DiagnosticEngine *engine;
  Diagnostic diag;
};

/// Collects, counts and prints diagnostics in `file:line:col: error: message`
/// form with the source line and a caret under the range.
class DiagnosticEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  explicit DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                            llvm::raw_ostream &os = llvm::errs())
      : sourceMgr(sourceMgr), os(&os) {}

  InFlightDiagnostic emitError(Location loc, const llvm::Twine &message = {});
  InFlightDiagnostic emitWarning(Location loc,
                                 const llvm::Twine &message = {});
  InFlightDiagnostic emitRemark(Location loc, const llvm::Twine &message = {});
  InFlightDiagnostic emit(Severity severity, Location loc,
                          const llvm::Twine &message = {});

  /// Replaces printing with \p handler (tests collect diagnostics this way).
  void setHandler(Handler newHandler) { handler = std::move(newHandler); }
  /// Turns every warning into an error (`-Werror`).
  void setWarningsAsErrors(bool value) { warningsAsErrors = value; }

  unsigned getNumErrors() const { return numErrors; }
  unsigned getNumWarnings() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }
  llvm::SourceMgr &getSourceMgr() const { return sourceMgr; }

  /// Prints \p diag the way the engine would, to \p out.
  void print(const Diagnostic &diag, llvm::raw_ostream &out) const;

private:
  friend class InFlightDiagnostic;
  void report(Diagnostic diag);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream *os;
  Handler handler;
  bool warningsAsErrors = false;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
};

} // namespace comprehend

#endif // COMPREHEND_IR_DIAGNOSTICS_H
