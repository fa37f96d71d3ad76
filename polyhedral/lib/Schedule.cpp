//===- Schedule.cpp - isl scheduler, tiling and mapping of a def ----------===//
//
// The scop is the StatementModel of the def with reductions split into init
// and update statements (scop statement k is `S<k>`; `scopToDef` maps it
// back). Dependences come from isl's dataflow analysis over the sequential
// schedule (value-based read-after-write, write-after-read and
// write-after-write, computeDependences), self-dependences
// included: they are what makes a reduction loop sequential. isl's
// scheduler gets them as validity and coincidence constraints and the
// read-after-write ones as proximity constraints.
//
// Mapping, per kernel (a child of the top-level sequence, or the whole
// tree): the leading coincident members of the outermost band (at most
// three) are tiled; the tile loops go to work-groups (mark "group"), the
// point loops to work-items (mark "work_items"). When every tile is 1 the
// band is mapped to groups without tiling and the parallel bands below it
// (one per statement of a fused sequence, say) go to the work-items. The
// marks survive into isl's AST, where AstTranslation.cpp reads them.
//
//===----------------------------------------------------------------------===//
#include "comprehend/polyhedral/Schedule.h"

#include "AstTranslation.h"
#include "IslSupport.h"
#include "StatementModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/flow.h>
#include <isl/ilp.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include <cstdlib>

using namespace comprehend::poly;

/// How many isl operations scheduling one run of statements may take. Hidden
/// (after Polly's -polly-dependences-computeout): a small limit makes isl
/// give up on any def, which is how the lowering's "compiler limitation"
/// error is tested.
static llvm::cl::opt<unsigned long> scheduleMaxOperations(
    "isl-schedule-max-operations", llvm::cl::Hidden,
    llvm::cl::desc("isl operations that scheduling a run of statements may "
                   "take before the lowering gives up"),
    llvm::cl::init(50'000'000), llvm::cl::sub(*llvm::cl::AllSubCommands));
/// Work-groups a def keeps under the CPU rules (vector rows and runs) where
/// its size allows: enough for the cores of a CPU.
static constexpr int64_t kMinCpuGroups = 16;

static llvm::Error scheduleError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

std::optional<FusionStrategy>
comprehend::poly::parseFusionStrategy(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<FusionStrategy>>(text)
      .Case("max", FusionStrategy::Max)
      .Case("outer", FusionStrategy::KeepOuterParallel)
      .Case("none", FusionStrategy::None)
      .Default(std::nullopt);
}

llvm::StringRef
comprehend::poly::getFusionStrategyName(FusionStrategy strategy) {
  switch (strategy) {
  case FusionStrategy::Max:
    return "max";
  case FusionStrategy::KeepOuterParallel:
    return "outer";
  case FusionStrategy::None:
    return "none";
  }
  return "max";
}

namespace {

/// The scop's statements: each def statement's init (if any) and update.
struct Scop {
  llvm::SmallVector<ScheduledStatement, 8> stmts;
  llvm::SmallVector<ScopStatement, 8> origin;
};

Scop splitReductions(llvm::ArrayRef<ScheduledStatement> stmts) {
  Scop scop;
  for (unsigned index = 0; index < stmts.size(); ++index) {
    const ScheduledStatement &stmt = stmts[index];
    if (stmt.reduction && stmt.hasInit) {
      ScheduledStatement init;
      init.lhsTensor = stmt.lhsTensor;
      init.lhsIndices = stmt.lhsIndices;
      for (const std::string &var : stmt.lhsIndices) {
        unsigned pos = llvm::find(stmt.iterators, var) - stmt.iterators.begin();
        init.iterators.push_back(var);
        init.lo.push_back(stmt.lo[pos]);
        init.hi.push_back(stmt.hi[pos]);
      }
      scop.stmts.push_back(std::move(init));
      scop.origin.push_back({index, /*init=*/true, false, {}});
    }
    ScheduledStatement update = stmt;
    update.readsLhs = stmt.readsLhs || stmt.reduction;
    llvm::SmallVector<unsigned, 4> lhsPositions;
    for (const std::string &var : stmt.lhsIndices)
      lhsPositions.push_back(llvm::find(stmt.iterators, var) -
                             stmt.iterators.begin());
    scop.stmts.push_back(std::move(update));
    scop.origin.push_back(
        {index, /*init=*/false, stmt.reduction, std::move(lhsPositions)});
  }
  return scop;
}

/// Every dependence of the sequential schedule, self-dependences included;
/// `flow` gets the read-after-write ones.
isl::union_map computeDependences(const StatementModel &model,
                                  isl::union_map &flow) {
  isl::union_map all = isl::manage(
      isl_union_map_empty(isl_union_map_get_space(model.schedule.get())));
  flow = all;
  for (const auto &[tensor, accesses] : model.accesses) {
    isl::union_map raw = isl::union_access_info(accesses.reads)
                             .set_must_source(accesses.writes)
                             .set_schedule_map(model.schedule)
                             .compute_flow()
                             .may_dependence();
    isl::union_map war = isl::union_access_info(accesses.writes)
                             .set_may_source(accesses.reads)
                             .set_schedule_map(model.schedule)
                             .compute_flow()
                             .may_dependence();
    isl::union_map waw = isl::union_access_info(accesses.writes)
                             .set_must_source(accesses.writes)
                             .set_schedule_map(model.schedule)
                             .compute_flow()
                             .may_dependence();
    flow = flow.unite(raw);
    all = all.unite(raw).unite(war).unite(waw);
  }
  return all;
}

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

/// The mark above a mapped band: `<kind>_<depth>_<members>` (isl reads an
/// id's name as an identifier), where depth
/// is the band's schedule depth. isl's AST names the loop of schedule
/// dimension d `c<d>`, so the mark tells which loops below it belong to
/// the band (isl drops loops that run once).
std::string markName(llvm::StringRef kind,
                     const isl::schedule_node_band &band) {
  return kind.str() + "_" +
         std::to_string(isl_schedule_node_get_schedule_depth(band.get())) +
         "_" + std::to_string(band.n_member());
}

/// Places the group and work-item marks in one kernel's subtree.
class Mapper {
public:
  Mapper(const ScheduleOptions &options, const StatementModel &model,
         const Scop &scop, const isl::union_map &dependences)
      : options(options), model(model), scop(scop), dependences(dependences) {}

