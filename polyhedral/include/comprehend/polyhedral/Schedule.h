//===- Schedule.h - isl schedules, mapping and AST of a def -----*- C++ -*-===//
//
// The mapper: the statements of a def become a scop (domains, accesses and
// the dependences of TC's sequential semantics), isl's scheduler computes a
// schedule tree under a fusion strategy, the outermost parallel band of each
// kernel is tiled with its tile loops mapped to work-groups and its point
// loops (or, when a group handles one point, the parallel bands below) to the
// work-items of a group, and isl's AST generator turns the mapped tree into
// code. The code comes back as our own AST (loops, guards, statement
// instances with IndexExpr subscripts): isl never leaves polyhedral/lib,
// where each of those stages has a file of its own (Schedule.cpp runs them).
//
// A statement with a reduction operator is two statements of the scop, as in
// TC: an init instance `I<k>[lhs indices]` (only for `op=!`) and the update
// `S<k>[iterators]` that combines the right-hand side into the LHS element.
// A statement without one is `S<k>[iterators]` alone.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_SCHEDULE_H
#define COMPREHEND_POLYHEDRAL_SCHEDULE_H

#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/polyhedral/ScheduledStatement.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace comprehend::poly {

/// How much the scheduler fuses (TC's mapping option `fusion`).
enum class FusionStrategy {
  Max,               ///< fuse as much as the dependences allow
  KeepOuterParallel, ///< fuse only where the outer loop stays parallel
  None               ///< one loop nest per strongly connected component
};

/// Parses "max" / "outer" / "none".
std::optional<FusionStrategy> parseFusionStrategy(llvm::StringRef text);
llvm::StringRef getFusionStrategyName(FusionStrategy strategy);

struct ScheduleOptions {
  FusionStrategy fusion = FusionStrategy::Max;
  /// Tile sizes of the outermost parallel band of every kernel, outermost
  /// member first. Missing or 0 entries take the default: the innermost
  /// members get tiles until a group holds about `groupWork` points, the
  /// others tile 1 (one group per point). When the band has parallel
  /// loops below it (a sequence of inner loop nests), every tile is 1 by
  /// default so that the inner loops go to the work-items.
  llvm::SmallVector<int64_t, 4> tileSizes;
  int64_t groupWork = 64;
  /// When a group gets one point of the outer band, run the statements
  /// below it in textual order, each loop nest on the work-items of the
  /// group (reductions in parallel), instead of isl's inner schedule.
  /// Chosen when those loop nests have parallel loops or reductions of at
  /// least `groupWork` iterations.
  bool innerMapping = true;
  /// On a core that runs a loop inside one work-item on vector registers (a
  /// CPU; the backend's vectorize-loops), a group of such a textual inner
  /// schedule takes this many points of the outer band's innermost member
  /// instead of one, a point per work-item, and each work-item runs the
  /// inner loop nests sequentially on vectors: a softmax row per work-item
  /// rather than per group. 0 keeps one point per group (GPUs). An explicit
  /// tile size wins.
  int64_t vectorRows = 0;
  /// On such a core, a tiled band whose point loops hold the statements
  /// (no inner loop nests to map) gives each work-item runs of this many
  /// consecutive points of its innermost member, run by one loop that the
  /// backend vectorizes, instead of single points strided over the
  /// work-items; a group's `groupWork` then counts runs. 0 or 1: single
  /// points (GPUs).
  int64_t vectorRun = 0;
  /// On a GPU, the parallel points a kernel needs to keep the device busy
  /// (0: no such rule, CPUs). Where isl's maximal fusion puts every
  /// statement into one kernel with fewer (the leading parallel members of
  /// its outermost band span fewer points), and scheduling the statements
  /// unfused gives every kernel at least twice as many, they are scheduled
  /// unfused.
  int64_t minParallelPoints = 0;
  /// Where outer fusion of a whole run fails, the kernels that nothing
  /// else reads (a backward's column sums after its rows) share one kernel.
  /// Off on GPUs, where the shared kernel was slower (docs/nvidia.md).
  bool shareTrailingKernels = true;
  /// On cores whose work-items run on vectors (CPUs): a kernel where
  /// maximal fusion runs statements at different strides in one loop (a
  /// 2 x 2 max-pool backward's ties count at every second pixel of the
  /// gradient's loop, under guards that keep that loop off vectors) is
  /// scheduled fused only where the outer loop stays parallel.
  bool unfuseStrides = false;
  /// On a GPU: where a kernel's outermost band has more than three leading
  /// parallel members, the innermost three go to the groups and work-items
  /// (the last, which walks memory contiguously, on x, so that neighbouring
  /// work-items touch neighbouring elements), the outer ones folded into
  /// the outermost of those three (linearised, so that the groups cover
  /// them); below a group, the sequential loops of one statement become one
  /// loop, which the lowering reduces across the work-group. Elsewhere the
  /// outermost three are mapped and the innermost loops stay in the
  /// work-item, where a CPU vectorizes them.
  bool mapInnermostMembers = false;
};

