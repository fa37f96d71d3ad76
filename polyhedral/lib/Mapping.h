//===- Mapping.h - Tiling a scheduled scop onto groups and items -*- C++
//-*-===//
//
// Private to polyhedral/lib. Stage 3 of the mapper (Schedule.h), per kernel
// (a child of the top-level sequence, or the whole tree): the leading
// coincident members of the outermost band (at most three) are tiled; the
// tile loops go to work-groups, the point loops to work-items. When every
// tile is 1 the band is mapped to groups without tiling and the parallel
// bands below it (one per statement of a fused sequence, say) go to the
// work-items. Tiling.cpp chooses the tiles, with the rules of a CPU core
// (vector rows and runs); Mapping.cpp places them.
//
// A mapped band is marked: a mark node above it whose id carries a LoopMark
// as user data. The marks survive into isl's AST, where AstTranslation.cpp
// reads them.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_MAPPING_H
#define COMPREHEND_POLYHEDRAL_LIB_MAPPING_H

#include "Scop.h"

#include "comprehend/polyhedral/Schedule.h"

#include <optional>

namespace comprehend::poly {

/// What a mark says about the band right below it.
struct LoopMark {
  /// Group or WorkItem.
  AstNode::Mapping mapping = AstNode::Mapping::Sequential;
  /// The band's schedule depth: isl's AST names the loop of schedule
  /// dimension d `c<d>`, so this tells which loops below the mark belong to
  /// the band (isl drops loops that run once).
  unsigned depth = 0;
  unsigned members = 0;
};

/// The mark of \p band mapped to \p mapping. Its name, `<kind>_<depth>_<
/// members>`, is for people reading the schedule; the mapping rides on the
/// id as user data.
isl::id makeLoopMark(AstNode::Mapping mapping,
                     const isl::schedule_node_band &band);
/// The LoopMark of \p id, if makeLoopMark made it.
std::optional<LoopMark> readLoopMark(const isl::id &id);

/// The tiles of a kernel's group band and the run length of its work-items
/// (0: single points).
struct GroupTiles {
  llvm::SmallVector<int64_t, 4> tiles;
  int64_t run = 0;
  /// Whether the choice depended on ScheduleOptions::groupWork.
  bool usedGroupWork = false;
};

/// The tiles of the group band \p band (of extents \p extent, -1 where
/// unknown); \p innerParallel when the loop nests below it go to the
/// work-items.
GroupTiles chooseTiles(const Scop &scop, const ScheduleOptions &options,
                       const isl::schedule_node_band &band,
                       llvm::ArrayRef<int64_t> extent, bool innerParallel);

/// Whether consecutive values of member \p member of \p band walk every
/// tensor contiguously (a run of them is a loop the backend can put on
/// vector lanes): each step moves every access forward along the tensor's
/// last index by at most \p maxStep elements, or not at all. With
/// \p onlyIterators, statements whose member is not one of their iterators
/// (an init below a reduction's loop) do not count.
bool runsAreContiguous(const Scop &scop, const isl::schedule_node_band &band,
                       unsigned member, bool onlyIterators = false,
                       int64_t maxStep = 1);

/// Whether some band strictly below \p node has an innermost member whose
/// consecutive points do not walk memory contiguously.
bool hasStridedBandBelow(const Scop &scop, const isl::schedule_node &node);

/// The schedule with every kernel mapped.
struct MappedTree {
  isl::schedule schedule;
  /// See MappedSchedule.
  bool usedGroupWork = false, usedVectorRuns = false;
};
MappedTree mapKernels(const Scop &scop, const ScheduleOptions &options,
                      const isl::schedule &schedule);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_MAPPING_H
