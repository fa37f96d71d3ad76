//===- Mapping.cpp - Tiling a scheduled scop onto groups and items --------===//
#include "Mapping.h"

#include "Fusion.h"
#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend::poly;

isl::id comprehend::poly::makeLoopMark(AstNode::Mapping mapping,
                                       const isl::schedule_node_band &band) {
  LoopMark mark{mapping, scheduleDepth(band), band.n_member()};
  std::string kind =
      mapping == AstNode::Mapping::Group ? "group" : "work_items";
  // isl reads an id's name as an identifier.
  std::string name = kind + "_" + std::to_string(mark.depth) + "_" +
                     std::to_string(mark.members);
  return isl::id(band.ctx(), name, mark);
}

std::optional<LoopMark> comprehend::poly::readLoopMark(const isl::id &id) {
  return id.try_user<LoopMark>();
}

namespace {

bool isSequenceOrSet(const isl::schedule_node &node) {
  return node.isa<isl::schedule_node_sequence>() ||
         node.isa<isl::schedule_node_set>();
}

/// Places the group and work-item marks in one kernel's subtree.
class Mapper {
public:
  Mapper(const ScheduleOptions &options, const Scop &scop)
      : options(options), scop(scop) {}

  /// Maps the kernel whose subtree starts at \p node; returns the node at
  /// the same position.
  isl::schedule_node mapKernel(const isl::schedule_node &node);
  /// mapKernel, except that a sequence (or set) of loop nests with no band
  /// above it maps each part as a kernel of its own; returns the node at the
  /// same position.
  isl::schedule_node mapKernelOrParts(const isl::schedule_node &node);

  /// See MappedSchedule.
  bool usedGroupWork = false, usedVectorRuns = false;

private:
  /// The work-item marks above the parallel bands at and below \p node;
  /// with \p foldSequential (below a group on a GPU) the bands of one
  /// statement's sequential loops each as one loop (foldSequentialBand).
  isl::schedule_node mapInside(isl::schedule_node node,
                               bool foldSequential = false);
  /// Whether a band strictly below \p node runs, besides other statements,
  /// a reduction along one of the reduction's own loops (isl fused, say,
  /// `e(n, d) = exp(...)` and `s(n) +=! e(n, d)` into one loop over d).
  bool fusesReductionLoop(const isl::schedule_node &node) const;
  bool fusesReductionLoopAt(const isl::schedule_node_band &band) const;
  /// The textual inner schedule below \p band where the options ask for it
  /// and it gives the work-items parallel work.
  std::optional<isl::schedule_node>
  parallelTextualInner(const isl::schedule_node_band &band);
  /// On a vector core, inner loop nests that walk memory with a stride (the
  /// rows of a column reduction) run on vectors when each work-item takes a
  /// run of consecutive points of the group band and the run's points sink
  /// below those loops: a row of the run per step, not a column per
  /// work-item. nullopt where that does not apply.
  std::optional<isl::schedule_node>
  mapRunsAcrossInnerLoops(const isl::schedule_node_band &band,
                          const isl::schedule_node &textual,
                          llvm::ArrayRef<int64_t> extent);
  GroupTiles chooseTiles(const isl::schedule_node_band &band,
                         llvm::ArrayRef<int64_t> extent, bool innerParallel) {
    GroupTiles choice = comprehend::poly::chooseTiles(scop, options, band,
                                                      extent, innerParallel);
    usedGroupWork |= choice.usedGroupWork;
    return choice;
  }
  /// \p band tiled by \p choice, the tile loops marked for the groups and
  /// the point loops (or, with runs, the run loops) for the work-items;
  /// returns the group mark.
  isl::schedule_node tileOntoGroups(const isl::schedule_node_band &band,
                                    const GroupTiles &choice);
  /// Below \p kernel (tileOntoGroups with runs), the points of a run sunk
  /// below the loop nests inside it, when one of those walks memory with
  /// a stride: every step of them then reads a row of the run on vector
  /// lanes. nullopt when nothing walks with a stride or the order violates
  /// a dependence.
  std::optional<isl::schedule_node>
  sinkRunPoints(const isl::schedule_node &kernel);