  /// Maps the kernel whose subtree starts at \p node; returns the node at
  /// the same position.
  isl::schedule_node mapKernel(const isl::schedule_node &node);
  /// Outer fusion: one kernel whose groups each run one value of every
  /// statement's first LHS index, the statements in textual order below.
  /// Returns the schedule when the dependences allow it and the work below
  /// the groups has parallelism for the work-items.
  std::optional<isl::schedule> fuseOuter(const isl::union_set &domain);
  /// Where isl fused the statements below \p node, a band without a
  /// parallel member over a sequence, into one order that no member keeps
  /// parallel (a reduction into a scalar, then a map over the reduced
  /// input after it), the band sunk into each part of the sequence, its
  /// members parallel where that part's own dependences allow: the parts
  /// then map as kernels of their own. nullopt where that does not apply or
  /// the order it gives violates a dependence.
  std::optional<isl::schedule> splitSequentialBand(isl::schedule_node node);

private:
  isl::schedule_node mapInside(isl::schedule_node node);
  static unsigned numLeadingCoincident(const isl::schedule_node_band &band) {
    unsigned count = 0;
    while (count < band.n_member() && band.member_get_coincident(count))
      ++count;
    return count;
  }
  static bool hasParallelBand(const isl::schedule_node &node);
  /// Whether a band strictly below \p node runs, besides other statements,
  /// a reduction along one of the reduction's own loops (isl fused, say,
  /// `e(n, d) = exp(...)` and `s(n) +=! e(n, d)` into one loop over d).
  bool fusesReductionLoop(const isl::schedule_node &node);
  bool fusesReductionLoopAt(const isl::schedule_node_band &band);
  static llvm::SmallVector<int64_t, 4>
  extents(const isl::schedule_node_band &band);
  /// Below \p band (one point per group), the statements in textual order,
  /// each with a band over its iterators that \p band does not fix; nullopt
  /// when that order violates a dependence. \p worthIt tells whether the
  /// work below then has parallel loops or long reductions for the
  /// work-items.
  std::optional<isl::schedule_node>
  textualInner(const isl::schedule_node_band &band, bool &worthIt);
  /// The statements with instances at \p node, in textual order.
  llvm::SmallVector<unsigned, 8>
  statementsAt(const isl::schedule_node &node) const;
  bool isCoincident(unsigned stmt, const isl::map &outer, unsigned dim);
  /// Whether every dependence goes forward in the schedule \p node is of.
  bool respectsDependences(const isl::schedule_node &node);
  /// With \p onlyIterators, statements whose member is not one of their
  /// iterators (an init below a reduction's loop) do not count.
  bool runsAreContiguous(const isl::schedule_node_band &band, unsigned member,
                         bool onlyIterators = false);
  /// Whether some band strictly below \p node has an innermost member
  /// whose consecutive points do not walk memory contiguously.
  bool hasStridedBandBelow(const isl::schedule_node &node);
  /// The tiles of a kernel's group band (of extents \p extent) and the run
  /// length of its work-items (0: single points).
  struct GroupTiles {
    llvm::SmallVector<int64_t, 4> tiles;
    int64_t run = 0;
  };
  GroupTiles chooseTiles(const isl::schedule_node_band &band,
                         llvm::ArrayRef<int64_t> extent, bool innerParallel);
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
  const StatementModel &model;
  const Scop &scop;
  const isl::union_map &dependences;

public:
  /// See MappedSchedule.
  bool usedGroupWork = false, usedVectorRuns = false;
};

std::optional<isl::schedule> Mapper::fuseOuter(const isl::union_set &domain) {
  isl::union_map outer =
      isl::manage(isl_union_map_empty(isl_union_set_get_space(domain.get())));
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt) {
    if (scop.stmts[stmt].lhsIndices.empty())
      return std::nullopt;
    outer = outer.unite(isl::union_map(
        lhsProjection(model.domains[stmt], scop.stmts[stmt], 1)));
  }
  isl::union_map sameGroup = outer.apply_range(outer.reverse());
  if (!dependences.is_subset(sameGroup))
    return std::nullopt;
  isl::schedule schedule = isl::manage(isl_schedule_insert_partial_schedule(
      isl_schedule_from_domain(domain.copy()),
      isl_multi_union_pw_aff_from_union_map(outer.copy())));
  auto band = schedule.root().child(0).as<isl::schedule_node_band>();
  band = band.member_set_coincident(0, true).set_permutable(true);
  bool worthIt = false;
  std::optional<isl::schedule_node> inner = textualInner(band, worthIt);
  if (!inner)
    return std::nullopt;
  // Short loops below the groups (softmax over rows of 16): the work-items
  // take the outer points instead, a group of them per tile, which pays
  // where there are enough of them to fill a group.
  if (!worthIt) {
    usedGroupWork = true;
    int64_t outerPoints = extents(band).front();
    if (outerPoints < 0 || outerPoints < options.groupWork)
      return std::nullopt;
  }
  return inner->schedule();
}

