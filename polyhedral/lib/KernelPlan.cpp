//===- KernelPlan.cpp - Dependences, kernels and tiling with isl ----------===//
//
// Dependences come from isl's dataflow analysis over the sequential schedule
// of the def (`{ S<k>[x] -> [k, x] }`): value-based read-after-write (the
// last write before each read), every earlier read before a write
// (write-after-read) and the last earlier write before a write
// (write-after-write). A dependence between two statements is then compared
// with the work mapping (see KernelPlan.h) to decide the synchronisation it
// needs.
//
//===----------------------------------------------------------------------===//
#include "comprehend/polyhedral/KernelPlan.h"

#include "IslSupport.h"
#include "StatementModel.h"

#include "llvm/ADT/STLExtras.h"

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include <cstdlib>
#include <tuple>

using namespace comprehend::poly;

/// A generous budget: dataflow over a handful of statements is cheap.
static constexpr unsigned long kPlanMaxOperations = 20'000'000;

static llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

template <typename T, typename Printer>
static std::string islText(const T &value, Printer print) {
  char *text = print(value.get());
  std::string result = text ? text : "";
  free(text);
  return result;
}

namespace {
/// Computes dependences and kernels for one def.
class Planner {
public:
  Planner(llvm::ArrayRef<ScheduledStatement> stmts, const StatementModel &model,
          const PlanOptions &options)
      : stmts(stmts), model(model), options(options) {}

  KernelPlan run();

private:
  void addDependences(Dependence::Kind kind, llvm::StringRef tensor,
                      const isl::union_access_info &info);
  SyncKind classify(const isl::map &relation, unsigned source,
                    unsigned target) const;
  bool isGroupable(unsigned stmt) const {
    return stmts[stmt].lhsIndices.size() >= options.groupDims;
  }
  /// The group coordinates `{ [g...] }` the statement's domain covers, for
  /// sizes >= 1 (a reduction over `k < K` exists only for `K >= 1`).
  isl::set groupDomain(unsigned stmt) const {
    const isl::set &domain = model.domains[stmt];
    isl::set positive = makeParamContext(domain.space().params(), {});
    return domain.apply(lhsProjection(domain, stmts[stmt], options.groupDims))
        .intersect_params(positive);
  }

  llvm::ArrayRef<ScheduledStatement> stmts;
  const StatementModel &model;
  const PlanOptions &options;
  KernelPlan plan;
};
} // namespace

SyncKind Planner::classify(const isl::map &relation, unsigned source,
                           unsigned target) const {
  const ScheduledStatement &from = stmts[source], &to = stmts[target];
  if (!isGroupable(source) || !isGroupable(target))
    return SyncKind::NewLaunch;
  const isl::set &fromDomain = model.domains[source];
  const isl::set &toDomain = model.domains[target];
  if (!relation.is_subset(
          equalLhsDims(fromDomain, from, toDomain, to, options.groupDims)))
    return SyncKind::NewLaunch;
  // Same work-item: the statements map their LHS indices alike and every
  // dependence keeps all of them.
  unsigned numDims = from.lhsIndices.size();
  if (numDims == to.lhsIndices.size() &&
      relation.is_subset(equalLhsDims(fromDomain, from, toDomain, to, numDims)))
    return SyncKind::None;
  return SyncKind::Barrier;
}

void Planner::addDependences(Dependence::Kind kind, llvm::StringRef tensor,
                             const isl::union_access_info &info) {
  isl::union_map relations =
      info.set_schedule_map(model.schedule).compute_flow().may_dependence();
  relations.foreach_map([&](isl::map relation) {
    auto indexOf = [&](enum isl_dim_type type) {
      const char *name = isl_map_get_tuple_name(relation.get(), type);
      return static_cast<unsigned>(std::strtoul(name + 1, nullptr, 10));
    };
    unsigned source = indexOf(isl_dim_in), target = indexOf(isl_dim_out);
    // Dependences inside a statement are its own business (reductions).
    if (source == target || relation.is_empty())
      return;
    Dependence dependence;
    dependence.source = source;
    dependence.target = target;
    dependence.kind = kind;
    dependence.tensor = tensor.str();
    dependence.sync = classify(relation, source, target);
    dependence.relation = islText(relation, isl_map_to_str);
    plan.dependences.push_back(std::move(dependence));
  });
}

