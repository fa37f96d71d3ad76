//===- KernelShape.cpp - Subgroup and work-group size of a kernel ---------===//
#include "KernelShape.h"

#include "comprehend/ir/Function.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::backend;

/// Work-items per work-group the backend aims for when nothing is asked: 16
/// keeps PoCL's work-item loops vectorizable and fills a GPU subgroup.
static constexpr unsigned kDefaultWorkItems = 16;

std::optional<KernelShape>
comprehend::backend::selectKernelShape(const ir::Function &function,
                                       const CoreInfo &core,
                                       DiagnosticEngine &diags) {
  KernelShape shape;
  shape.subgroupSize = core.defaultSubgroupSize();
  if (std::optional<int64_t> requested = function.getSubgroupSize()) {
    if (*requested <= 0 ||
        !core.supportsSubgroupSize(static_cast<unsigned>(*requested))) {
      auto diag = diags.emitError(function.getLoc())
                  << "subgroup size " << *requested << " of function '@"
                  << function.getName() << "' is not supported by target '"
                  << core.name << "' (supported:";
      for (unsigned size : core.subgroupSizes)
        diag << ' ' << size;
      diag << ")";
      return std::nullopt;
    }
    shape.subgroupSize = static_cast<unsigned>(*requested);
  }

  if (std::optional<std::array<int64_t, 2>> requested =
          function.getWorkGroupSize()) {
    // Not a structured binding: Clang 15 cannot capture one in a lambda.
    int64_t x = (*requested)[0], y = (*requested)[1];
    if (x <= 0 || y <= 0) {
      diags.emitError(function.getLoc())
          << "work-group size [" << x << ", " << y << "] of function '@"
          << function.getName() << "' must be positive";
      return std::nullopt;
    }
    if (!function.getSubgroupSize()) {
      // Pick the largest supported size that divides the first mode.
      auto fits = llvm::make_filter_range(
          core.subgroupSizes, [&](unsigned size) { return x % size == 0; });
      if (fits.begin() == fits.end()) {
        diags.emitError(function.getLoc())
            << "first work-group size mode " << x << " of function '@"
            << function.getName()
            << "' is not a multiple of any subgroup size of target '"
            << core.name << "'";
        return std::nullopt;
      }
      for (unsigned size : fits)
        shape.subgroupSize = size;
    } else if (x % shape.subgroupSize != 0) {
      diags.emitError(function.getLoc())
          << "first work-group size mode " << x << " of function '@"
          << function.getName() << "' must be a multiple of the subgroup size "
          << shape.subgroupSize;
      return std::nullopt;
    }
    if (x * y > static_cast<int64_t>(core.maxWorkGroupSize)) {
      diags.emitError(function.getLoc())
          << "work-group size " << x << "x" << y << " of function '@"
          << function.getName() << "' exceeds the maximum "
          << core.maxWorkGroupSize << " of target '" << core.name << "'";
      return std::nullopt;
    }
    shape.workGroupSize = {static_cast<unsigned>(x), static_cast<unsigned>(y)};
    return shape;
  }

  unsigned subgroups = std::max(1u, kDefaultWorkItems / shape.subgroupSize);
  shape.workGroupSize = {shape.subgroupSize * subgroups, 1};
  return shape;
}
