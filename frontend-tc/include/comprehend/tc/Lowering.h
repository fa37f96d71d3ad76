//===- Lowering.h - TC defs to tensor-language functions --------*- C++ -*-===//
//
// Turns one checked TC def with concrete sizes into tensor-language
// functions, one per kernel launch, built through ir::Builder (never text):
//
//  - every tensor of the def (inputs, outputs, then temporaries) becomes a
//    memref parameter with its modes reversed, because TC is row-major and
//    memrefs are column-major: `float(A, B, C) T` is `memref<f32xCxBxA>` and
//    `T(a, b, c)` reads `T'[c, b, a]`; a temporary is an `alloca` of the
//    work-group's slice when one launch uses it within each group and the
//    slice is small, else a global scratch parameter the caller allocates;
//  - TC calls are inlined (callee temporaries become temporaries of the
//    def);
//  - a statement that is a (batched) matrix product or matrix-vector
//    product, or a convolution lowered to gemms over views, becomes gemm /
//    gemv instructions (`!` means beta = 0) in a kernel of its own, cut into
//    blocks of the output, one per work-group;
//  - every run of other statements between them is lowered from its isl
//    schedule (polyhedral/Schedule.h: fusion, tiling, the mapping of bands
//    to work-groups and work-items, parallel reductions), one kernel per
//    group of fused statements;
//  - a `!` reduction whose ranges miss elements of its tensor first gets a
//    kernel that sets the whole tensor to the reduction's identity.
//
// docs/lowering.md describes the mapping in detail.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LOWERING_H
#define COMPREHEND_TC_LOWERING_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"
#include "comprehend/polyhedral/Schedule.h"
#include "comprehend/support/Knob.h"
#include "comprehend/tc/AST.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace comprehend::tc {

struct DefRanges;

/// How one tensor of the def is passed to the lowered function.
struct LoweredTensor {
  std::string name;
  TensorInfo::Role role = TensorInfo::Role::Input;
  ScalarType type = ScalarType::Float;
  /// Extents in TC (row-major) order; the memref has them reversed.
  llvm::SmallVector<int64_t, 4> shape;
  /// The inferred lower bound per TC dimension: element `k` of the memref
  /// mode holds index `lo + k` (non-zero only for outputs and temporaries
  /// whose range does not start at 0).
  llvm::SmallVector<int64_t, 4> lowerBounds;
};

/// One kernel launch of a lowered def.
struct LoweredKernel {
  /// The function, owned by the ir::Program passed to lowerDef.
  ir::Function *function = nullptr;
  /// For each function parameter, in parameter order, the index of its
  /// tensor in LoweredDef::tensors.
  llvm::SmallVector<unsigned, 4> tensorIndices;
  /// Number of work-groups to launch in x, y and z.
  std::array<int64_t, 3> grid = {1, 1, 1};
};

/// The smallest output block the search tries for `tc.block_rows` and
/// `tc.block_cols`: a BLAS statement whose output modes are no larger has
/// no use for those knobs.
inline constexpr int64_t kSmallestBlock = 32;

/// The knobs a lowering of a def consulted, i.e. those whose values would
/// change it (the tuner searches only those), and the default of those
/// whose default is a cost rule's choice.
struct LoweringKnobUse {
  /// A BLAS statement the lowering spreads over work-groups by blocks.
  bool blocks = false;
  /// A loop statement whose last group dimension is tiled.
  bool groupWork = false;
  /// A temporary that may live in local memory.
  bool localTemporaries = false;
  /// A convolution that may be lowered to gemms over views (tc.conv_gemm),
  /// and whether the default lowering does.
  bool convGemm = false;
  bool convGemmDefault = false;
  /// A gemm statement with an operand read transposed
  /// (tc.gemm_transpose_copy), and the knob's value the default takes.
  bool gemmTransposeCopy = false;
  int64_t gemmTransposeCopyDefault = 0;
  /// A statement whose reduction over the images may be split
  /// (tc.split_batch_reductions), and whether the default splits it.
  bool splitBatchReductions = false;
  bool splitBatchReductionsDefault = false;
  /// A weight gradient that may be computed with its channels last
  /// (tc.transpose_weight_gradients), and whether the default does.
  bool transposeWeightGradients = false;
  bool transposeWeightGradientsDefault = false;
  /// A statement whose reduction over rows may be split into blocks
  /// (tc.split_column_reductions), and whether the default splits it.
  bool splitColumnReductions = false;
  bool splitColumnReductionsDefault = false;
  /// A gemm statement followed by a pointwise statement on its output that
  /// may run in the gemm's launch (tc.gemm_epilogue), and whether the
  /// default does.
  bool gemmEpilogue = false;
  bool gemmEpilogueDefault = false;
  /// Statements lowered from their isl schedule (the mapper's knobs:
  /// fusion, tiles, inner mapping).
  bool schedule = false;
  /// A tiled map whose work-items take vector runs (tc.vector_run), and
  /// the run length the core's rule chose.
  bool vectorRun = false;
  int64_t vectorRunDefault = 0;
};

