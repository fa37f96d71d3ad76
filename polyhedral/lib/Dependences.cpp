//===- Dependences.cpp - The scop of a def and its dependences ------------===//
//
// Dependences come from isl's dataflow analysis over the sequential schedule
// of the StatementModel. isl's scheduler (Fusion.cpp) gets them as validity
// and coincidence constraints and the read-after-write ones as proximity
// constraints.
//
//===----------------------------------------------------------------------===//
#include "Scop.h"

#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend::poly;

namespace {

/// The position of \p var among the iterators of \p stmt.
unsigned iteratorPosition(const ScheduledStatement &stmt,
                          const std::string &var) {
  return llvm::find(stmt.iterators, var) - stmt.iterators.begin();
}

/// The init statement of a reduction: one instance per LHS element.
ScheduledStatement initOf(const ScheduledStatement &stmt) {
  ScheduledStatement init;
  init.lhsTensor = stmt.lhsTensor;
  init.lhsIndices = stmt.lhsIndices;
  for (const std::string &var : stmt.lhsIndices) {
    unsigned pos = iteratorPosition(stmt, var);
    init.iterators.push_back(var);
    init.lo.push_back(stmt.lo[pos]);
    init.hi.push_back(stmt.hi[pos]);
  }
  return init;
}

/// Each def statement's init (if any) and update.
void splitReductions(llvm::ArrayRef<ScheduledStatement> stmts, Scop &scop) {
  for (unsigned index = 0; index < stmts.size(); ++index) {
    const ScheduledStatement &stmt = stmts[index];
    if (stmt.reduction && stmt.hasInit) {
      scop.stmts.push_back(initOf(stmt));
      scop.origin.push_back({index, /*init=*/true, false, {}});
    }
    ScheduledStatement update = stmt;
    update.readsLhs = stmt.readsLhs || stmt.reduction;
    llvm::SmallVector<unsigned, 4> lhsPositions;
    for (const std::string &var : stmt.lhsIndices)
      lhsPositions.push_back(iteratorPosition(stmt, var));
    scop.stmts.push_back(std::move(update));
    scop.origin.push_back(
        {index, /*init=*/false, stmt.reduction, std::move(lhsPositions)});
  }
}

/// The dependences of one kind: from a \p source access (must or may) to a
/// \p sink access of the same element, in the sequential schedule.
isl::union_map dataflow(const StatementModel &model, const isl::union_map &sink,
                        const isl::union_map &source, bool mustSource) {
  isl::union_access_info info(sink);
  info =
      mustSource ? info.set_must_source(source) : info.set_may_source(source);
  return info.set_schedule_map(model.schedule).compute_flow().may_dependence();
}

void computeDependences(Scop &scop) {
  const StatementModel &model = scop.model;
  isl::union_map all = emptyUnionMap(model.schedule.space());
  isl::union_map flow = all;
  for (const auto &[tensor, accesses] : model.accesses) {
    isl::union_map raw =
        dataflow(model, accesses.reads, accesses.writes, /*mustSource=*/true);
    isl::union_map war =
        dataflow(model, accesses.writes, accesses.reads, /*mustSource=*/false);
    isl::union_map waw =
        dataflow(model, accesses.writes, accesses.writes, /*mustSource=*/true);
    flow = flow.unite(raw);
    all = all.unite(raw).unite(war).unite(waw);
  }
  scop.dependences = all;
  scop.flow = flow;
}

} // namespace

llvm::Expected<Scop>
comprehend::poly::buildScop(const IslContext &ctx,
                            llvm::ArrayRef<std::string> params,
                            llvm::ArrayRef<ScheduledStatement> stmts) {
  Scop scop;
  splitReductions(stmts, scop);
  llvm::Expected<StatementModel> model =
      buildStatementModel(ctx, params, scop.stmts);
  if (!model)
    return model.takeError();
  scop.model = std::move(*model);
  scop.domain = emptyUnionSet(scop.model.schedule.space());
  for (const isl::set &stmtDomain : scop.model.domains)
    scop.domain = scop.domain.unite(stmtDomain);
  computeDependences(scop);
  return scop;
}

llvm::SmallVector<unsigned, 8>
Scop::statementsAt(const isl::schedule_node &node) const {
  isl::union_set reaching = nodeDomain(node);
  llvm::SmallVector<unsigned, 8> result;
  for (unsigned stmt = 0; stmt < stmts.size(); ++stmt)
    if (!reaching.intersect(isl::union_set(model.domains[stmt])).is_empty())
      result.push_back(stmt);
  return result;
}

bool Scop::respectsDependences(const isl::schedule_node &node) const {
  // The schedule may cover part of the scop (Fusion.cpp schedules the
  // statements that would make a kernel serial on their own).
  isl::union_map order = node.schedule().get_map();
  isl::union_set instances = order.domain();
  return dependences.intersect_domain(instances)
      .intersect_range(instances)
      .is_subset(lexBefore(order));
}

bool Scop::isCoincident(unsigned stmt, const isl::map &outer,
                        unsigned dim) const {
  const isl::set &stmtDomain = model.domains[stmt];
  isl::union_map self = dependences.intersect_domain(isl::union_set(stmtDomain))
                            .intersect_range(isl::union_set(stmtDomain));
  isl::map sameGroup = outer.apply_range(outer.reverse());
  isl::map equal = equalAtDim(stmtDomain.space(), dim);
  return self.intersect(isl::union_map(sameGroup))
      .is_subset(isl::union_map(equal));
}
