//===- ScheduleTreeSupport.cpp - isl schedule trees, through isl:: --------===//
#include "ScheduleTreeSupport.h"

#include "llvm/Support/MathExtras.h"

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include <cstdlib>

using namespace comprehend::poly;

//===----------------------------------------------------------------------===//
// Calls the bindings lack
//===----------------------------------------------------------------------===//

void comprehend::poly::setSchedulerOptions(isl::ctx ctx,
                                           const SchedulerOptions &options) {
  isl_ctx *raw = ctx.get();
  isl_options_set_schedule_serialize_sccs(raw, options.serializeSccs);
  isl_options_set_schedule_whole_component(raw, options.wholeComponent);
  isl_options_set_schedule_maximize_coincidence(raw,
                                                options.maximizeCoincidence);
  isl_options_set_schedule_outer_coincidence(raw, options.outerCoincidence);
  isl_options_set_tile_scale_tile_loops(raw, options.scaleTileLoops);
  isl_options_set_tile_shift_point_loops(raw, options.shiftPointLoops);
}

isl::union_map comprehend::poly::emptyUnionMap(const isl::space &space) {
  return isl::manage(isl_union_map_empty(space.copy()));
}

isl::union_set comprehend::poly::emptyUnionSet(const isl::space &space) {
  return isl::manage(isl_union_set_empty(space.copy()));
}

isl::multi_union_pw_aff
comprehend::poly::toPartialSchedule(const isl::union_map &map) {
  return isl::manage(isl_multi_union_pw_aff_from_union_map(map.copy()));
}

isl::map comprehend::poly::equalAtDim(const isl::space &setSpace,
                                      unsigned dim) {
  return equateDims(isl::map::universe(setSpace.map_from_set()), dim, dim);
}

isl::map comprehend::poly::selectDims(const isl::space &setSpace,
                                      llvm::ArrayRef<unsigned> dims) {
  llvm::SmallVector<std::optional<isl::pw_aff>, 4> outputs;
  for (unsigned dim : dims)
    outputs.push_back(dimPwAff(setSpace, dim));
  return functionsMap(setSpace, outputs);
}

isl::set comprehend::poly::stepMovesUpTo(const isl::space &setSpace,
                                         int64_t maxStep) {
  isl_set *allowed = isl_set_universe(setSpace.copy());
  unsigned dims = isl_space_dim(setSpace.get(), isl_dim_set);
  for (unsigned dim = 0; dim + 1 < dims; ++dim)
    allowed = isl_set_fix_si(allowed, isl_dim_set, dim, 0);
  if (dims > 0) {
    allowed = isl_set_lower_bound_si(allowed, isl_dim_set, dims - 1, 0);
    allowed = isl_set_upper_bound_si(allowed, isl_dim_set, dims - 1,
                                     static_cast<int>(maxStep));
  }
  return isl::manage(allowed);
}

isl::union_map comprehend::poly::lexBefore(const isl::union_map &order) {
  return isl::manage(
      isl_union_map_lex_lt_union_map(order.copy(), order.copy()));
}

isl::multi_val
comprehend::poly::minPerMember(const isl::multi_union_pw_aff &schedule) {
  return isl::manage(isl_multi_union_pw_aff_min_multi_val(schedule.copy()));
}

isl::multi_val
comprehend::poly::maxPerMember(const isl::multi_union_pw_aff &schedule) {
  return isl::manage(isl_multi_union_pw_aff_max_multi_val(schedule.copy()));
}

isl::multi_union_pw_aff
comprehend::poly::constantOn(const isl::union_set &domain,
                             const isl::multi_val &values) {
  return isl::manage(
      isl_multi_union_pw_aff_multi_val_on_domain(domain.copy(), values.copy()));
}

isl::union_set comprehend::poly::nodeDomain(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_get_domain(node.get()));
}

isl::schedule comprehend::poly::sequenceOf(const isl::schedule &first,
                                           const isl::schedule &second) {
  return isl::manage(isl_schedule_sequence(first.copy(), second.copy()));
}

static bool isSequenceOrSet(const isl::schedule_node &node) {
  return node.isa<isl::schedule_node_sequence>() ||
         node.isa<isl::schedule_node_set>();
}

static void collectKernels(const isl::schedule_node &node,
                           llvm::SmallVectorImpl<isl::schedule_node> &out) {
  if (!isSequenceOrSet(node)) {
    out.push_back(node);
    return;
  }
  for (int child = 0, e = node.n_children(); child < e; ++child)
    collectKernels(node.child(child).child(0), out);
}