llvm::SmallVector<unsigned, 8>
Mapper::statementsAt(const isl::schedule_node &node) const {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(node.get()));
  llvm::SmallVector<unsigned, 8> result;
  for (unsigned stmt = 0; stmt < scop.stmts.size(); ++stmt)
    if (!domain.intersect(isl::union_set(model.domains[stmt])).is_empty())
      result.push_back(stmt);
  return result;
}

bool Mapper::isCoincident(unsigned stmt, const isl::map &outer, unsigned dim) {
  // Self-dependences of the statement between instances of one group must
  // keep iterator `dim`.
  const isl::set &domain = model.domains[stmt];
  isl::union_map self = dependences.intersect_domain(isl::union_set(domain))
                            .intersect_range(isl::union_set(domain));
  isl::map sameGroup = outer.apply_range(outer.reverse());
  isl::map equal = isl::manage(isl_map_equate(
      isl_map_universe(isl_space_map_from_set(domain.space().release())),
      isl_dim_in, dim, isl_dim_out, dim));
  return self.intersect(isl::union_map(sameGroup))
      .is_subset(isl::union_map(equal));
}

/// Whether consecutive values of member \p member of \p band walk every
/// tensor contiguously: in each statement the member is one iterator, and
/// stepping that iterator by one moves every access by one element along
/// the tensor's last (fastest) index, or not at all. Then a run of such
/// points is a loop the backend can put on vector lanes.
bool Mapper::runsAreContiguous(const isl::schedule_node_band &band,
                               unsigned member, bool onlyIterators) {
  isl::union_map schedule = isl::manage(isl_union_map_from_union_pw_aff(
      band.get_partial_schedule().at(member).release()));
  for (unsigned stmt : statementsAt(band)) {
    isl::set stmtDomain = model.domains[stmt];
    isl::union_map stmtSchedule =
        schedule.intersect_domain(isl::union_set(stmtDomain));
    isl::space space = stmtDomain.space();
    std::optional<unsigned> iterator;
    for (unsigned dim = 0, e = numSetDims(stmtDomain); dim < e; ++dim) {
      isl::map value =
          isl::manage(isl_map_from_pw_aff(dimPwAff(space, dim).release()))
              .intersect_domain(stmtDomain);
      if (stmtSchedule.is_equal(isl::union_map(value))) {
        iterator = dim;
        break;
      }
    }
    if (!iterator && onlyIterators)
      continue;
    if (!iterator)
      return false;
    // { S[x] -> S[x + e_iterator] } within the domain.
    isl::multi_aff step = isl::manage(
        isl_multi_aff_identity(isl_space_map_from_set(space.copy())));
    isl::aff next = step.at(*iterator).add_constant(isl::val(band.ctx(), 1));
    step = step.set_at(*iterator, next);
    isl::union_map shift(isl::manage(isl_map_from_multi_aff(step.release()))
                             .intersect_domain(stmtDomain)
                             .intersect_range(stmtDomain));
    for (const auto &[tensor, accesses] : model.accesses) {
      isl::union_map access = accesses.reads.unite(accesses.writes)
                                  .intersect_domain(isl::union_set(stmtDomain));
      if (access.is_empty())
        continue;
      isl::union_set deltas =
          access.reverse().apply_range(shift).apply_range(access).deltas();
      bool contiguous = true;
      deltas.foreach_set([&](const isl::set &moves) {
        unsigned dims = numSetDims(moves);
        isl_set *allowed = isl_set_universe(moves.space().release());
        for (unsigned dim = 0; dim + 1 < dims; ++dim)
          allowed = isl_set_fix_si(allowed, isl_dim_set, dim, 0);
        if (dims > 0) {
          allowed = isl_set_lower_bound_si(allowed, isl_dim_set, dims - 1, 0);
          allowed = isl_set_upper_bound_si(allowed, isl_dim_set, dims - 1, 1);
        }
        contiguous = contiguous && moves.is_subset(isl::manage(allowed));
      });
      if (!contiguous)
        return false;
    }
  }
  return true;
}

