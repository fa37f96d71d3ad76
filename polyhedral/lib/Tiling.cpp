//===- Tiling.cpp - The tiles of a kernel's group band --------------------===//
//
// The default tiles fill a group with about `groupWork` points of the band's
// innermost members. The CPU rules (ScheduleOptions::vectorRows and
// vectorRun) make groups bigger where the backend runs a loop inside one
// work-item on vector registers, while keeping enough groups for the cores.
//
//===----------------------------------------------------------------------===//
#include "Mapping.h"

#include "ScheduleTreeSupport.h"

using namespace comprehend::poly;

/// Work-groups a def keeps under the CPU rules (vector rows and runs) where
/// its size allows: enough for the cores of a CPU.
static constexpr int64_t kMinCpuGroups = 16;

/// Rows of a matrix transposition (isTransposition) that a group takes on a
/// vector CPU core, with `groupWork` points of the innermost member each:
/// the writes of neighbouring rows then share cache lines within the group.
/// Measured on PoCL (Xeon, AVX-512, 2 cores; `T(k, m) = Q(m, k)`, `comprehend
/// run --repeat 20`, two rounds, best / median ms): one row (the default
/// before) 0.62-0.64 / 0.75-0.80 at 1024², 2.57-2.68 / 2.75-2.79 at 2048²,
/// 2.64-2.72 / 2.76-2.92 at 4096 x 1024; 4 rows 0.43 / 0.56-0.70,
/// 1.67-1.76 / 1.78-2.01, 1.81-2.57 / 1.98-3.62; 8 rows 0.42-0.45 /
/// 0.57-0.66, 1.83-1.85 / 1.94-2.06, 1.69-1.79 / 2.05-2.38; 16 rows three
/// times slower than one.
static constexpr int64_t kTransposedRows = 8;

namespace {

/// The iterator of \p stmtDomain that \p stmtSchedule (one member) equals.
std::optional<unsigned> iteratorOf(const isl::set &stmtDomain,
                                   const isl::union_map &stmtSchedule) {
  isl::space space = stmtDomain.space();
  for (unsigned dim = 0, e = numSetDims(stmtDomain); dim < e; ++dim) {
    isl::map value = dimPwAff(space, dim).as_map().intersect_domain(stmtDomain);
    if (stmtSchedule.is_equal(isl::union_map(value)))
      return dim;
  }
  return std::nullopt;
}

/// Whether every read of \p tensor by \p stmt subscripts dimension \p dim
/// with a non-affine expression that does not use \p iterator: a gather
/// (`table(idx(b, l), d)`) whose row stays put while `d` steps. The model
/// lets such a subscript span the whole dimension.
bool gathersStill(const ScheduledStatement &stmt, llvm::StringRef tensor,
                  unsigned dim, llvm::StringRef iterator) {
  bool any = false;
  for (const TensorAccess &read : stmt.reads) {
    if (read.tensor != tensor)
      continue;
    if (dim >= read.subscripts.size())
      return false;
    const IndexExpr &subscript = read.subscripts[dim];
    if (subscript.getKind() != IndexExpr::Kind::Opaque ||
        llvm::is_contained(subscript.getOpaqueVariables(), iterator))
      return false;
    any = true;
  }
  return any;
}

/// \p access without the dimensions before its last one that
/// gathersStill: they do not move with a step of \p iterator.
isl::union_map dropStillGathers(const isl::union_map &access,
                                const ScheduledStatement &stmt,
                                llvm::StringRef tensor,
                                llvm::StringRef iterator) {
  isl::union_map result = emptyUnionMap(access.space());
  access.foreach_map([&](isl::map map) {
    unsigned dims = map.range_tuple_dim();
    for (unsigned dim = dims > 0 ? dims - 1 : 0; dim-- > 0;)
      if (gathersStill(stmt, tensor, dim, iterator))
        map = projectOutOutputDim(map, dim);
    result = result.unite(isl::union_map(map));
  });
  return result;
}

/// Whether stepping \p iterator of \p stmtDomain by one moves every access
/// of the statement by at most \p maxStep elements along the tensor's last
/// (fastest) index, or not at all.
bool stepsContiguously(const Scop &scop, unsigned stmt,
                       const isl::set &stmtDomain, unsigned iterator,
                       int64_t maxStep) {
  // { S[x] -> S[x + e_iterator] } within the domain.
  isl::multi_aff step = isl::multi_aff::identity_on_domain(stmtDomain.space());
  isl::aff next = step.at(iterator).add_constant(isl::val(step.ctx(), 1));
  step = step.set_at(iterator, next);
  isl::union_map shift(
      step.as_map().intersect_domain(stmtDomain).intersect_range(stmtDomain));
  for (const auto &[tensor, accesses] : scop.model.accesses) {
    isl::union_map access = accesses.reads.unite(accesses.writes)
                                .intersect_domain(isl::union_set(stmtDomain));
    if (access.is_empty())
      continue;
    access = dropStillGathers(access, scop.stmts[stmt], tensor,
                              scop.stmts[stmt].iterators[iterator]);
    isl::union_set deltas =
        access.reverse().apply_range(shift).apply_range(access).deltas();
    bool contiguous = true;
    deltas.foreach_set([&](const isl::set &moves) {
      contiguous =
          contiguous && moves.is_subset(stepMovesUpTo(moves.space(), maxStep));
    });
    if (!contiguous)
      return false;
  }
  return true;
}

/// Halves the innermost of \p tiles, down to \p floor and in multiples of
/// it, while the band of \p extent (-1: unknown) has fewer than
/// kMinCpuGroups groups.
void keepCpuGroups(llvm::MutableArrayRef<int64_t> tiles,
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

/// The default tiles: the innermost members fill a group with
/// `groupWork` work-item points (runs of \p run points in the innermost);
/// explicit tile sizes win.
void fillGroups(const ScheduleOptions &options, llvm::ArrayRef<int64_t> extent,
                bool innerParallel, int64_t run, GroupTiles &result) {
  unsigned groupDims = extent.size();
  llvm::MutableArrayRef<int64_t> tiles = result.tiles;
  int64_t budget = std::max<int64_t>(1, options.groupWork);
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
    result.usedGroupWork |= extent[dim] <= 0 || size < extent[dim];
    if (extent[dim] > 0)
      size = std::min(extent[dim], size);
    tiles[dim] = std::max<int64_t>(1, size);
    budget = std::max<int64_t>(1, budget * perPoint / tiles[dim]);
  }
  for (unsigned dim = 0; dim < groupDims; ++dim)
    if (extent[dim] > 0)
      tiles[dim] = std::min(tiles[dim], extent[dim]);
}

/// Whether every statement of \p band copies a matrix transposed:
/// `T(a, b) = Q(b, a)`, one read with the two LHS indices swapped, no
/// reduction (the write steps along the index the read does not).
bool isTransposition(const Scop &scop, const isl::schedule_node_band &band) {
  llvm::SmallVector<unsigned, 8> stmts = scop.statementsAt(band);
  auto isVar = [](const IndexExpr &expr, llvm::StringRef name) {
    return expr.getKind() == IndexExpr::Kind::Var && expr.getName() == name;
  };
  return !stmts.empty() && llvm::all_of(stmts, [&](unsigned index) {
    const ScheduledStatement &stmt = scop.stmts[index];
    if (scop.origin[index].init || stmt.reduction || stmt.reads.size() != 1 ||
        stmt.lhsIndices.size() != 2)
      return false;
    const TensorAccess &read = stmt.reads.front();
    return read.subscripts.size() == 2 &&
           isVar(read.subscripts[0], stmt.lhsIndices[1]) &&
           isVar(read.subscripts[1], stmt.lhsIndices[0]);
  });
}

} // namespace