llvm::SmallVector<isl::schedule_node, 4>
comprehend::poly::topLevelKernels(const isl::schedule &schedule) {
  llvm::SmallVector<isl::schedule_node, 4> kernels;
  collectKernels(schedule.root().child(0), kernels);
  return kernels;
}

unsigned comprehend::poly::scheduleDepth(const isl::schedule_node &node) {
  return isl_schedule_node_get_schedule_depth(node.get());
}

isl::schedule_node comprehend::poly::sinkBand(const isl::schedule_node &band) {
  return isl::manage(isl_schedule_node_band_sink(band.copy()));
}

isl::schedule_node comprehend::poly::cutAt(const isl::schedule_node &node) {
  return isl::manage(isl_schedule_node_cut(node.copy()));
}

isl::schedule_node
comprehend::poly::replaceBand(const isl::schedule_node &band,
                              const isl::multi_union_pw_aff &schedule) {
  return isl::manage(isl_schedule_node_insert_partial_schedule(
      isl_schedule_node_delete(band.copy()), schedule.copy()));
}

std::string comprehend::poly::scheduleBlockText(const isl::schedule &schedule) {
  isl_printer *printer = isl_printer_to_str(schedule.ctx().get());
  printer = isl_printer_set_yaml_style(printer, ISL_YAML_STYLE_BLOCK);
  printer = isl_printer_print_schedule(printer, schedule.get());
  char *text = isl_printer_get_str(printer);
  isl_printer_free(printer);
  std::string result = text ? text : "";
  free(text);
  return result;
}

//===----------------------------------------------------------------------===//
// Band queries
//===----------------------------------------------------------------------===//

unsigned
comprehend::poly::numLeadingCoincident(const isl::schedule_node_band &band) {
  unsigned count = 0;
  while (count < band.n_member() && band.member_get_coincident(count))
    ++count;
  return count;
}

llvm::SmallVector<int64_t, 4>
comprehend::poly::bandExtents(const isl::schedule_node_band &band) {
  llvm::SmallVector<int64_t, 4> result;
  isl::multi_union_pw_aff partial =
      band.get_partial_schedule().intersect_domain(nodeDomain(band));
  isl::multi_val lo = minPerMember(partial);
  isl::multi_val hi = maxPerMember(partial);
  for (unsigned member = 0; member < band.n_member(); ++member) {
    isl::val min = lo.at(member), max = hi.at(member);
    result.push_back(min.is_int() && max.is_int()
                         ? max.get_num_si() - min.get_num_si() + 1
                         : -1);
  }
  return result;
}

/// The parallel points of \p kernel: the product of the extents of its
/// outermost band's leading coincident members (1 without such a band);
/// -1 where an extent is unknown.
int64_t comprehend::poly::parallelPoints(const isl::schedule_node &kernel) {
  if (!kernel.isa<isl::schedule_node_band>())
    return 1;
  auto band = kernel.as<isl::schedule_node_band>();
  llvm::SmallVector<int64_t, 4> extents = bandExtents(band);
  int64_t points = 1;
  for (unsigned member = 0, e = numLeadingCoincident(band); member < e;
       ++member) {
    if (extents[member] < 0)
      return -1;
    points = int64_t(std::min<uint64_t>(
        llvm::SaturatingMultiply(uint64_t(points), uint64_t(extents[member])),
        INT64_MAX));
  }
  return points;
}

/// The instances of \p domain, each statement's counted in its bounding box
/// (TC's ranges make boxes); -1 where a bound is unknown.
int64_t comprehend::poly::countInstances(const isl::union_set &domain) {
  uint64_t total = 0;
  bool known = true;
  domain.foreach_set([&](const isl::set &set) {
    uint64_t count = 1;
    for (int dim = 0, e = set.tuple_dim(); dim < e; ++dim) {
      isl::val lo = isl::manage(isl_set_dim_min_val(set.copy(), dim));
      isl::val hi = isl::manage(isl_set_dim_max_val(set.copy(), dim));
      if (!lo.is_int() || !hi.is_int()) {
        known = false;
        return;
      }
      count = llvm::SaturatingMultiply(
          count, uint64_t(hi.get_num_si() - lo.get_num_si() + 1));
    }
    total = llvm::SaturatingAdd(total, count);
  });
  return known ? int64_t(std::min<uint64_t>(total, INT64_MAX)) : -1;
}

isl::multi_val comprehend::poly::bandSizes(const isl::schedule_node_band &band,
                                           llvm::ArrayRef<int64_t> sizes) {
  isl::multi_val result =
      isl::multi_val::zero(band.get_partial_schedule().space());
  for (unsigned member = 0; member < sizes.size(); ++member)
    result = result.set_at(member, isl::val(band.ctx(), sizes[member]));
  return result;
}