std::optional<isl::schedule_node>
Mapper::textualInner(const isl::schedule_node_band &band, bool &worthIt) {
  worthIt = false;
  isl::multi_union_pw_aff partial = band.get_partial_schedule();
  isl::union_map outer =
      isl::manage(isl_union_map_from_multi_union_pw_aff(partial.copy()));
  isl::union_set_list filters(band.ctx(), scop.stmts.size());
  llvm::SmallVector<unsigned, 8> members = statementsAt(band);
  for (unsigned stmt : members)
    filters = filters.add(isl::union_set(model.domains[stmt]));
  isl::schedule_node node =
      isl::manage(isl_schedule_node_cut(band.child(0).release()));
  if (members.size() > 1)
    node = node.insert_sequence(filters);
  for (unsigned i = 0; i < members.size(); ++i) {
    unsigned stmt = members[i];
    const isl::set &stmtDomain = model.domains[stmt];
    isl::map stmtOuter = isl::manage(isl_map_from_union_map(
        outer.intersect_domain(isl::union_set(stmtDomain)).release()));
    // The iterators the group does not fix, in order.
    unsigned numDims = numSetDims(stmtDomain);
    isl::space stmtSpace = stmtDomain.space();
    isl_map *inner = isl_map_from_domain(isl_set_universe(stmtSpace.copy()));
    llvm::SmallVector<unsigned, 4> dims;
    for (unsigned dim = 0; dim < numDims; ++dim) {
      isl::map fixed = stmtOuter.reverse().apply_range(isl::manage(
          isl_map_from_pw_aff(dimPwAff(stmtDomain.space(), dim).release())));
      if (fixed.is_single_valued())
        continue;
      dims.push_back(dim);
      inner = isl_map_flat_range_product(
          inner,
          isl_map_from_pw_aff(dimPwAff(stmtDomain.space(), dim).release()));
    }
    isl::schedule_node leaf =
        members.size() > 1 ? node.child(i).child(0) : node;
    if (dims.empty()) {
      isl_map_free(inner);
      node = members.size() > 1 ? leaf.parent().parent() : leaf;
      continue;
    }
    isl::map innerMap = isl::manage(inner).intersect_domain(stmtDomain);
    auto innerBand = leaf.insert_partial_schedule(
                             isl::manage(isl_multi_union_pw_aff_from_union_map(
                                 isl_union_map_from_map(innerMap.release()))))
                         .as<isl::schedule_node_band>();
    for (unsigned member = 0; member < dims.size(); ++member)
      if (isCoincident(stmt, stmtOuter, dims[member]))
        innerBand = innerBand.member_set_coincident(member, true);
    llvm::SmallVector<int64_t, 4> extent = extents(innerBand);
    // Worth a group per point when a loop nest below has a parallel loop
    // or a reduction long enough to occupy the work-items.
    if (innerBand.member_get_coincident(0) || scop.origin[stmt].reduction) {
      usedGroupWork = true;
      if (extent[0] >= options.groupWork)
        worthIt = true;
    }
    node = members.size() > 1 ? innerBand.parent().parent()
                              : isl::schedule_node(innerBand);
  }
  node = node.parent();
  if (!respectsDependences(node))
    return std::nullopt;
  return node;
}

