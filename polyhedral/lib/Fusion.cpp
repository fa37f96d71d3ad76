//===- Fusion.cpp - isl's schedule of a scop and how much it fuses --------===//
#include "Fusion.h"

#include "ScheduleTreeSupport.h"

#include <isl/options.h>

#include <algorithm>

using namespace comprehend::poly;

namespace {

void setFusionOptions(isl_ctx *ctx, FusionStrategy fusion) {
  isl_options_set_schedule_serialize_sccs(ctx, fusion == FusionStrategy::None);
  isl_options_set_schedule_whole_component(ctx, 0);
  bool outer = fusion == FusionStrategy::KeepOuterParallel;
  isl_options_set_schedule_maximize_coincidence(ctx, outer);
  isl_options_set_schedule_outer_coincidence(ctx, outer);
  // Tile loops count tiles and point loops keep the original iterators, so
  // that subscripts stay simple.
  isl_options_set_tile_scale_tile_loops(ctx, 0);
  isl_options_set_tile_shift_point_loops(ctx, 0);
}

/// Per member of \p band: whether every dependence between instances of
/// the band that agree on the members before it agrees on it too.
llvm::SmallVector<bool, 4>
parallelMembers(const Scop &scop, const isl::schedule_node_band &band) {
  isl::union_set domain = nodeDomain(band);
  isl::union_map schedule = isl::union_map::from(band.partial_schedule());
  isl::union_map onSchedule = scop.dependences.intersect_domain(domain)
                                  .intersect_range(domain)
                                  .apply_domain(schedule)
                                  .apply_range(schedule);
  isl::space space = band.get_partial_schedule().space();
  isl::map prefix = isl::map::universe(space.map_from_set());
  llvm::SmallVector<bool, 4> parallel;
  for (unsigned member = 0; member < band.n_member(); ++member) {
    isl::map equal = equalAtDim(space, member);
    parallel.push_back(onSchedule.intersect(isl::union_map(prefix))
                           .is_subset(isl::union_map(equal)));
    prefix = prefix.intersect(equal);
  }
  return parallel;
}

/// \p band shifted to start at 0 in every member, so that its tiles line up
/// with its first point.
isl::schedule_node_band shiftToZero(const isl::schedule_node_band &band) {
  isl::union_set domain = nodeDomain(band);
  isl::union_map schedule = isl::union_map::from(band.partial_schedule());
  isl::set range = domain.apply(schedule).as_set();
  isl::multi_val start =
      isl::multi_val::zero(band.get_partial_schedule().space());
  for (unsigned member = 0; member < band.n_member(); ++member)
    start = start.set_at(member, range.dim_min_val(member));
  isl::multi_union_pw_aff shifted =
      band.get_partial_schedule().sub(constantOn(domain, start));
  return replaceBand(band, shifted).as<isl::schedule_node_band>();
}

isl::schedule computeSchedule(const Scop &scop, const isl::set &context,
                              FusionStrategy fusion) {
  setFusionOptions(context.ctx().get(), fusion);
  return isl::schedule_constraints::on_domain(scop.domain)
      .set_context(context)
      .set_validity(scop.dependences)
      .set_coincidence(scop.dependences)
      .set_proximity(scop.flow)
      .compute_schedule();
}

/// The fewest parallel points of a kernel of \p schedule: per kernel (a
/// child of the root's sequence or set, else the root's child), the product
/// of the extents of its outermost band's leading coincident members (1
/// without such a band); -1 where an extent is unknown.
int64_t fewestParallelPoints(const isl::schedule &schedule) {
  isl::schedule_node first = schedule.root().child(0);
  llvm::SmallVector<isl::schedule_node, 4> kernels;
  if (first.isa<isl::schedule_node_sequence>() ||
      first.isa<isl::schedule_node_set>()) {
    for (int child = 0, e = first.n_children(); child < e; ++child)
      kernels.push_back(first.child(child).child(0));
  } else {
    kernels.push_back(first);
  }
  int64_t fewest = -1;
  for (const isl::schedule_node &kernel : kernels) {
    int64_t points = 1;
    if (kernel.isa<isl::schedule_node_band>()) {
      auto band = kernel.as<isl::schedule_node_band>();
      llvm::SmallVector<int64_t, 4> extents = bandExtents(band);
      for (unsigned member = 0, e = numLeadingCoincident(band); member < e;
           ++member) {
        if (extents[member] < 0)
          return -1;
        points *= extents[member];
      }
    }
    fewest = fewest < 0 ? points : std::min(fewest, points);
  }
  return fewest;
}

/// The unfused schedule where maximal fusion starves a GPU: see
/// ScheduleOptions::minParallelPoints.
std::optional<isl::schedule> unfuseForParallelism(const Scop &scop,
                                                  const isl::set &context,
                                                  const isl::schedule &fused,
                                                  int64_t minParallelPoints) {
  // Only where isl fused everything into one loop nest: a layer norm
  // backward's three kernels (rows, then column sums) unfused became
  // eighteen launches, slower on an H200 (0.56 -> 0.78 ms forward +
  // backward at 8192 x 2048).
  isl::schedule_node first = fused.root().child(0);
  if (first.isa<isl::schedule_node_sequence>() ||
      first.isa<isl::schedule_node_set>())
    return std::nullopt;
  int64_t fusedPoints = fewestParallelPoints(fused);
  if (minParallelPoints <= 0 || fusedPoints < 0 ||
      fusedPoints >= minParallelPoints)
    return std::nullopt;
  isl::schedule unfused = computeSchedule(scop, context, FusionStrategy::None);
  int64_t unfusedPoints = fewestParallelPoints(unfused);
  if (unfusedPoints < 2 * fusedPoints)
    return std::nullopt;
  return unfused;
}

/// splitSequentialBand: see scheduleAndFuse. nullopt where that does not
/// apply or the order it gives violates a dependence.
std::optional<isl::schedule> splitSequentialBand(const Scop &scop,
                                                 isl::schedule_node node) {
  if (!node.isa<isl::schedule_node_band>() ||
      numLeadingCoincident(node.as<isl::schedule_node_band>()) > 0)
    return std::nullopt;
  isl::schedule_node below = node.child(0);
  if (!below.isa<isl::schedule_node_sequence>() &&
      !below.isa<isl::schedule_node_set>())
    return std::nullopt;
  isl::schedule_node parts = sinkBand(node);
  if (!scop.respectsDependences(parts))
    return std::nullopt;
  for (int child = 0, e = parts.n_children(); child < e; ++child) {
    isl::schedule_node part = parts.child(child).child(0);
    if (!part.isa<isl::schedule_node_band>())
      continue;
    auto band = part.as<isl::schedule_node_band>();
    // isl shifted the part's band behind the parts before it.
    llvm::SmallVector<bool, 4> parallel = parallelMembers(scop, band);
    band = shiftToZero(band).set_permutable(true);
    for (unsigned member = 0; member < parallel.size(); ++member)
      band = band.member_set_coincident(member, parallel[member]);
    parts = band.parent().parent();
  }
  return parts.schedule();
}

/// Below \p leaf, a band over the iterators of \p stmt that \p stmtOuter
/// (the band above, on the statement) does not fix; \p leaf itself when it
/// fixes them all. Records in \p result whether the loop nest occupies the
/// work-items.
isl::schedule_node insertInnerBand(const Scop &scop, unsigned stmt,
                                   const isl::map &stmtOuter,
                                   const isl::schedule_node &leaf,
                                   int64_t groupWork, TextualInner &result) {
  const isl::set &stmtDomain = scop.model.domains[stmt];
  isl::space stmtSpace = stmtDomain.space();
  llvm::SmallVector<unsigned, 4> dims;
  for (unsigned dim = 0, e = numSetDims(stmtDomain); dim < e; ++dim) {
    isl::map fixed =
        stmtOuter.reverse().apply_range(dimPwAff(stmtSpace, dim).as_map());
    if (!fixed.is_single_valued())
      dims.push_back(dim);
  }
  if (dims.empty())
    return leaf;
  isl::map innerMap = selectDims(stmtSpace, dims).intersect_domain(stmtDomain);
  auto innerBand =
      leaf.insert_partial_schedule(toPartialSchedule(isl::union_map(innerMap)))
          .as<isl::schedule_node_band>();
  for (unsigned member = 0; member < dims.size(); ++member)
    if (scop.isCoincident(stmt, stmtOuter, dims[member]))
      innerBand = innerBand.member_set_coincident(member, true);
  // Worth a group per point when a loop nest below has a parallel loop
  // or a reduction long enough to occupy the work-items; a reduction over
  // several indices (a group norm's channels and pixels) counts them all.
  if (innerBand.member_get_coincident(0) || scop.origin[stmt].reduction) {
    result.usedGroupWork = true;
    llvm::SmallVector<int64_t, 4> extents = bandExtents(innerBand);
    int64_t points = extents[0];
    if (!innerBand.member_get_coincident(0))
      for (int64_t extent : llvm::drop_begin(extents))
        points = extent > 0 && points > 0 ? points * extent : points;
    if (points >= groupWork)
      result.worthIt = true;
  }
  return innerBand;
}

} // namespace

