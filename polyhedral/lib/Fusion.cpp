//===- Fusion.cpp - isl's schedule of a scop and how much it fuses --------===//
#include "Fusion.h"

#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace comprehend::poly;

namespace {

void setFusionOptions(isl::ctx ctx, FusionStrategy fusion) {
  SchedulerOptions options;
  options.serializeSccs = fusion == FusionStrategy::None;
  options.wholeComponent = false;
  bool outer = fusion == FusionStrategy::KeepOuterParallel;
  options.maximizeCoincidence = outer;
  options.outerCoincidence = outer;
  // Tile loops count tiles and point loops keep the original iterators, so
  // that subscripts stay simple.
  options.scaleTileLoops = false;
  options.shiftPointLoops = false;
  setSchedulerOptions(ctx, options);
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

} // namespace

isl::schedule comprehend::poly::computeSchedule(const Scop &scop,
                                                const isl::union_set &domain,
                                                const isl::set &context,
                                                FusionStrategy fusion) {
  setFusionOptions(context.ctx(), fusion);
  // Restricted only where needed: isl's result depends on how the
  // constraints are written, not only on what they mean.
  bool whole = domain.is_equal(scop.domain);
  auto within = [&](const isl::union_map &map) {
    return whole ? map : map.intersect_domain(domain).intersect_range(domain);
  };
  return isl::schedule_constraints::on_domain(domain)
      .set_context(context)
      .set_validity(within(scop.dependences))
      .set_coincidence(within(scop.dependences))
      .set_proximity(within(scop.flow))
      .compute_schedule();
}

namespace {

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

/// The whole domains of the statements with instances in \p instances.
isl::union_set wholeStatements(const Scop &scop,
                               const isl::union_set &instances) {
  isl::union_set result = emptyUnionSet(scop.domain.space());
  for (const isl::set &domain : scop.model.domains)
    if (!instances.intersect(isl::union_set(domain)).is_empty())
      result = result.unite(isl::union_set(domain));
  return result;
}

/// The statements below \p band at the end of a dependence carried by its
/// outermost member (a column sum's update, whose reduction over the rows
/// runs along a band over the rows, or that reads what a statement before
/// it wrote at another point of the band), with their inits.
isl::union_set carriedByOuterMember(const Scop &scop,
                                    const isl::schedule_node_band &band) {
  isl::union_set domain = nodeDomain(band);
  isl::union_map outer = band.get_partial_schedule().at(0).as_union_map();
  isl::union_map carried = scop.dependences.intersect_domain(domain)
                               .intersect_range(domain)
                               .subtract(outer.apply_range(outer.reverse()));
  isl::union_set touched = carried.range();
  // A reduction's init feeds only its first update, at the same point of
  // the band, but belongs with it.
  llvm::SmallVector<unsigned, 8> defStatements;
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt)
    if (!touched.intersect(isl::union_set(scop.model.domains[stmt])).is_empty())
      defStatements.push_back(scop.origin[stmt].defStatement);
  isl::union_set result = emptyUnionSet(scop.domain.space());
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt)
    if (llvm::is_contained(defStatements, scop.origin[stmt].defStatement))
      result = result.unite(isl::union_set(scop.model.domains[stmt]));
  return result;
}

/// The statements of a serial kernel of \p schedule (its outermost band
/// has no parallel member) that make it serial, over all such kernels
/// where others stay, with every statement of \p domain that depends on
/// them; empty where there is none.
isl::union_set serializingStatements(const Scop &scop,
                                     const isl::union_set &domain,
                                     const isl::schedule &schedule) {
  isl::union_set peeled = emptyUnionSet(domain.space());
  for (const isl::schedule_node &kernel : topLevelKernels(schedule)) {
    if (!kernel.isa<isl::schedule_node_band>())
      continue;
    auto band = kernel.as<isl::schedule_node_band>();
    if (numLeadingCoincident(band) > 0)
      continue;
    isl::union_set carried = carriedByOuterMember(scop, band);
    if (!carried.is_empty() &&
        !wholeStatements(scop, nodeDomain(band)).is_subset(carried))
      peeled = peeled.unite(carried);
  }
  isl::union_map dependences =
      scop.dependences.intersect_domain(domain).intersect_range(domain);
  for (isl::union_set grown = peeled;; peeled = grown) {
    grown = peeled.unite(
        wholeStatements(scop, dependences.intersect_domain(peeled).range()));
    if (grown.is_equal(peeled))
      return peeled;
  }
}

} // namespace

