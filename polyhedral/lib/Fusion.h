//===- Fusion.h - isl's schedule of a scop and how much it fuses -*- C++
//-*-===//
//
// Private to polyhedral/lib. Stage 2 of the mapper (Schedule.h): isl's
// scheduler computes a schedule tree for the scop (Scop.h) under a fusion
// strategy; where isl fused too much or too little for the mapping, the tree
// is reshaped here: a sequential band sunk into the parts below it, the
// statements that made a kernel serial scheduled after the others, all
// statements (or those of the last kernels) fused under their first LHS
// index, or the statements below a band given loop nests of their own in
// textual order; kernels that the fusion costs more than it saves are
// scheduled again (Unfusion.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_FUSION_H
#define COMPREHEND_POLYHEDRAL_LIB_FUSION_H

#include "Scop.h"

#include "comprehend/polyhedral/Schedule.h"

#include <optional>

namespace comprehend::poly {

/// isl's schedule of a scop, reshaped for the mapping.
struct FusedSchedule {
  isl::schedule schedule;
  /// Whether a decision depended on ScheduleOptions::groupWork.
  bool usedGroupWork = false;
};

/// isl's schedule of \p scop for parameters in \p context under
/// `options.fusion`. Where isl fused a band without a parallel member over a
/// sequence (a reduction into a scalar, then a map over the reduced input
/// after it), the band is sunk into each part of the sequence, its members
/// parallel where that part's own dependences allow, so that the parts map
/// as kernels of their own. Under maximal fusion, where a kernel's
/// outermost band has no parallel member because dependences end in some
/// of its statements at other points of the band (isl fused a column sum
/// `d_gamma(d) +=! ...(n, d)` into the rows' loop over n: isl's clustering
/// under maximal fusion merges clusters on a proximity edge of bounded
/// distance, without asking whether the merged band stays coincident),
/// those statements and every statement that depends on them are scheduled
/// on their own after the others, recursively. Where isl left several kernels
/// under maximal fusion, one kernel whose groups each run one value of every
/// statement's first LHS index replaces them when the dependences allow it and
/// the work below the groups has parallelism for the work-items: that saves
/// launches and the global round trips of temporaries between them, but gives
/// fewer groups than a kernel isl fused by itself. Where that fails for the
/// whole scop, the kernels that no other kernel depends on (a backward's column
/// sums), if several, are outer-fused into one after the others.
FusedSchedule scheduleAndFuse(const Scop &scop, const isl::set &context,
                              const ScheduleOptions &options);

/// Below a band of one point per group, the statements in textual order,
/// each with a band over its iterators that the band does not fix.
struct TextualInner {
  /// The band, now above the textual order; nullopt when that order
  /// violates a dependence.
  std::optional<isl::schedule_node> node;
  /// Whether the work below has parallel loops or reductions of at least
  /// `groupWork` iterations for the work-items.
  bool worthIt = false;
  /// Whether that answer depended on `groupWork`.
  bool usedGroupWork = false;
};

/// isl's schedule of the instances \p domain of \p scop under \p fusion.
isl::schedule computeSchedule(const Scop &scop, const isl::union_set &domain,
                              const isl::set &context, FusionStrategy fusion);

/// The schedule of \p domain: isl's, with a sequential band over a
/// sequence split and, under maximal fusion, the statements that made a
/// kernel serial peeled off (see scheduleAndFuse). \p depth bounds the
/// peeling.
isl::schedule scheduleDomain(const Scop &scop, const isl::union_set &domain,
                             const isl::set &context, FusionStrategy fusion,
                             unsigned depth = 0);

/// \p fused with each kernel that starves a GPU (fewer parallel points
/// than \p minParallelPoints) scheduled again, fused where the outer loop
/// stays parallel, else not at all, where every kernel that holds at least
/// a sixteenth of the work then gets twice as many points; the other
/// kernels scheduled again as before, in their order. nullopt where no
/// kernel is (Unfusion.cpp). A layer norm backward's rows stay one kernel
/// (its mean has as few points unfused); the partials of a split column
/// reduction leave the sum that isl fused them with on the columns.
std::optional<isl::schedule> unfuseForParallelism(const Scop &scop,
                                                  const isl::set &context,
                                                  const isl::schedule &fused,
                                                  int64_t minParallelPoints);

/// \p fused with each kernel that runs statements at different strides in
/// one band member (a max-pool backward's ties count at every second pixel
/// of the gradient's loop, under guards that keep it off vectors) scheduled
/// again, fused only where the outer loop stays parallel; nullopt where no
/// kernel does (Unfusion.cpp; ScheduleOptions::unfuseStrides).
std::optional<isl::schedule> unfuseStrides(const Scop &scop,
                                           const isl::set &context,
                                           const isl::schedule &fused);

/// The textual inner schedule below \p band.
TextualInner textualInner(const Scop &scop, const isl::schedule_node_band &band,
                          int64_t groupWork);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_FUSION_H