std::optional<isl::schedule>
Mapper::splitSequentialBand(isl::schedule_node node) {
  if (!node.isa<isl::schedule_node_band>() ||
      numLeadingCoincident(node.as<isl::schedule_node_band>()) > 0)
    return std::nullopt;
  isl::schedule_node below = node.child(0);
  if (!below.isa<isl::schedule_node_sequence>() &&
      !below.isa<isl::schedule_node_set>())
    return std::nullopt;
  isl::schedule_node parts =
      isl::manage(isl_schedule_node_band_sink(node.release()));
  if (!respectsDependences(parts))
    return std::nullopt;
  for (int child = 0, e = parts.n_children(); child < e; ++child) {
    isl::schedule_node part = parts.child(child).child(0);
    if (!part.isa<isl::schedule_node_band>())
      continue;
    auto band = part.as<isl::schedule_node_band>();
    // Member m is parallel when every dependence between instances of the
    // part that agree on the members before m agrees on m too.
    isl::union_set domain =
        isl::manage(isl_schedule_node_get_domain(band.get()));
    isl::union_map schedule = isl::union_map::from(band.partial_schedule());
    isl::union_map onSchedule = dependences.intersect_domain(domain)
                                    .intersect_range(domain)
                                    .apply_domain(schedule)
                                    .apply_range(schedule);
    isl_space *space = isl_schedule_node_band_get_space(band.get());
    isl::map universe = isl::manage(
        isl_map_universe(isl_space_map_from_set(isl_space_copy(space))));
    isl::map prefix = universe;
    llvm::SmallVector<bool, 4> parallel;
    for (unsigned member = 0; member < band.n_member(); ++member) {
      isl::map equal = isl::manage(isl_map_equate(universe.copy(), isl_dim_in,
                                                  member, isl_dim_out, member));
      parallel.push_back(onSchedule.intersect(isl::union_map(prefix))
                             .is_subset(isl::union_map(equal)));
      prefix = prefix.intersect(equal);
    }
    // The part's band starts at 0 (isl shifted it behind the parts before
    // it), so that its tiles line up with its first point.
    isl_set *range = isl_set_from_union_set(
        isl_union_set_apply(domain.copy(), schedule.copy()));
    isl_multi_val *start = isl_multi_val_zero(space);
    for (unsigned member = 0; member < band.n_member(); ++member)
      start = isl_multi_val_set_val(
          start, member, isl_set_dim_min_val(isl_set_copy(range), member));
    isl_set_free(range);
    isl_multi_union_pw_aff *shifted = isl_multi_union_pw_aff_sub(
        isl_schedule_node_band_get_partial_schedule(band.get()),
        isl_multi_union_pw_aff_multi_val_on_domain(domain.copy(), start));
    isl::schedule_node replaced =
        isl::manage(isl_schedule_node_insert_partial_schedule(
            isl_schedule_node_delete(band.release()), shifted));
    band = replaced.as<isl::schedule_node_band>().set_permutable(true);
    for (unsigned member = 0; member < parallel.size(); ++member)
      band = band.member_set_coincident(member, parallel[member]);
    parts = band.parent().parent();
  }
  return parts.schedule();
}

bool Mapper::respectsDependences(const isl::schedule_node &node) {
  isl::union_map order = node.schedule().get_map();
  isl::union_map forward =
      isl::manage(isl_union_map_lex_lt_union_map(order.copy(), order.copy()));
  return dependences.is_subset(forward);
}

bool Mapper::hasStridedBandBelow(const isl::schedule_node &node) {
  for (int child = 0, e = node.n_children(); child < e; ++child) {
    isl::schedule_node below = node.child(child);
    if (below.isa<isl::schedule_node_band>()) {
      auto band = below.as<isl::schedule_node_band>();
      if (!runsAreContiguous(band, band.n_member() - 1,
                             /*onlyIterators=*/true))
        return true;
    }
    if (hasStridedBandBelow(below))
      return true;
  }
  return false;
}