isl::schedule comprehend::poly::scheduleDomain(const Scop &scop,
                                               const isl::union_set &domain,
                                               const isl::set &context,
                                               FusionStrategy fusion,
                                               unsigned depth) {
  isl::schedule schedule = computeSchedule(scop, domain, context, fusion);
  if (std::optional<isl::schedule> split =
          splitSequentialBand(scop, schedule.root().child(0)))
    schedule = *split;
  constexpr unsigned kMaxPeelDepth = 4;
  if (fusion != FusionStrategy::Max || depth >= kMaxPeelDepth)
    return schedule;
  isl::union_set peeled = serializingStatements(scop, domain, schedule);
  isl::union_set kept = domain.subtract(peeled);
  if (peeled.is_empty() || kept.is_empty())
    return schedule;
  isl::schedule first = scheduleDomain(scop, kept, context, fusion, depth + 1);
  isl::schedule second =
      scheduleDomain(scop, peeled, context, fusion, depth + 1);
  isl::schedule both = sequenceOf(first, second);
  if (!scop.respectsDependences(both.root()))
    return schedule;
  return both;
}

namespace {

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

/// Outer fusion of the instances \p domain (whole statements).
OuterFusion fuseOuter(const Scop &scop, const isl::union_set &domain,
                      int64_t groupWork) {
  OuterFusion result;
  isl::union_map outer = emptyUnionMap(scop.domain.space());
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt) {
    isl::union_set stmtDomain(scop.model.domains[stmt]);
    if (!stmtDomain.is_subset(domain))
      continue;
    if (scop.stmts[stmt].lhsIndices.empty())
      return result;
    outer = outer.unite(isl::union_map(
        lhsProjection(scop.model.domains[stmt], scop.stmts[stmt], 1)));
  }
  isl::union_map sameGroup = outer.apply_range(outer.reverse());
  if (!scop.dependences.intersect_domain(domain)
           .intersect_range(domain)
           .is_subset(sameGroup))
    return result;
  isl::schedule_node root = isl::schedule::from_domain(domain).root().child(0);
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

/// Where outer fusion of the whole scop fails: the kernels of \p schedule
/// that no other kernel depends on, when there are several, outer-fused
/// into one after the others (a backward's column sums, `d_gamma(d) +=!`
/// and `d_beta(d) +=!`, share a kernel over d after the rows).
OuterFusion fuseTrailingKernels(const Scop &scop, const isl::set &context,
                                const isl::schedule &schedule,
                                const ScheduleOptions &options) {
  isl::union_set trailing = emptyUnionSet(scop.domain.space());
  unsigned numTrailing = 0;
  for (const isl::schedule_node &kernel : topLevelKernels(schedule)) {
    isl::union_set domain = nodeDomain(kernel);
    isl::union_set others = scop.domain.subtract(domain);
    if (!scop.dependences.intersect_domain(domain)
             .range()
             .intersect(others)
             .is_empty())
      continue;
    trailing = trailing.unite(domain);
    ++numTrailing;
  }
  isl::union_set rest = scop.domain.subtract(trailing);
  if (numTrailing < 2 || rest.is_empty())
    return {};
  OuterFusion fused = fuseOuter(scop, trailing, options.groupWork);
  if (!fused.schedule)
    return fused;
  isl::schedule both = sequenceOf(
      scheduleDomain(scop, rest, context, options.fusion), *fused.schedule);
  if (!scop.respectsDependences(both.root()))
    return {std::nullopt, fused.usedGroupWork};
  return {both, fused.usedGroupWork};
}

} // namespace

FusedSchedule
comprehend::poly::scheduleAndFuse(const Scop &scop, const isl::set &context,
                                  const ScheduleOptions &options) {
  FusedSchedule result;
  result.schedule = scheduleDomain(scop, scop.domain, context, options.fusion);
  if (options.fusion == FusionStrategy::Max)
    if (std::optional<isl::schedule> unfused = unfuseForParallelism(
            scop, context, result.schedule, options.minParallelPoints))
      return {*unfused, false};
  if (options.fusion == FusionStrategy::Max && options.unfuseStrides)
    if (std::optional<isl::schedule> unfused =
            unfuseStrides(scop, context, result.schedule))
      result.schedule = *unfused;
  isl::schedule_node first = result.schedule.root().child(0);
  bool severalKernels = first.isa<isl::schedule_node_sequence>() ||
                        first.isa<isl::schedule_node_set>();
  if (options.fusion != FusionStrategy::Max || !options.innerMapping ||
      !severalKernels)
    return result;
  OuterFusion fused = fuseOuter(scop, scop.domain, options.groupWork);
  if (!fused.schedule && options.shareTrailingKernels) {
    OuterFusion trailing =
        fuseTrailingKernels(scop, context, result.schedule, options);
    fused.usedGroupWork |= trailing.usedGroupWork;
    fused.schedule = trailing.schedule;
  }
  result.usedGroupWork = fused.usedGroupWork;
  if (fused.schedule)
    result.schedule = *fused.schedule;
  return result;
}