KernelPlan Planner::run() {
  for (unsigned index = 0; index < stmts.size(); ++index)
    plan.order.push_back(index);

  for (const auto &[tensor, accesses] : model.accesses) {
    using Kind = Dependence::Kind;
    addDependences(Kind::ReadAfterWrite, tensor,
                   isl::union_access_info(accesses.reads)
                       .set_must_source(accesses.writes));
    addDependences(
        Kind::WriteAfterRead, tensor,
        isl::union_access_info(accesses.writes).set_may_source(accesses.reads));
    addDependences(Kind::WriteAfterWrite, tensor,
                   isl::union_access_info(accesses.writes)
                       .set_must_source(accesses.writes));
  }
  llvm::stable_sort(plan.dependences, [](const Dependence &lhs,
                                         const Dependence &rhs) {
    return std::tie(lhs.source, lhs.target) < std::tie(rhs.source, rhs.target);
  });

  // Greedy partition in textual order: a statement joins the current kernel
  // unless some dependence from a statement of that kernel crosses
  // work-groups or the two cover different group coordinates.
  for (unsigned stmt : plan.order) {
    if (!plan.kernels.empty()) {
      Kernel &current = plan.kernels.back();
      unsigned first = current.statements.front();
      bool newLaunch = !isGroupable(stmt) || !isGroupable(first) ||
                       !groupDomain(stmt).is_equal(groupDomain(first));
      bool barrier = false;
      for (const Dependence &dependence : plan.dependences) {
        if (dependence.target != stmt ||
            !llvm::is_contained(current.statements, dependence.source))
          continue;
        newLaunch |= dependence.sync == SyncKind::NewLaunch;
        barrier |= dependence.sync == SyncKind::Barrier;
      }
      if (!newLaunch) {
        current.statements.push_back(stmt);
        current.barrierBefore.push_back(barrier);
        continue;
      }
    }
    plan.kernels.push_back(Kernel{{stmt}, {false}});
  }
  return std::move(plan);
}

llvm::Expected<ScheduledStatement> comprehend::poly::makeScheduledStatement(
    const StatementInfo &stmt, const StatementRanges &ranges, bool readsLhs) {
  ScheduledStatement result;
  result.lhsTensor = stmt.lhsTensor;
  result.lhsIndices = stmt.lhsIndices;
  for (const VarRange &range : ranges.ranges) {
    if (range.loExpr.hasSelect() || range.hiExpr.hasSelect())
      return planError("the range of '" + range.var + "' ([" +
                       range.loExpr.str() + ", " + range.hiExpr.str() +
                       ")) has no affine form");
    result.iterators.push_back(range.var);
    result.lo.push_back(range.loExpr);
    result.hi.push_back(range.hiExpr);
  }
  result.reads = stmt.accesses;
  result.readsLhs = readsLhs;
  return result;
}

llvm::Expected<KernelPlan>
comprehend::poly::planKernels(llvm::ArrayRef<std::string> params,
                              llvm::ArrayRef<ScheduledStatement> stmts,
                              const PlanOptions &options) {
  IslContext ctx;
  MaxOperationsGuard guard(ctx, kPlanMaxOperations);
  try {
    llvm::Expected<StatementModel> model =
        buildStatementModel(ctx, params, stmts);
    if (!model)
      return model.takeError();
    return Planner(stmts, *model, options).run();
  } catch (const isl::exception &error) {
    return planError(llvm::Twine("kernel planning failed in isl: ") +
                     error.what());
  }
}