bool Mapper::fusesReductionLoop(const isl::schedule_node &node) {
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

bool Mapper::fusesReductionLoopAt(const isl::schedule_node_band &band) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  llvm::SmallVector<unsigned, 8> members = statementsAt(band);
  if (members.size() < 2)
    return false;
  isl::union_map prefix = band.get_prefix_schedule_union_map();
  for (unsigned member = 0; member < band.n_member(); ++member) {
    isl::union_map schedule = isl::manage(isl_union_map_from_union_pw_aff(
        band.get_partial_schedule().at(member).release()));
    // Statements that take several values of the member below one point of
    // the loops around the band, and those that reduce into one element
    // over several values.
    unsigned numLooping = 0;
    bool reduces = false;
    for (unsigned stmt : members) {
      isl::union_set stmtDomain =
          domain.intersect(isl::union_set(model.domains[stmt]));
      isl::union_map stmtSchedule = schedule.intersect_domain(stmtDomain);
      if (!prefix.intersect_domain(stmtDomain)
               .reverse()
               .apply_range(stmtSchedule)
               .is_single_valued())
        ++numLooping;
      const ScheduledStatement &statement = scop.stmts[stmt];
      if (statement.lhsIndices.size() == statement.iterators.size())
        continue;
      isl::map lhs = lhsProjection(model.domains[stmt], statement,
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

bool Mapper::hasParallelBand(const isl::schedule_node &node) {
  if (node.isa<isl::schedule_node_band>() &&
      node.as<isl::schedule_node_band>().member_get_coincident(0))
    return true;
  for (int child = 0, e = node.n_children(); child < e; ++child)
    if (hasParallelBand(node.child(child)))
      return true;
  return false;
}

llvm::SmallVector<int64_t, 4>
Mapper::extents(const isl::schedule_node_band &band) {
  llvm::SmallVector<int64_t, 4> result;
  isl::multi_union_pw_aff partial =
      band.get_partial_schedule().intersect_domain(
          isl::manage(isl_schedule_node_get_domain(band.get())));
  isl::multi_val lo =
      isl::manage(isl_multi_union_pw_aff_min_multi_val(partial.copy()));
  isl::multi_val hi =
      isl::manage(isl_multi_union_pw_aff_max_multi_val(partial.copy()));
  for (unsigned member = 0; member < band.n_member(); ++member) {
    isl::val min = lo.at(member), max = hi.at(member);
    result.push_back(min.is_int() && max.is_int()
                         ? max.get_num_si() - min.get_num_si() + 1
                         : -1);
  }
  return result;
}

/// The tile sizes \p sizes (one per member) as the multi_val of \p band.
static isl::multi_val bandSizes(const isl::schedule_node_band &band,
                                llvm::ArrayRef<int64_t> sizes) {
  isl::multi_val result = isl::manage(
      isl_multi_val_zero(isl_schedule_node_band_get_space(band.get())));
  for (unsigned member = 0; member < sizes.size(); ++member)
    result = result.set_at(member, isl::val(band.ctx(), sizes[member]));
  return result;
}

/// Halves the innermost of \p tiles, down to \p floor and in multiples of
/// it, while the band of \p extent (-1: unknown) has fewer than
/// kMinCpuGroups groups.
static void keepCpuGroups(llvm::MutableArrayRef<int64_t> tiles,
                          llvm::ArrayRef<int64_t> extent, int64_t floor) {
  auto numGroups = [&] {
    int64_t groups = 1;
    for (unsigned dim = 0; dim < tiles.size(); ++dim)
      groups *= extent[dim] > 0 ? (extent[dim] + tiles[dim] - 1) / tiles[dim]
                                : kMinCpuGroups;
    return groups;
  };
  int64_t &inner = tiles.back();
  while (numGroups() < kMinCpuGroups && inner > floor)
    inner = std::max(floor, (inner / 2 + floor - 1) / floor * floor);
}

Mapper::GroupTiles Mapper::chooseTiles(const isl::schedule_node_band &band,
                                       llvm::ArrayRef<int64_t> extent,
                                       bool innerParallel) {
  unsigned groupDims = extent.size();
  GroupTiles result;
  result.tiles.assign(groupDims, 1);
  llvm::MutableArrayRef<int64_t> tiles = result.tiles;
  // Work-item points per group; with vector runs, a point of the innermost
  // member is a run of `vectorRun` consecutive points.
  int64_t budget = std::max<int64_t>(1, options.groupWork);
  int64_t run = innerParallel || options.vectorRun < 2 ||
                        !runsAreContiguous(band, groupDims - 1)
                    ? 0
                    : options.vectorRun;
  for (unsigned dim = groupDims; dim-- > 0;) {
    int64_t perPoint = dim + 1 == groupDims && run > 1 ? run : 1;
    if (dim < options.tileSizes.size() && options.tileSizes[dim] > 0) {
      tiles[dim] = options.tileSizes[dim];
      continue;
    }
    if (innerParallel) {
      if (dim + 1 == groupDims && options.vectorRows > 0)
        tiles[dim] = options.vectorRows;
      continue;
    }
    int64_t size = budget * perPoint;
    // The budget, not the extent, limits the tile.
    usedGroupWork |= extent[dim] <= 0 || size < extent[dim];
    if (extent[dim] > 0)
      size = std::min(extent[dim], size);
    tiles[dim] = std::max<int64_t>(1, size);
    budget = std::max<int64_t>(1, budget * perPoint / tiles[dim]);
  }
  for (unsigned dim = 0; dim < groupDims; ++dim)
    if (extent[dim] > 0)
      tiles[dim] = std::min(tiles[dim], extent[dim]);
  // The CPU rules (vector rows and runs) make groups bigger; keep enough of
  // them to fill the cores, down to one run, or two rows (one row would be
  // a group per point, mapped as on a GPU). An explicit tile wins.
  bool explicitInner = groupDims <= options.tileSizes.size() &&
                       options.tileSizes[groupDims - 1] > 0;
  bool vectorRows = innerParallel && options.vectorRows > 1;
  if (!explicitInner && (run > 1 || vectorRows))
    keepCpuGroups(tiles, extent, run > 1 ? run : 2);
  if (run > 1)
    run = std::min(run, tiles.back());
  result.run = run < 2 ? 0 : run;
  return result;
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
  isl::schedule_node point = points.insert_mark(
      markName("work_items", points.as<isl::schedule_node_band>()));
  return point.parent().insert_mark(
      markName("group", point.parent().as<isl::schedule_node_band>()));
}

std::optional<isl::schedule_node>
Mapper::sinkRunPoints(const isl::schedule_node &kernel) {
  // group mark -> tile band -> work-item mark -> run band -> points of a run
  isl::schedule_node inRun = kernel.child(0).child(0).child(0).child(0);
  if (!inRun.isa<isl::schedule_node_band>() || !hasStridedBandBelow(inRun))
    return std::nullopt;
  int depth = isl_schedule_node_get_tree_depth(kernel.get());
  isl::schedule_node sunk =
      isl::manage(isl_schedule_node_band_sink(inRun.release()));
  isl::schedule_node result =
      sunk.ancestor(isl_schedule_node_get_tree_depth(sunk.get()) - depth);
  if (!respectsDependences(result))
    return std::nullopt;
  return result;
}

isl::schedule_node Mapper::mapKernel(const isl::schedule_node &node) {
  if (!node.isa<isl::schedule_node_band>())
    return mapInside(node);
  auto band = node.as<isl::schedule_node_band>();
  unsigned groupDims = std::min(3u, numLeadingCoincident(band));
  if (groupDims == 0)
    return mapInside(node);
  if (band.n_member() > groupDims)
    band = band.split(groupDims);
  llvm::SmallVector<int64_t, 4> extent = extents(band);
  bool innerParallel = false;
  std::optional<isl::schedule_node> textual;
  if (options.innerMapping) {
    textual = textualInner(band, innerParallel);
    if (!textual)
      innerParallel = false;
  }
  if (!innerParallel)
    textual.reset();
  // On a vector core, inner loop nests that walk memory with a stride (the
  // rows of a column reduction) run on vectors when each work-item takes a
  // run of consecutive points of the group band and the run's points sink
  // below those loops: a row of the run per step, not a column per
  // work-item.
  if (textual && options.vectorRun >= 2 &&
      runsAreContiguous(band, groupDims - 1) && hasStridedBandBelow(*textual)) {
    auto textualBand = textual->as<isl::schedule_node_band>();
    GroupTiles choice = chooseTiles(textualBand, extent, false);
    if (choice.run > 0)
      if (std::optional<isl::schedule_node> sunk =
              sinkRunPoints(tileOntoGroups(textualBand, choice))) {
        usedVectorRuns = true;
        return *sunk;
      }
  }
  // Where isl fused a reduction's loop with other statements, its
  // accumulator would stay in memory and the loop run on scalars: below the
  // groups, each statement in a loop nest of its own instead.
  if (textual && fusesReductionLoop(band))
    band = textual->as<isl::schedule_node_band>();
  GroupTiles choice = chooseTiles(band, extent, innerParallel);
  if (llvm::all_of(choice.tiles, [](int64_t tile) { return tile == 1; })) {
    if (textual)
      band = textual->as<isl::schedule_node_band>();
    isl::schedule_node mark = band.insert_mark(markName("group", band));
    return mapInside(mark.child(0).child(0)).parent().parent();
  }
  isl::schedule_node kernel = tileOntoGroups(band, choice);
  if (choice.run == 0)
    return kernel;
  usedVectorRuns = true;
  // Runs over loop nests that walk memory with a stride (a short column
  // reduction) sink below them too.
  return sinkRunPoints(kernel).value_or(kernel);
}

isl::schedule_node Mapper::mapInside(isl::schedule_node node) {
  if (node.isa<isl::schedule_node_band>()) {
    auto band = node.as<isl::schedule_node_band>();
    unsigned parallel = numLeadingCoincident(band);
    if (parallel > 0) {
      if (band.n_member() > parallel)
        band = band.split(parallel);
      return band.insert_mark(markName("work_items", band));
    }
  }
  for (int child = 0, e = node.n_children(); child < e; ++child)
    node = mapInside(node.child(child)).parent();
  return node;
}

template <typename T, typename Printer>
std::string islText(T *value, Printer print) {
  char *text = print(value);
  std::string result = text ? text : "";
  free(text);
  return result;
}

std::string scheduleBlockText(const isl::schedule &schedule) {
  isl_printer *printer = isl_printer_to_str(schedule.ctx().get());
  printer = isl_printer_set_yaml_style(printer, ISL_YAML_STYLE_BLOCK);
  printer = isl_printer_print_schedule(printer, schedule.get());
  char *text = isl_printer_get_str(printer);
  isl_printer_free(printer);
  std::string result = text ? text : "";
  free(text);
  return result;
}

} // namespace

llvm::Expected<MappedSchedule>
comprehend::poly::mapSchedule(llvm::ArrayRef<std::string> params,
                              llvm::ArrayRef<ScheduledStatement> stmts,
                              const ScheduleOptions &options) {
  if (stmts.empty())
    return scheduleError("a def without statements has no schedule");
  IslContext ctx;
  MaxOperationsGuard guard(ctx, scheduleMaxOperations);
  setFusionOptions(ctx.getRaw(), options.fusion);
  Scop scop = splitReductions(stmts);
  try {
    llvm::Expected<StatementModel> model =
        buildStatementModel(ctx, params, scop.stmts);
    if (!model)
      return model.takeError();
    isl::union_set domain = isl::manage(
        isl_union_set_empty(isl_union_map_get_space(model->schedule.get())));
    for (const isl::set &stmtDomain : model->domains)
      domain = domain.unite(stmtDomain);
    isl::union_map flow;
    isl::union_map dependences = computeDependences(*model, flow);
    isl::set context = makeParamContext(
        makeParamSpace(ctx, params),
        llvm::SmallVector<std::optional<int64_t>, 4>(params.size()));

    isl::schedule_constraints constraints =
        isl::schedule_constraints::on_domain(domain)
            .set_context(context)
            .set_validity(dependences)
            .set_coincidence(dependences)
            .set_proximity(flow);
    isl::schedule schedule = constraints.compute_schedule();

    // Map every kernel: the children of a top-level sequence (or set), or
    // the whole tree.
    Mapper mapper(options, *model, scop, dependences);
    if (std::optional<isl::schedule> split =
            mapper.splitSequentialBand(schedule.root().child(0)))
      schedule = *split;
    // Outer fusion only where isl left several kernels: it saves launches
    // and the global round trips of temporaries between them, but gives
    // fewer groups than a kernel isl fused by itself.
    isl::schedule_node first = schedule.root().child(0);
    bool severalKernels = first.isa<isl::schedule_node_sequence>() ||
                          first.isa<isl::schedule_node_set>();
    if (options.fusion == FusionStrategy::Max && options.innerMapping &&
        severalKernels)
      if (std::optional<isl::schedule> fused = mapper.fuseOuter(domain))
        schedule = *fused;
    isl::schedule_node top = schedule.root().child(0);
    if (top.isa<isl::schedule_node_sequence>() ||
        top.isa<isl::schedule_node_set>()) {
      for (int child = 0, e = top.n_children(); child < e; ++child)
        top = mapper.mapKernel(top.child(child).child(0)).parent().parent();
    } else {
      top = mapper.mapKernel(top);
    }
    schedule = top.schedule();

    isl::ast_build build = isl::ast_build::from_context(context);
    isl::ast_node ast = build.node_from(schedule);

    MappedSchedule result;
    result.scheduleTree = scheduleBlockText(schedule);
    result.astText = islText(ast.get(), isl_ast_node_to_C_str);
    llvm::Expected<llvm::SmallVector<MappedKernel, 2>> kernels =
        translateAst(ast, params, scop.origin);
    if (!kernels)
      return kernels.takeError();
    result.kernels = std::move(*kernels);
    result.usedGroupWork = mapper.usedGroupWork;
    result.usedVectorRuns = mapper.usedVectorRuns;
    return result;
  } catch (const isl::exception &error) {
    // Past the quota isl fails in the call that hit it or, with a bare
    // "NULL input", in whichever call comes next; name the quota.
    if (dynamic_cast<const isl::exception_quota *>(&error) ||
        isl_ctx_last_error(ctx.getRaw()) == isl_error_quota)
      return scheduleError(llvm::Twine("isl gave up after ") +
                           llvm::Twine(scheduleMaxOperations.getValue()) +
                           " operations (see --isl-schedule-max-operations)");
    return scheduleError(llvm::Twine("scheduling failed in isl: ") +
                         error.what());
  }
}