/// The result of lowering one def.
struct LoweredDef {
  /// The tensors the caller allocates: inputs, outputs, then the
  /// temporaries held in global memory (global scratch). Temporaries that
  /// live in local memory (written and read in one launch, each work-group
  /// within its own small slice) are allocas of their kernel, and those that
  /// live in an output's memory (storedInOutputs) use the output's buffer:
  /// neither is listed.
  llvm::SmallVector<LoweredTensor, 4> tensors;
  /// Temporary -> output, for the temporaries that live in an output's
  /// memory (docs/lowering.md, "Temporaries in an output's memory").
  llvm::SmallVector<std::pair<std::string, std::string>, 1> storedInOutputs;
  /// Temporary -> the statement's LHS, for the temporaries that hold a
  /// subexpression of a statement computed once per value of its own
  /// indices (docs/lowering.md, "Costly invariants as temporaries").
  llvm::SmallVector<std::pair<std::string, std::string>, 1> hoisted;
  /// The kernels, launched in this order; each one finishes before the next
  /// starts.
  llvm::SmallVector<LoweredKernel, 2> kernels;
  /// The knobs this lowering consulted (the tuner's search space): a knob
  /// is listed where a decision of this lowering depended on its value.
  LoweringKnobUse knobs;
};

/// The numbers of a compute core that the lowering's cost rules read. The
/// caller copies them from backend::CoreInfo: this library does not depend
/// on the backend.
struct CoreShape {
  /// Work-items per subgroup by default (1: no subgroups).
  unsigned defaultSubgroupSize = 1;
  /// Elements per vector register a work-item runs on.
  unsigned nativeVectorWidth = 1;
  /// The smallest subgroup size the core supports.
  unsigned smallestSubgroupSize = 1;
  /// The largest work-group.
  int64_t maxWorkGroupSize = 1024;
  /// Multiprocessors / compute units; 0 when unknown.
  unsigned computeUnits = 0;
};

struct LoweringOptions {
  /// \p base (or the defaults) with the fields that follow the core
  /// (vectorRows, vectorRun, maxSubgroups) set for \p core.
  static LoweringOptions forCore(const CoreShape &core);
  static LoweringOptions forCore(const CoreShape &core, LoweringOptions base);

