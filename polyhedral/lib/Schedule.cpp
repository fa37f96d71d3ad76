//===- Schedule.cpp - The mapper's stages, in order -----------------------===//
//
// mapSchedule runs the four stages of the mapper, each in a file of its own
// with a small interface to the next:
//   1. Dependences.cpp (Scop.h): the scop of the def and its dependences;
//   2. Fusion.cpp (Fusion.h): isl's schedule, reshaped where isl fused too
//      much or too little for the mapping;
//   3. Tiling.cpp and Mapping.cpp (Mapping.h): the tiles of each kernel, and
//      its loops marked for work-groups and work-items;
//   4. AstTranslation.cpp (AstTranslation.h): isl's AST of the mapped tree,
//      as the mapper's AST.
//
//===----------------------------------------------------------------------===//
#include "comprehend/polyhedral/Schedule.h"

#include "AstTranslation.h"
#include "Fusion.h"
#include "IslSupport.h"
#include "Mapping.h"
#include "Scop.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TimeProfiler.h"

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

/// The stages, in order; isl errors escape as isl::exception.
static llvm::Expected<MappedSchedule>
runStages(const IslContext &ctx, llvm::ArrayRef<std::string> params,
          llvm::ArrayRef<ScheduledStatement> stmts,
          const ScheduleOptions &options) {
  llvm::Expected<Scop> scop = buildScop(ctx, params, stmts);
  if (!scop)
    return scop.takeError();
  isl::set context = makeParamContext(
      makeParamSpace(ctx, params),
      llvm::SmallVector<std::optional<int64_t>, 4>(params.size()));
  FusedSchedule fused = scheduleAndFuse(*scop, context, options);
  MappedTree mapped = mapKernels(*scop, options, fused.schedule);
  llvm::Expected<MappedSchedule> result =
      buildAst(mapped.schedule, context, params, scop->origin);
  if (!result)
    return result.takeError();
  result->usedGroupWork = fused.usedGroupWork || mapped.usedGroupWork;
  result->usedVectorRuns = mapped.usedVectorRuns;
  return result;
}

llvm::Expected<MappedSchedule>
comprehend::poly::mapSchedule(llvm::ArrayRef<std::string> params,
                              llvm::ArrayRef<ScheduledStatement> stmts,
                              const ScheduleOptions &options) {
  if (stmts.empty())
    return scheduleError("a def without statements has no schedule");
  llvm::TimeTraceScope scope("isl schedule and mapping");
  IslContext ctx;
  MaxOperationsGuard guard(ctx, scheduleMaxOperations);
  try {
    return runStages(ctx, params, stmts, options);
  } catch (const isl::exception &error) {
    // Past the quota isl fails in the call that hit it or, with a bare
    // "NULL input", in whichever call comes next; name the quota.
    if (dynamic_cast<const isl::exception_quota *>(&error) ||
        ctx.quotaExceeded())
      return scheduleError(llvm::Twine("isl gave up after ") +
                           llvm::Twine(scheduleMaxOperations.getValue()) +
                           " operations, its quota for one schedule");
    return scheduleError(llvm::Twine("scheduling failed in isl: ") +
                         error.what());
  }
}