/// A guard of the AST: a comparison of two IndexExprs or a conjunction /
/// disjunction of guards.
struct AstCondition {
  enum class Kind { And, Or, Eq, Le, Lt, Ge, Gt };
  Kind kind = Kind::Eq;
  std::vector<AstCondition> operands; ///< And / Or
  IndexExpr lhs, rhs;                 ///< comparisons
};

/// A node of the generated code.
struct AstNode {
  enum class Kind { Block, For, If, Instance };
  /// What a `for` runs on.
  enum class Mapping {
    Sequential, ///< an ordinary loop
    Group,      ///< one iteration per work-group (`group_id`)
    WorkItem    ///< spread over the work-items of a group
  };
  Kind kind = Kind::Block;
  /// Block: the nodes in order; For: the body; If: the then-branch.
  std::vector<AstNode> children;
  /// If: the else-branch (may be empty).
  std::vector<AstNode> elseChildren;

  /// For: `for (iterator = lo; iterator < hi; iterator += step)`.
  std::string iterator;
  IndexExpr lo, hi;
  int64_t step = 1;
  Mapping mapping = Mapping::Sequential;
  /// Group / WorkItem: the position among the mapped loops of its chain
  /// (outermost first).
  unsigned mappedDim = 0;
  /// Whether the loop carries only the dependences of a reduction (the
  /// update of one LHS element by several iterations).
  bool reduction = false;

  /// If: the guard.
  AstCondition condition;

  /// Instance: statement `statement` of the def (its update, or its init
  /// with `init`) at the point `args` (one IndexExpr of the loop iterators
  /// per iterator of the statement; for an init, per LHS index).
  unsigned statement = 0;
  bool init = false;
  std::vector<IndexExpr> args;
};

/// One kernel launch: a top-level piece of the generated code.
struct MappedKernel {
  /// A Block; its Group loops (a chain at the top) give the launch grid.
  AstNode root;
  /// Work-groups per dimension (the trip counts of the Group loops).
  std::array<int64_t, 3> grid = {1, 1, 1};
};

struct MappedSchedule {
  /// The mapped schedule tree in isl's block format, marks included.
  std::string scheduleTree;
  /// isl's C rendering of the generated AST.
  std::string astText;
  llvm::SmallVector<MappedKernel, 2> kernels;
  /// Whether a mapping decision depended on ScheduleOptions::groupWork (a
  /// default tile, or whether inner loop nests are worth a group), and
  /// whether some kernel gives its work-items vector runs.
  bool usedGroupWork = false;
  bool usedVectorRuns = false;
};

/// Schedules, maps and generates code for \p stmts (textual order, bounds
/// over the size variables \p params; pass concrete bounds to get a launch
/// grid). Fails without diagnostics when isl cannot model the def (the
/// caller falls back to another lowering).
llvm::Expected<MappedSchedule>
mapSchedule(llvm::ArrayRef<std::string> params,
            llvm::ArrayRef<ScheduledStatement> stmts,
            const ScheduleOptions &options = {});

/// Prints \p node as indented pseudo-code (for `--emit schedule` and tests).
void print(const AstNode &node, llvm::raw_ostream &os, unsigned indent = 0);
void print(const AstCondition &condition, llvm::raw_ostream &os);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_SCHEDULE_H