  /// Recognise BLAS-like statements (gemm, gemv, ...); when false every
  /// statement takes the loop path (for testing both against each other).
  bool matchBlas = true;
  /// Lower convolution-like contractions (an output index shifted by a
  /// reduction index, `I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)`) to
  /// gemms over views of the operands in a launch of their own
  /// (`tc.conv_gemm`), rather than to loops. Needs matchBlas. Unset: where
  /// the gemms' reduction (the channels) has at least 8 iterations
  /// (docs/lowering.md).
  std::optional<bool> convAsGemm;
  /// Which transposed operands of a gemm statement are copied into a
  /// temporary laid out as the gemm reads in place, in a launch before it
  /// (`tc.gemm_transpose_copy`): 0 none, 1 a transposed A (its reduction
  /// index contiguous, `gemm.t`), 2 a transposed B too. Unset: where
  /// gemmRowsPerLane, 1 or 2 by the gemm's size; on other cores 2 for a
  /// large gemm whose B alone is transposed with K steps a page apart,
  /// else 0 (TransposeGemmOperands.cpp).
  std::optional<int64_t> gemmTransposeCopy;
  /// A convolution-like `+=!` statement with fewer output points than twice
  /// minParallelPoints sums per point of a reduction index that every read
  /// subscripts first (the images) into a temporary first, then sums those
  /// (docs/nvidia.md, "Weight gradients"; `tc.split_batch_reductions`).
  /// Unset: on GPU cores (gemmRowsPerLane).
  std::optional<bool> splitBatchReductions;
  /// A convolution's weight gradient of the form ConvPanelGemm.cpp takes
  /// copies the output gradient with its channels last and writes a
  /// temporary with them last, which a gemm per tap over views of the
  /// operands computes (TransposeWeightGradients.cpp;
  /// `tc.transpose_weight_gradients`). Unset: on cores without subgroups.
  std::optional<bool> transposeWeightGradients;
  /// A `+=!`, `max=!` or `min=!` statement with fewer output points than
  /// minParallelPoints, a reduction index that no read subscripts last and
  /// a read that subscripts an output index last (a column sum) reduces
  /// per block of rows into a temporary first, then combines those
  /// (SplitColumnReductions.cpp; `tc.split_column_reductions`). Unset: on
  /// GPU cores (mapInnermostMembers).
  std::optional<bool> splitColumnReductions;
  /// A pointwise statement right after a gemm statement (or a convolution
  /// lowered to gemms) that rewrites the gemm's output element by element
  /// (a bias, an activation) runs in the gemm's launch, each work-group
  /// over its own block of the output after its gemms (GemmEpilogue.cpp;
  /// `tc.gemm_epilogue`). Unset: on cores without subgroups.
  std::optional<bool> gemmEpilogue;
  /// Set by forCore on GPU cores, whose register tiles load A a row per
  /// lane: read transposed, every lane of a warp touches another cache
  /// line (docs/nvidia.md, "Transposed gemm operands").
  bool gemmRowsPerLane = false;
  /// The block of the output memref (rows = mode 0, cols = mode 1, i.e. the
  /// last and the second-to-last TC index of the LHS) that one work-group
  /// computes when a BLAS statement owns the launch grid: the statement is
  /// launched over ceil(rows / blockRows) x ceil(cols / blockCols) groups
  /// (times its batch), each running the instruction on subviews; blocks
  /// at the edge are clipped. 0 picks a default: one group below 2^21
  /// multiply-adds, else 256 x 256 blocks (the rows halved when that leaves
  /// one group). Values are clipped to the shape; negative values are
  /// reported. Exposed to the tuner as
  /// `tc.block_rows` / `tc.block_cols`.
  int64_t blockRows = 0;
  int64_t blockCols = 0;
  /// Where more than 0 (GPU cores: half their multiprocessors, set by
  /// forCore), the default block instead starts at 128 x 64 and halves,
  /// rows first, down to 64 x 32 while the launch would have fewer groups
  /// than this (docs/nvidia.md, "Measured on an H200").
  int64_t minBlockGroups = 0;
  /// Where more than 0 (GPU cores: a full work-group per multiprocessor,
  /// set by forCore), statements that isl fuses into kernels with fewer
  /// parallel points than this are scheduled unfused instead where that
  /// gives their kernels at least twice as many
  /// (poly::ScheduleOptions::minParallelPoints).
  int64_t minParallelPoints = 0;
  /// GPU cores (set by forCore): poly::ScheduleOptions::mapInnermostMembers.
  bool mapInnermostMembers = false;
  /// Off on GPU cores (set by forCore):
  /// poly::ScheduleOptions::shareTrailingKernels.
  bool shareTrailingKernels = true;
  /// poly::ScheduleOptions::unfuseStrides.
  bool unfuseStrides = false;
  /// About how many LHS points one work-group gets when a loop statement
  /// (or a launch of several) tiles its last group dimension, e.g. the
  /// elements of an elementwise statement per group. 0 picks the default
  /// (64). Exposed to the tuner as `tc.group_work`.
  int64_t groupWork = 0;
  /// The bytes of local memory a launch may use for temporaries (`alloca`
  /// of the work-group's slice, see LoweredDef::tensors); set from the
  /// device's local memory. 0 (or less) keeps every temporary in global memory.
  int64_t localMemoryBytes = 32 * 1024;
  /// The most subgroups a work-group of the target may have (its largest
  /// work-group over its smallest subgroup): a parallel reduction keeps a
  /// partial result per subgroup in local memory, and any work-group size
  /// the tuner may set must find room. Counted in localMemoryBytes.
  int64_t maxSubgroups = 1024;
  /// The scheduler's fusion strategy (`tc.fusion`: max / outer / none).
  poly::FusionStrategy fusion = poly::FusionStrategy::Max;
  /// Tile sizes of the outermost parallel band, outermost first; missing
  /// or 0 entries take the mapper's default (`tc.tile0` .. `tc.tile2`).
  llvm::SmallVector<int64_t, 3> tileSizes;
  /// Map the statements below a one-point-per-group outer band to the
  /// work-items of the group, reductions in parallel (per-work-item
  /// partials, subgroup reductions, a tree over the subgroups in local
  /// memory); when false, loops below the work-item loops run sequentially
  /// in each work-item (what a CPU vectorises best). Exposed as
  /// `tc.inner_mapping`; the default follows the core (on with subgroups).
  bool innerMapping = true;
  /// Points of the outer band per group where the inner loop nests would
  /// otherwise spread over a group's work-items: poly::ScheduleOptions::
  /// vectorRows. Set from the core: cores without subgroups whose work-items
  /// run on vector registers (CPUs) take 4, measured on PoCL (softmax and
  /// layer norm rows, docs/lowering.md); others 0.
  int64_t vectorRows = 0;
  /// Consecutive points per work-item in a tiled map on such cores:
  /// poly::ScheduleOptions::vectorRun. Set from the core like vectorRows
  /// (docs/lowering.md, "Vector runs"), 0 elsewhere; `tc.vector_run`.
  int64_t vectorRun = 0;
  /// For debugging: asked after each def-level pass (getDefPassDescriptions)
  /// with its name; where it returns a stream, the def as the pass left it
  /// is printed there as TC source. Unset prints nothing.
  std::function<llvm::raw_ostream *(llvm::StringRef pass)> printDefAfter;
};

