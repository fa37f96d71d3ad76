//===- GradBuilder.h - Building the backward def of one TC def --*- C++ -*-===//
//
// Reverse mode over the statements of a checked def (docs/autodiff.md):
// every statement writes a new version of its LHS tensor; the statements
// are walked backwards and each value read of an active tensor becomes one
// comprehension that accumulates into the adjoint of the version read,
// written over that tensor's indices by inverting the read's subscripts.
// The versions the adjoints read are recomputed at the top of the body
// (except the forward's outputs, which the backward receives).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_GRADBUILDER_H
#define COMPREHEND_TC_GRADBUILDER_H

#include "GradTerms.h"

#include "comprehend/tc/Grad.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

namespace comprehend::tc::grad {

/// The lower and upper (exclusive) bound of one dimension, as TC text that
/// binds at least as tight as `+` (see boundText).
using DimRange = std::pair<std::string, std::string>;

/// The plain index variables subscripting the tensor read \p expr, or
/// nothing where \p expr is no read or a subscript is not a plain index.
std::optional<llvm::SmallVector<llvm::StringRef, 4>>
plainSubscripts(const Expr &expr);
/// A statement `lhs(...) = rhs` with no reduction or update.
bool isPlainAssign(const ComprehensionStmt &stmt);

class BackwardBuilder {
public:
  /// GradConv.cpp: a convolution's input read.
  struct ShiftedRead;

  BackwardBuilder(const Program &program, const Def &def,
                  const DefRanges &ranges, DiagnosticEngine &diags)
      : program(program), def(def), ranges(ranges), diags(diags) {}

  /// Builds the backward def for the inputs \p wrt; fails after a located
  /// diagnostic.
  LogicalResult build(llvm::ArrayRef<std::string> wrt, BackwardDef &result);

private:
  struct Inversion;

  LogicalResult checkSupported();
  void collectNames();
  std::string fresh(llvm::StringRef base);
  /// A name for index \p dim of a generated statement.
  std::string indexName(unsigned dim) const;
  /// Prints \p callee (and the defs it calls) above the backward.
  void addForwardDef(const Def &callee);
  void nameOutputSizes();
  void assignVersions();
  void markActive(llvm::ArrayRef<std::string> wrt);
  void countReaders(unsigned index);
  // GradShift.cpp: shifts that a normalisation cancels (softmax's max).
  void dropCancelledShifts();
  bool isCancelledShift(unsigned index, const std::string &shift) const;
  bool isNormaliser(unsigned sum, const std::string &eVersion,
                    llvm::SmallVectorImpl<int> &keep) const;
  bool readsVersion(unsigned index, const Expr &expr,
                    const std::string &version) const;
  // GradNormalisedExp.cpp: softmax's ratio in closed form.
  struct NormalisedExp {
    unsigned ratio = 0, sum = 0;
    /// Per dimension of the sum: the exp's dimension it is.
    std::vector<int> keep;
    /// The tensor of `sum(d_Y * Y)` over the normalised indices.
    std::string dot;
  };
  bool matchNormalisedExp(unsigned index, NormalisedExp &found) const;
  void findNormalisedExps();
  void addNormalisedDot(unsigned expIndex);
  Term normalisedSeed(unsigned expIndex, Rewriter &rewriter);
  // GradCentredSum.cpp: a variance's reads of its own mean.
  /// Whether the reads \p targets of statement \p index are the mean of a
  /// centred square whose sum's adjoint is zero.
  bool isCentredSquare(unsigned index,
                       llvm::ArrayRef<const Expr *> targets) const;
  bool isMeanOf(unsigned index, const Expr &meanRead,
                const ApplyExpr &xRead) const;
  bool matchReducedPositions(unsigned meanIndex, const Expr &meanX,
                             unsigned index, const Expr &varianceX,
                             const Expr &meanRead,
                             std::vector<std::string> &extents) const;
  /// What the rules differentiate of statement \p index: its right-hand
  /// side, or a normalised exp's argument.
  const Expr &differentiatedRhs(unsigned index) const;
  llvm::SmallVector<std::pair<unsigned, unsigned>, 4>
  readersOf(unsigned index, const std::string &version) const;
  /// Adds \p adjoint (a tensor of \p version's shape) to the adjoint of
  /// \p version.
  void addWhole(const std::string &version, const std::string &adjoint);
  /// For `O += e` (no `!`) on a tensor an earlier statement wrote: the
  /// version it adds to.
  std::optional<std::string> updatedVersion(unsigned index) const;
  LogicalResult differentiate(unsigned index);
  // GradCalls.cpp: statements that call another def.
  llvm::SmallVector<llvm::StringRef, 4> writesOf(unsigned index) const;
  llvm::SmallVector<llvm::StringRef, 4> readsOf(unsigned index) const;
  std::vector<DimRange> versionDims(unsigned index, llvm::StringRef tensor);
  std::string printCall(unsigned index, Rewriter &rewriter) const;
  LogicalResult differentiateCall(unsigned index);
  LogicalResult deriveCallee(const Def &callee, BackwardDef &backward);
  /// Sets the adjoint of \p version to zeros (an input without gradient,
  /// a call result without adjoint); returns its name.
  std::string zeroAdjoint(const std::string &version);
  LogicalResult addContribution(unsigned index,
                                llvm::ArrayRef<const Expr *> targets);
  Inversion invert(unsigned index, const Expr &read, Rewriter &rewriter);
  // GradConv.cpp: a convolution's data gradient.
  bool addTransposedConv(unsigned index, const Expr &target);
  bool windowsFit(unsigned index, const ShiftedRead &shifted);
  std::string padAdjoint(unsigned index, const ShiftedRead &shifted,
                         bool splitStrides);
  std::string flipOperand(const ApplyExpr &operand, const ShiftedRead &shifted,
                          const std::string &version);
  std::string phaseOperand(const ApplyExpr &operand, const ShiftedRead &shifted,
                           const std::string &phase);
  std::string phasedAdjoint(const ShiftedRead &shifted,
                            const std::string &adjoint);
  std::string gatherPhases(const ShiftedRead &shifted,
                           const std::string &phases,
                           const std::string &adjoint, bool first);
  Term makeSeed(unsigned index, Rewriter &rewriter);
  std::string makeTies(unsigned index);
  DimRange varRange(unsigned index, llvm::StringRef var) const;
  /// varRange as a where clause takes it: a bound that is a Select widens
  /// (the statement is masked with the exact range then).
  DimRange loopRange(unsigned index, llvm::StringRef var) const;
  /// The where clauses of a contribution: the ranges of the indices that
  /// no read bounds; \p reduces tells whether indices are left to reduce.
  std::vector<std::string> rangeClauses(unsigned index, const Inversion &inv,
                                        const Rewriter &rewriter,
                                        const std::string &version,
                                        bool &reduces);
  bool aliasAdjoint(unsigned index, llvm::ArrayRef<std::string> indices,
                    const std::string &version);
  bool boundedByRead(const Rewriter &rewriter, llvm::StringRef var,
                     const DimRange &range) const;
  std::string printWheres(const ComprehensionStmt &stmt, Rewriter &rewriter);
  std::string adjointOf(const std::string &version);
  void seedOutputAdjoints();
  /// `(i0, i1, ...)` over all of \p tensor; with \p wheres, their ranges.
  std::string wholeSubscripts(const std::string &tensor,
                              std::vector<std::string> *wheres = nullptr);
  std::vector<std::string> recompute();
  std::string printHeader(llvm::ArrayRef<std::string> outputs) const;

