//===- ScheduleTreeSupport.h - isl schedule trees, through isl:: -*- C++
//-*-===//
//
// Private to polyhedral/lib. The isl calls on schedule trees, unions and
// printers that the C++ bindings (isl/cpp.h, isl 0.25) lack, each wrapped in
// one helper that takes and returns isl:: values, so that the stages of the
// mapper (Dependences.cpp, Fusion.cpp, Tiling.cpp, Mapping.cpp) make no raw
// isl calls and free nothing by hand; and the band queries they share.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_SCHEDULETREESUPPORT_H
#define COMPREHEND_POLYHEDRAL_LIB_SCHEDULETREESUPPORT_H

#include "IslSupport.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace comprehend::poly {

//===----------------------------------------------------------------------===//
// Calls the bindings lack
//===----------------------------------------------------------------------===//

/// The options of isl's scheduler and band tiling.
struct SchedulerOptions {
  bool serializeSccs = false;
  bool wholeComponent = false;
  bool maximizeCoincidence = false;
  bool outerCoincidence = false;
  bool scaleTileLoops = false;
  bool shiftPointLoops = false;
};

/// Sets \p options on \p ctx for the schedules computed and the bands tiled
/// next.
void setSchedulerOptions(isl::ctx ctx, const SchedulerOptions &options);

/// The empty union map / set with the parameters of \p space.
isl::union_map emptyUnionMap(const isl::space &space);
isl::union_set emptyUnionSet(const isl::space &space);

/// \p map (single-valued) as a partial schedule.
isl::multi_union_pw_aff toPartialSchedule(const isl::union_map &map);

/// `{ S[x] -> S[y] : x_dim = y_dim }` on the set space \p setSpace.
isl::map equalAtDim(const isl::space &setSpace, unsigned dim);

/// `{ S[x] -> [x_d0, x_d1, ...] }` for the set dimensions \p dims of
/// \p setSpace, in that order.
isl::map selectDims(const isl::space &setSpace, llvm::ArrayRef<unsigned> dims);

/// `{ [0, ..., 0, x] : 0 <= x <= maxStep }` on \p setSpace: moves by at most
/// \p maxStep elements along the last dimension.
isl::set stepMovesUpTo(const isl::space &setSpace, int64_t maxStep = 1);

/// `{ x -> y : order(x) lexicographically before order(y) }`.
isl::union_map lexBefore(const isl::union_map &order);

/// Per member, the minimum / maximum of \p schedule over its domain.
isl::multi_val minPerMember(const isl::multi_union_pw_aff &schedule);
isl::multi_val maxPerMember(const isl::multi_union_pw_aff &schedule);

/// The constant \p values on \p domain.
isl::multi_union_pw_aff constantOn(const isl::union_set &domain,
                                   const isl::multi_val &values);

/// The statement instances that reach \p node.
isl::union_set nodeDomain(const isl::schedule_node &node);
/// The number of schedule dimensions of the bands above \p node.
unsigned scheduleDepth(const isl::schedule_node &node);
/// isl_schedule_node_band_sink: the band \p band pushed below its child.
isl::schedule_node sinkBand(const isl::schedule_node &band);
/// isl_schedule_node_cut: \p node and everything below it replaced by a
/// leaf.
isl::schedule_node cutAt(const isl::schedule_node &node);
/// \p band replaced by a band of \p schedule.
isl::schedule_node replaceBand(const isl::schedule_node &band,
                               const isl::multi_union_pw_aff &schedule);

/// isl_schedule_sequence: \p first, then \p second (a sequence at the top
/// of either contributes its children).
isl::schedule sequenceOf(const isl::schedule &first,
                         const isl::schedule &second);

/// The kernels of \p schedule: the children of a sequence or set at the top
/// (those of a sequence or set nested there, in turn), else the root's child.
llvm::SmallVector<isl::schedule_node, 4>
topLevelKernels(const isl::schedule &schedule);

/// \p schedule in isl's block (indented YAML) format.
std::string scheduleBlockText(const isl::schedule &schedule);

//===----------------------------------------------------------------------===//
// Band queries
//===----------------------------------------------------------------------===//

/// The number of leading coincident (parallel) members of \p band.
unsigned numLeadingCoincident(const isl::schedule_node_band &band);

/// Per member of \p band, the number of values it takes (-1 when that is
/// not a constant).
llvm::SmallVector<int64_t, 4> bandExtents(const isl::schedule_node_band &band);

/// The parallel points of \p kernel (a top-level kernel of a schedule):
/// the product of the extents of its outermost band's leading coincident
/// members (1 without such a band); -1 where an extent is unknown.
int64_t parallelPoints(const isl::schedule_node &kernel);

/// The instances of \p domain, each statement's counted in its bounding
/// box (TC's ranges make boxes); -1 where a bound is unknown.
int64_t countInstances(const isl::union_set &domain);

/// The tile sizes \p sizes (one per member) as the multi_val of \p band.
isl::multi_val bandSizes(const isl::schedule_node_band &band,
                         llvm::ArrayRef<int64_t> sizes);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_SCHEDULETREESUPPORT_H
