//===- Unfusion.cpp - Kernels fused at a loss, scheduled again ------------===//
//
// Kernels of isl's maximal fusion scheduled again, kernel by kernel, where
// the fusion costs the core more than it saves: on a GPU a kernel with too
// few parallel points for the device (ScheduleOptions::minParallelPoints),
// on a CPU a kernel that runs statements at different strides in one loop
// (ScheduleOptions::unfuseStrides). Fusion.h says what each does.
//
//===----------------------------------------------------------------------===//
#include "Fusion.h"

#include "IslSupport.h"
#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>

using namespace comprehend;
using namespace comprehend::poly;

namespace {

/// A kernel with less than this share of a schedule's instances need not
/// be parallel: the sum of a split column reduction's partials (2048
/// columns of 256 partials, after the 16.7 million instances that made
/// them) may run on few work-items.
constexpr int64_t kLightKernelShare = 16;

/// The fewest parallel points of a kernel of \p schedule (topLevelKernels:
/// a kernel of a sequence nested in a set counts, a set of a layer norm
/// backward's rows and column sums), over the kernels that hold at least
/// 1/kLightKernelShare of its instances; -1 where an extent is unknown.
int64_t fewestParallelPoints(const isl::schedule &schedule) {
  int64_t total = countInstances(schedule.get_domain());
  int64_t fewest = -1;
  for (const isl::schedule_node &kernel : topLevelKernels(schedule)) {
    int64_t instances = countInstances(nodeDomain(kernel));
    if (total > 0 && instances >= 0 && instances < total / kLightKernelShare)
      continue;
    int64_t points = parallelPoints(kernel);
    if (points < 0)
      return -1;
    fewest = fewest < 0 ? points : std::min(fewest, points);
  }
  return fewest;
}

/// The statements of \p kernel unfused, where maximal fusion starves a GPU
/// (ScheduleOptions::minParallelPoints): its outermost band spans fewer
/// points than the device runs at once, and unfused, every kernel that
/// holds a fair share of the work (kLightKernelShare) gets at least twice
/// as many. nullopt where that does not hold.
std::optional<isl::schedule> unfuseKernel(const Scop &scop,
                                          const isl::set &context,
                                          const isl::schedule_node &kernel,
                                          int64_t minParallelPoints) {
  int64_t fusedPoints = parallelPoints(kernel);
  if (fusedPoints < 0 || fusedPoints >= minParallelPoints)
    return std::nullopt;
  // Fused only where the outer loop stays parallel first: unfused, the
  // initialisation of a reduction's LHS would be a kernel of its own.
  for (FusionStrategy fusion :
       {FusionStrategy::KeepOuterParallel, FusionStrategy::None}) {
    isl::schedule unfused =
        computeSchedule(scop, nodeDomain(kernel), context, fusion);
    if (fewestParallelPoints(unfused) >= 2 * fusedPoints)
      return unfused;
  }
  return std::nullopt;
}

/// Per statement that \p member (a band member's schedule) iterates, the
/// largest coefficient of its iterators, in absolute value.
llvm::SmallVector<int64_t, 4> strides(const isl::union_pw_aff &member) {
  llvm::SmallVector<int64_t, 4> result;
  auto visit = [&](const isl::pw_aff &value) {
    int64_t largest = 0;
    forEachPiece(value, [&](const isl::set &, const isl::aff &aff) {
      for (int dim = 0, e = isl_aff_dim(aff.get(), isl_dim_in); dim < e;
           ++dim) {
        isl::val coefficient = isl::manage(
            isl_aff_get_coefficient_val(aff.get(), isl_dim_in, dim));
        largest = std::max(largest, std::abs(coefficient.get_num_si()));
      }
    });
    if (largest > 0) // a statement the member runs once
      result.push_back(largest);
  };
  isl_union_pw_aff_foreach_pw_aff(
      member.get(),
      [](isl_pw_aff *value, void *user) -> isl_stat {
        (*static_cast<decltype(visit) *>(user))(isl::manage(value));
        return isl_stat_ok;
      },
      &visit);
  return result;
}

/// Whether a member of \p kernel's outermost band runs its statements at
/// different strides: maximal fusion put one statement at every second
/// point of another's loop (a 2 x 2 max-pool backward's ties count, at
/// `2 * oh`, inside the gradient's loop over h).
bool fusesStrides(const isl::schedule_node &kernel) {
  if (!kernel.isa<isl::schedule_node_band>())
    return false;
  isl::multi_union_pw_aff partial =
      kernel.as<isl::schedule_node_band>().get_partial_schedule();
  for (int member = 0, e = partial.size(); member < e; ++member) {
    llvm::SmallVector<int64_t, 4> found = strides(partial.at(member));
    if (llvm::any_of(found, [&](int64_t s) { return s != found.front(); }))
      return true;
  }
  return false;
}

/// \p kernel scheduled again fused only where the outer loop stays
/// parallel, where it fuses statements at different strides
/// (ScheduleOptions::unfuseStrides); nullopt where it does not.
std::optional<isl::schedule>
unfuseStridedKernel(const Scop &scop, const isl::set &context,
                    const isl::schedule_node &kernel) {
  if (!fusesStrides(kernel))
    return std::nullopt;
  return computeSchedule(scop, nodeDomain(kernel), context,
                         FusionStrategy::KeepOuterParallel);
}

/// The schedule with each kernel of \p fused that \p reschedule gives a
/// schedule of its own replaced by it, the others scheduled again as
/// before, in their order; nullopt where no kernel is.
std::optional<isl::schedule> rescheduleKernels(
    const Scop &scop, const isl::set &context, const isl::schedule &fused,
    llvm::function_ref<std::optional<isl::schedule>(const isl::schedule_node &)>
        reschedule) {
  llvm::SmallVector<isl::schedule_node, 4> kernels = topLevelKernels(fused);
  llvm::SmallVector<std::optional<isl::schedule>, 4> unfused;
  bool any = false;
  for (const isl::schedule_node &kernel : kernels) {
    unfused.push_back(reschedule(kernel));
    any |= unfused.back().has_value();
  }
  if (!any || kernels.size() == 1)
    return unfused.front();
  std::optional<isl::schedule> result;
  for (auto [kernel, piece] : llvm::zip(kernels, unfused)) {
    isl::schedule part = piece ? *piece
                               : scheduleDomain(scop, nodeDomain(kernel),
                                                context, FusionStrategy::Max);
    result = result ? sequenceOf(*result, part) : part;
  }
  if (!scop.respectsDependences(result->root()))
    return std::nullopt;
  return result;
}

} // namespace

std::optional<isl::schedule> comprehend::poly::unfuseForParallelism(
    const Scop &scop, const isl::set &context, const isl::schedule &fused,
    int64_t minParallelPoints) {
  if (minParallelPoints <= 0)
    return std::nullopt;
  return rescheduleKernels(
      scop, context, fused, [&](const isl::schedule_node &kernel) {
        return unfuseKernel(scop, context, kernel, minParallelPoints);
      });
}

std::optional<isl::schedule>
comprehend::poly::unfuseStrides(const Scop &scop, const isl::set &context,
                                const isl::schedule &fused) {
  return rescheduleKernels(scop, context, fused,
                           [&](const isl::schedule_node &kernel) {
                             return unfuseStridedKernel(scop, context, kernel);
                           });
}