bool comprehend::poly::runsAreContiguous(const Scop &scop,
                                         const isl::schedule_node_band &band,
                                         unsigned member, bool onlyIterators,
                                         int64_t maxStep) {
  isl::union_map schedule =
      band.get_partial_schedule().at(member).as_union_map();
  for (unsigned stmt : scop.statementsAt(band)) {
    const isl::set &stmtDomain = scop.model.domains[stmt];
    std::optional<unsigned> iterator = iteratorOf(
        stmtDomain, schedule.intersect_domain(isl::union_set(stmtDomain)));
    if (!iterator && onlyIterators)
      continue;
    if (!iterator ||
        !stepsContiguously(scop, stmt, stmtDomain, *iterator, maxStep))
      return false;
  }
  return true;
}

bool comprehend::poly::hasStridedBandBelow(const Scop &scop,
                                           const isl::schedule_node &node) {
  for (int child = 0, e = node.n_children(); child < e; ++child) {
    isl::schedule_node below = node.child(child);
    if (below.isa<isl::schedule_node_band>()) {
      auto band = below.as<isl::schedule_node_band>();
      if (!runsAreContiguous(scop, band, band.n_member() - 1,
                             /*onlyIterators=*/true))
        return true;
    }
    if (hasStridedBandBelow(scop, below))
      return true;
  }
  return false;
}

GroupTiles comprehend::poly::chooseTiles(const Scop &scop,
                                         const ScheduleOptions &options,
                                         const isl::schedule_node_band &band,
                                         llvm::ArrayRef<int64_t> extent,
                                         bool innerParallel) {
  unsigned groupDims = extent.size();
  GroupTiles result;
  result.tiles.assign(groupDims, 1);
  // Work-item points per group; with vector runs, a point of the innermost
  // member is a run of `vectorRun` consecutive points.
  int64_t run = innerParallel || options.vectorRun < 2 ||
                        !runsAreContiguous(scop, band, groupDims - 1)
                    ? 0
                    : options.vectorRun;
  fillGroups(options, extent, innerParallel, run, result);
  // On a vector CPU core a transposition takes several rows per group.
  bool explicitRows = !options.tileSizes.empty() && options.tileSizes[0] > 0;
  if (options.vectorRun >= 2 && !innerParallel && run == 0 && groupDims == 2 &&
      !explicitRows && isTransposition(scop, band))
    result.tiles[0] =
        extent[0] > 0 ? std::min(extent[0], kTransposedRows) : kTransposedRows;
  // The CPU rules (vector rows and runs) make groups bigger; keep enough of
  // them to fill the cores, down to one run, or two rows (one row would be
  // a group per point, mapped as on a GPU). An explicit tile wins.
  bool explicitInner = groupDims <= options.tileSizes.size() &&
                       options.tileSizes[groupDims - 1] > 0;
  bool vectorRows = innerParallel && options.vectorRows > 1;
  if (!explicitInner && (run > 1 || vectorRows))
    keepCpuGroups(result.tiles, extent, run > 1 ? run : 2);
  if (run > 1)
    run = std::min(run, result.tiles.back());
  result.run = run < 2 ? 0 : run;
  return result;
}