  const ScheduleOptions &options;
  const Scop &scop;
};

/// The most elements a step of the work-items' innermost member may move
/// an access for them to stay on work-items (fillsDeviceCoalesced): a
/// stride-2 convolution's input reads, each warp's loads on two cache lines
/// of 128 bytes instead of one, the other half read by the next kw.
constexpr int64_t kCoalescedStep = 2;

/// Whether, on a GPU (ScheduleOptions::minParallelPoints), \p band's points
/// alone fill the device and neighbouring points of its innermost member
/// touch neighbouring memory (at most kCoalescedStep elements apart): then
/// each point is a work-item that runs the loop nests below it, rather than
/// a work-group that shares them. A group per point pays for a few long
/// rows (softmax's 8192, which neighbouring work-items read along a row);
/// a stride-2 convolution's 1.5 million output points, each a group
/// reducing 576 products, ran in 4.14 ms on an H200
/// (bench/results/gpu-cases.md).
bool fillsDeviceCoalesced(const Scop &scop, const ScheduleOptions &options,
                          const isl::schedule_node_band &band) {
  if (options.minParallelPoints <= 0 || band.n_member() == 0)
    return false;
  int64_t points = parallelPoints(band);
  return points >= options.minParallelPoints &&
         runsAreContiguous(scop, band, band.n_member() - 1,
                           /*onlyIterators=*/false, kCoalescedStep);
}

std::optional<isl::schedule_node>
Mapper::parallelTextualInner(const isl::schedule_node_band &band) {
  if (!options.innerMapping || fillsDeviceCoalesced(scop, options, band))
    return std::nullopt;
  TextualInner textual = textualInner(scop, band, options.groupWork);
  usedGroupWork |= textual.usedGroupWork;
  if (!textual.node || !textual.worthIt)
    return std::nullopt;
  return textual.node;
}

std::optional<isl::schedule_node>
Mapper::mapRunsAcrossInnerLoops(const isl::schedule_node_band &band,
                                const isl::schedule_node &textual,
                                llvm::ArrayRef<int64_t> extent) {
  if (options.vectorRun < 2 ||
      !runsAreContiguous(scop, band, extent.size() - 1) ||
      !hasStridedBandBelow(scop, textual))
    return std::nullopt;
  auto textualBand = textual.as<isl::schedule_node_band>();
  GroupTiles choice = chooseTiles(textualBand, extent, false);
  if (choice.run == 0)
    return std::nullopt;
  std::optional<isl::schedule_node> sunk =
      sinkRunPoints(tileOntoGroups(textualBand, choice));
  if (sunk)
    usedVectorRuns = true;
  return sunk;
}

/// \p band with its innermost three leading parallel members first, where
/// it has more than three (ScheduleOptions::mapInnermostMembers). Any order
/// of those members is legal: every dependence takes equal values in each.
isl::schedule_node_band
innermostParallelMembersFirst(const isl::schedule_node_band &band) {
  unsigned parallel = numLeadingCoincident(band);
  if (parallel <= 3)
    return band;
  llvm::SmallVector<unsigned, 8> order;
  for (unsigned member = parallel - 3; member < parallel; ++member)
    order.push_back(member);
  for (unsigned member = 0; member < parallel - 3; ++member)
    order.push_back(member);
  for (unsigned member = parallel; member < band.n_member(); ++member)
    order.push_back(member);
  isl::multi_union_pw_aff schedule = band.get_partial_schedule();
  isl::union_pw_aff_list members(band.ctx(), int(order.size()));
  for (unsigned member : order)
    members = members.add(schedule.at(int(member)));
  bool permutable = band.permutable();
  auto permuted =
      replaceBand(band, isl::multi_union_pw_aff(schedule.space(), members))
          .as<isl::schedule_node_band>();
  for (unsigned member = 0; member < order.size(); ++member)
    permuted = permuted.member_set_coincident(
        int(member), band.member_get_coincident(int(order[member])));
  return permuted.set_permutable(permutable);
}

/// \p band (its innermost three parallel members first, see
/// innermostParallelMembersFirst) with its other parallel members folded
/// into the first one, linearised with it (that member fastest), so that
/// the groups cover them too instead of each work-item running them as
/// loops. The sum of a weight gradient's 32 per-image partials,
/// d_W1(m, c, kh, kw) +=! d_W1_part(n, m, c, kh, kw), ran its 64 values of m
/// as a loop of each of 576 work-items on an H200: 1.64 ms for 4.7 MB
/// (bench/results/gpu-cases.md). Any linearisation of coincident members is
/// legal: no dependence crosses their points. Where an extent is unknown,
/// the band stays as it is.
isl::schedule_node_band
foldOuterParallelMembers(const isl::schedule_node_band &band) {
  unsigned parallel = numLeadingCoincident(band);
  if (parallel <= 3)
    return band;
  llvm::SmallVector<int64_t, 4> extents = bandExtents(band);
  if (llvm::any_of(llvm::ArrayRef<int64_t>(extents).take_front(parallel),
                   [](int64_t extent) { return extent <= 0; }))
    return band;
  // Every member from 0, so that the linearisation is dense.
  isl::union_set domain = nodeDomain(band);
  isl::multi_union_pw_aff schedule = band.get_partial_schedule();
  schedule = schedule.sub(
      constantOn(domain, minPerMember(schedule.intersect_domain(domain))));
  isl::union_pw_aff folded = schedule.at(3);
  for (unsigned member = 4; member < parallel; ++member)
    folded = folded.scale(extents[member]).at(0).add(schedule.at(member));
  folded = folded.scale(extents[0]).at(0).add(schedule.at(0));
  unsigned kept = band.n_member() - (parallel - 3);
  isl::union_pw_aff_list members(band.ctx(), int(kept));
  members = members.add(folded).add(schedule.at(1)).add(schedule.at(2));
  for (unsigned member = parallel; member < band.n_member(); ++member)
    members = members.add(schedule.at(member));
  isl::space space = schedule.space().params().add_unnamed_tuple(kept);
  bool permutable = band.permutable();
  auto result = replaceBand(band, isl::multi_union_pw_aff(space, members))
                    .as<isl::schedule_node_band>();
  for (unsigned member = 0; member < kept; ++member)
    result = result.member_set_coincident(
        int(member),
        member < 3 || band.member_get_coincident(int(member + parallel - 3)));
  return result.set_permutable(permutable);
}

/// \p band, of one statement and sequential members only (the reduction
/// loops of `d_B(m) +=! d_O(n, m, h, w)` below its group), as one member:
/// the members linearised, the last fastest, which keeps their order. The
/// lowering reduces a single loop around a statement across the work-group
/// (LowerSchedule.cpp, a parallel reduction), where three nested loops ran
/// in one work-item: conv2d's bias gradient over 32 x 54 x 54 points per
/// group took 3.85 ms on an H200 (bench/results/gpu-cases.md). None where
/// the band has one member or a parallel one, or an extent is unknown.
std::optional<isl::schedule_node_band>
foldSequentialBand(const Scop &scop, const isl::schedule_node_band &band) {
  if (band.n_member() < 2 || scop.statementsAt(band).size() != 1)
    return std::nullopt;
  for (unsigned member = 0; member < band.n_member(); ++member)
    if (band.member_get_coincident(int(member)))
      return std::nullopt;
  llvm::SmallVector<int64_t, 4> extents = bandExtents(band);
  if (llvm::any_of(extents, [](int64_t extent) { return extent <= 0; }))
    return std::nullopt;
  isl::union_set domain = nodeDomain(band);
  isl::multi_union_pw_aff schedule = band.get_partial_schedule();
  schedule = schedule.sub(
      constantOn(domain, minPerMember(schedule.intersect_domain(domain))));
  isl::union_pw_aff folded = schedule.at(0);
  for (unsigned member = 1; member < band.n_member(); ++member)
    folded = folded.scale(extents[member]).at(0).add(schedule.at(member));
  isl::space space = schedule.space().params().add_unnamed_tuple(1);
  return replaceBand(band, isl::multi_union_pw_aff(space, folded.to_list()))
      .as<isl::schedule_node_band>();
}

isl::schedule_node Mapper::mapKernel(const isl::schedule_node &node) {
  if (!node.isa<isl::schedule_node_band>())
    return mapInside(node);
  auto band = node.as<isl::schedule_node_band>();
  if (options.mapInnermostMembers)
    band = foldOuterParallelMembers(innermostParallelMembersFirst(band));
  unsigned groupDims = std::min(3u, numLeadingCoincident(band));
  if (groupDims == 0)
    return mapInside(node);
  if (band.n_member() > groupDims)
    band = band.split(groupDims);
  llvm::SmallVector<int64_t, 4> extent = bandExtents(band);
  std::optional<isl::schedule_node> textual = parallelTextualInner(band);
  bool innerParallel = textual.has_value();
  if (textual)
    if (std::optional<isl::schedule_node> runs =
            mapRunsAcrossInnerLoops(band, *textual, extent))
      return *runs;
  // Where isl fused a reduction's loop with other statements, its
  // accumulator would stay in memory and the loop run on scalars: below the
  // groups, each statement in a loop nest of its own instead.
  if (textual && fusesReductionLoop(band))
    band = textual->as<isl::schedule_node_band>();
  GroupTiles choice = chooseTiles(band, extent, innerParallel);
  if (llvm::all_of(choice.tiles, [](int64_t tile) { return tile == 1; })) {
    if (textual)
      band = textual->as<isl::schedule_node_band>();
    isl::schedule_node mark =
        band.insert_mark(makeLoopMark(AstNode::Mapping::Group, band));
    return mapInside(mark.child(0).child(0),
                     /*foldSequential=*/options.mapInnermostMembers)
        .parent()
        .parent();
  }
  isl::schedule_node kernel = tileOntoGroups(band, choice);
  if (choice.run == 0)
    return kernel;
  usedVectorRuns = true;
  // Runs over loop nests that walk memory with a stride (a short column
  // reduction) sink below them too.
  return sinkRunPoints(kernel).value_or(kernel);
}

isl::schedule_node Mapper::mapKernelOrParts(const isl::schedule_node &node) {
  // With no band above them, the parts would share one work-group (the
  // work-item marks of mapInside): a layer norm backward's rows and its
  // column sum `d_gamma(d) +=! ...`, both parallel but over different
  // dimensions, ran on one group. isl's AST puts each part at the top
  // level, where a part that gets groups is a kernel with its own grid;
  // parts that still run on one group share a kernel again (translateAst).
  if (!isSequenceOrSet(node))
    return mapKernel(node);
  isl::schedule_node result = node;
  for (int child = 0, e = result.n_children(); child < e; ++child)
    result = mapKernel(result.child(child).child(0)).parent().parent();
  return result;
}

isl::schedule_node Mapper::mapInside(isl::schedule_node node,
                                     bool foldSequential) {
  if (node.isa<isl::schedule_node_band>()) {
    auto band = node.as<isl::schedule_node_band>();
    unsigned parallel = numLeadingCoincident(band);
    if (parallel > 0) {
      if (band.n_member() > parallel)
        band = band.split(parallel);
      return band.insert_mark(makeLoopMark(AstNode::Mapping::WorkItem, band));
    }
    if (foldSequential)
      if (std::optional<isl::schedule_node_band> folded =
              foldSequentialBand(scop, band))
        node = *folded;
  }
  for (int child = 0, e = node.n_children(); child < e; ++child)
    node = mapInside(node.child(child), foldSequential).parent();
  return node;
}

bool Mapper::fusesReductionLoop(const isl::schedule_node &node) const {
  for (int child = 0, e = node.n_children(); child < e; ++child) {
    isl::schedule_node below = node.child(child);
    if (below.isa<isl::schedule_node_band>() &&
        fusesReductionLoopAt(below.as<isl::schedule_node_band>()))
      return true;
    if (fusesReductionLoop(below))
      return true;
  }
  return false;
}

bool Mapper::fusesReductionLoopAt(const isl::schedule_node_band &band) const {
  isl::union_set domain = nodeDomain(band);
  llvm::SmallVector<unsigned, 8> members = scop.statementsAt(band);
  if (members.size() < 2)
    return false;
  isl::union_map prefix = band.get_prefix_schedule_union_map();
  for (unsigned member = 0; member < band.n_member(); ++member) {
    isl::union_map schedule =
        band.get_partial_schedule().at(member).as_union_map();
    // Statements that take several values of the member below one point of
    // the loops around the band, and those that reduce into one element
    // over several values.
    unsigned numLooping = 0;
    bool reduces = false;
    for (unsigned stmt : members) {
      isl::union_set stmtDomain =
          domain.intersect(isl::union_set(scop.model.domains[stmt]));
      isl::union_map stmtSchedule = schedule.intersect_domain(stmtDomain);
      if (!prefix.intersect_domain(stmtDomain)
               .reverse()
               .apply_range(stmtSchedule)
               .is_single_valued())
        ++numLooping;
      const ScheduledStatement &statement = scop.stmts[stmt];
      if (statement.lhsIndices.size() == statement.iterators.size())
        continue;
      isl::map lhs = lhsProjection(scop.model.domains[stmt], statement,
                                   statement.lhsIndices.size());
      if (!isl::union_map(lhs)
               .reverse()
               .apply_range(stmtSchedule)
               .is_single_valued())
        reduces = true;
    }
    if (reduces && numLooping >= 2)
      return true;
  }
  return false;
}

isl::schedule_node Mapper::tileOntoGroups(const isl::schedule_node_band &band,
                                          const GroupTiles &choice) {
  isl::schedule_node tiled = band.tile(bandSizes(band, choice.tiles));
  isl::schedule_node points = tiled.child(0);
  if (choice.run > 0) {
    // Each work-item takes runs of consecutive points of the innermost
    // member: the point band tiled again, the runs to the work-items and
    // the points of a run to a loop inside the work-item.
    llvm::SmallVector<int64_t, 4> runs(choice.tiles.size(), 1);
    runs.back() = choice.run;
    auto pointBand = points.as<isl::schedule_node_band>();
    points = pointBand.tile(bandSizes(pointBand, runs));
  }
  isl::schedule_node point = points.insert_mark(makeLoopMark(
      AstNode::Mapping::WorkItem, points.as<isl::schedule_node_band>()));
  return point.parent().insert_mark(makeLoopMark(
      AstNode::Mapping::Group, point.parent().as<isl::schedule_node_band>()));
}

std::optional<isl::schedule_node>
Mapper::sinkRunPoints(const isl::schedule_node &kernel) {
  // group mark -> tile band -> work-item mark -> run band -> points of a run
  isl::schedule_node inRun = kernel.child(0).child(0).child(0).child(0);
  if (!inRun.isa<isl::schedule_node_band>() ||
      !hasStridedBandBelow(scop, inRun))
    return std::nullopt;
  unsigned depth = kernel.tree_depth();
  isl::schedule_node sunk = sinkBand(inRun);
  isl::schedule_node result = sunk.ancestor(sunk.tree_depth() - depth);
  if (!scop.respectsDependences(result))
    return std::nullopt;
  return result;
}

} // namespace

MappedTree comprehend::poly::mapKernels(const Scop &scop,
                                        const ScheduleOptions &options,
                                        const isl::schedule &schedule) {
  // Every kernel: the children of a top-level sequence (or set), or the
  // whole tree.
  Mapper mapper(options, scop);
  isl::schedule_node top = schedule.root().child(0);
  if (isSequenceOrSet(top)) {
    for (int child = 0, e = top.n_children(); child < e; ++child)
      top =
          mapper.mapKernelOrParts(top.child(child).child(0)).parent().parent();
  } else {
    top = mapper.mapKernel(top);
  }
  return {top.schedule(), mapper.usedGroupWork, mapper.usedVectorRuns};
}