TextualInner comprehend::poly::textualInner(const Scop &scop,
                                            const isl::schedule_node_band &band,
                                            int64_t groupWork) {
  TextualInner result;
  isl::union_map outer = isl::union_map::from(band.get_partial_schedule());
  isl::union_set_list filters(band.ctx(), scop.stmts.size());
  llvm::SmallVector<unsigned, 8> members = scop.statementsAt(band);
  for (unsigned stmt : members)
    filters = filters.add(isl::union_set(scop.model.domains[stmt]));
  isl::schedule_node node = cutAt(band.child(0));
  bool sequence = members.size() > 1;
  if (sequence)
    node = node.insert_sequence(filters);
  for (unsigned i = 0; i < members.size(); ++i) {
    unsigned stmt = members[i];
    isl::map stmtOuter =
        outer.intersect_domain(isl::union_set(scop.model.domains[stmt]))
            .as_map();
    isl::schedule_node leaf = sequence ? node.child(i).child(0) : node;
    isl::schedule_node inner =
        insertInnerBand(scop, stmt, stmtOuter, leaf, groupWork, result);
    node = sequence ? inner.parent().parent() : inner;
  }
  node = node.parent();
  if (scop.respectsDependences(node))
    result.node = node;
  return result;
}

namespace {

/// Outer fusion: see scheduleAndFuse.
struct OuterFusion {
  std::optional<isl::schedule> schedule;
  bool usedGroupWork = false;
};

OuterFusion fuseOuter(const Scop &scop, int64_t groupWork) {
  OuterFusion result;
  isl::union_map outer = emptyUnionMap(scop.domain.space());
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt) {
    if (scop.stmts[stmt].lhsIndices.empty())
      return result;
    outer = outer.unite(isl::union_map(
        lhsProjection(scop.model.domains[stmt], scop.stmts[stmt], 1)));
  }
  isl::union_map sameGroup = outer.apply_range(outer.reverse());
  if (!scop.dependences.is_subset(sameGroup))
    return result;
  isl::schedule_node root =
      isl::schedule::from_domain(scop.domain).root().child(0);
  auto band = root.insert_partial_schedule(toPartialSchedule(outer))
                  .as<isl::schedule_node_band>();
  band = band.member_set_coincident(0, true).set_permutable(true);
  TextualInner inner = textualInner(scop, band, groupWork);
  result.usedGroupWork = inner.usedGroupWork;
  if (!inner.node)
    return result;
  // Short loops below the groups (softmax over rows of 16): the work-items
  // take the outer points instead, a group of them per tile, which pays
  // where there are enough of them to fill a group.
  if (!inner.worthIt) {
    result.usedGroupWork = true;
    int64_t outerPoints = bandExtents(band).front();
    if (outerPoints < 0 || outerPoints < groupWork)
      return result;
  }
  result.schedule = inner.node->schedule();
  return result;
}

} // namespace

FusedSchedule
comprehend::poly::scheduleAndFuse(const Scop &scop, const isl::set &context,
                                  const ScheduleOptions &options) {
  FusedSchedule result;
  result.schedule = computeSchedule(scop, context, options.fusion);
  if (std::optional<isl::schedule> split =
          splitSequentialBand(scop, result.schedule.root().child(0)))
    result.schedule = *split;
  if (options.fusion == FusionStrategy::Max)
    if (std::optional<isl::schedule> unfused = unfuseForParallelism(
            scop, context, result.schedule, options.minParallelPoints))
      return {*unfused, false};
  isl::schedule_node first = result.schedule.root().child(0);
  bool severalKernels = first.isa<isl::schedule_node_sequence>() ||
                        first.isa<isl::schedule_node_set>();
  if (options.fusion != FusionStrategy::Max || !options.innerMapping ||
      !severalKernels)
    return result;
  OuterFusion fused = fuseOuter(scop, options.groupWork);
  result.usedGroupWork = fused.usedGroupWork;
  if (fused.schedule)
    result.schedule = *fused.schedule;
  return result;
}