  const Program &program;
  const Def &def;
  const DefRanges &ranges;
  DiagnosticEngine &diags;
  /// Per statement of the body: the comprehension or the call (the other
  /// is null).
  std::vector<const ComprehensionStmt *> stmts;
  std::vector<const CallStmt *> calls;
  llvm::StringSet<> used;
  /// Extent (printed IndexExpr) -> the backward size variable holding it.
  llvm::StringMap<std::string> sizeVarOf;
  /// Backward tensor -> the range of each dimension.
  llvm::StringMap<std::vector<DimRange>> dims;
  /// Per statement: the backward name of the version it writes, and the
  /// versions it reads (forward name -> backward name).
  std::vector<std::string> written;
  /// Per statement: the versions of every tensor it writes (a call's
  /// results; a comprehension's single LHS, as in `written`).
  std::vector<std::vector<std::string>> results;
  /// The backward defs of called defs (shared with the builders of the
  /// callees), printed above this one.
  struct CalleeCache {
    std::vector<std::string> defs;
    llvm::StringSet<> forwardDefs;
    llvm::StringMap<BackwardDef> byCallee;
  };
  std::shared_ptr<CalleeCache> callees = std::make_shared<CalleeCache>();
  bool isNested = false;
  /// Version -> the forward tensor it is a value of.
  llvm::StringMap<std::string> tensorOf;
  std::vector<llvm::StringMap<std::string>> readVersions;
  /// Versions that depend on a differentiated input.
  llvm::StringSet<> active;
  /// Version -> its adjoint's name; versions whose adjoint has a value.
  llvm::StringMap<std::string> adjoints;
  llvm::StringSet<> hasAdjoint;
  /// Version -> how many reads (of distinct subscripts) or call arguments
  /// take it.
  llvm::StringMap<unsigned> readerCount;
  /// min=!/max=! statement -> the tensor counting its ties.
  llvm::DenseMap<unsigned, std::string> tiesOf;
  /// Exp statement -> its normalisation; ratio statement -> the exp.
  llvm::DenseMap<unsigned, NormalisedExp> normalisedExps;
  llvm::DenseMap<unsigned, unsigned> expOfRatio;
  /// Tensors the backward receives (forward inputs, outputs, d_ outputs).
  llvm::StringSet<> params;
  std::vector<std::string> body;
  /// Every version an emitted statement reads.
  llvm::StringSet<> readByBody;
};

} // namespace comprehend::tc::grad

#endif // COMPREHEND_TC_GRADBUILDER_H