/// A def-level pass of the lowering: after the ranges are inferred and the
/// tensors declared, these passes rewrite the def's statements and plan its
/// kernels before one function per kernel is emitted.
struct DefPassDescription {
  llvm::StringLiteral name;
  /// What it does, in one line.
  llvm::StringLiteral description;
};

/// The def-level passes in the order they run.
llvm::ArrayRef<DefPassDescription> getDefPassDescriptions();

//===----------------------------------------------------------------------===//
// The lowering's tuning knobs (`tc.*`, docs/tuning.md), one table
// (LoweringKnobs.cpp): name, the range any value must be in, the values a
// search tries and the default, and how a configuration sets
// LoweringOptions.
//===----------------------------------------------------------------------===//

/// Every knob of the lowering (support/Knob.h): each sets a field of
/// LoweringOptions (applyLoweringKnobs).
llvm::ArrayRef<KnobSpec> getLoweringKnobs();

/// The domains of the knobs \p use marks, in search order; local
/// temporaries default to on where the core has \p dedicatedLocalMemory.
llvm::SmallVector<KnobDomain, 8>
getLoweringKnobDomains(const LoweringKnobUse &use, bool dedicatedLocalMemory);

/// Sets the options named by the `tc.*` knobs of \p values (their ranges
/// checked before). Temporaries go to local memory, within the options'
/// budget and \p localMemoryBytes, where \p dedicatedLocalMemory, unless
/// `tc.local_temporaries` says otherwise.
void applyLoweringKnobs(const KnobValues &values, bool dedicatedLocalMemory,
                        int64_t localMemoryBytes, LoweringOptions &options);

/// Prints the mapped schedule of \p def (`compile --emit schedule`): isl's
/// schedule tree with the mapping marks, isl's AST and the AST the lowering
/// consumes. Reports through \p diags and returns failure when the def has
/// no schedule (as lowerDef would).
LogicalResult printSchedule(const Program &program, const Def &def,
                            const llvm::StringMap<int64_t> &sizes,
                            llvm::raw_ostream &os, DiagnosticEngine &diags,
                            const LoweringOptions &options = {});

/// Lowers the checked def \p def of \p program into new functions of \p out,
/// one per kernel launch: named after the def when there is one launch,
/// `<def>_0`, `<def>_1`, ... in launch order when there are several.
/// \p sizes must bind every size variable of the def. Unsupported
/// constructs (bool tensors, builtins without an IR counterpart), missing
/// sizes and bad options are reported through \p diags; the result is then
/// empty. The functions are not verified here (see ir::verify).
std::optional<LoweredDef> lowerDef(const Program &program, const Def &def,
                                   const llvm::StringMap<int64_t> &sizes,
                                   ir::Program &out, DiagnosticEngine &diags,
                                   const LoweringOptions &options = {});

/// As above, from the def's ranges at \p sizes (inferRanges), inferred once
/// by a caller that lowers the def several times (the tuner: once per
/// candidate configuration).
std::optional<LoweredDef> lowerDef(const Program &program, const Def &def,
                                   const llvm::StringMap<int64_t> &sizes,
                                   const DefRanges &ranges, ir::Program &out,
                                   DiagnosticEngine &diags,
                                   const LoweringOptions &options = {});

} // namespace comprehend::tc

#endif // COMPREHEND_TC_LOWERING_H
