//===- Function.cpp - A kernel of the tensor language ---------------------===//
#include "comprehend/ir/Function.h"

using namespace comprehend::ir;

Function::Function(Context &ctx, llvm::StringRef name, Location loc)
    : ctx(&ctx), name(name.str()), loc(loc), body(RegionKind::Collective) {
  body.parentFunc = this;
}

Value *Function::addParameter(const Type *type, llvm::StringRef paramName,
                              Location paramLoc,
                              const DictionaryAttr *paramAttrs) {
  this->paramAttrs.push_back(paramAttrs);
  return body.addParameter(type, paramLoc, paramName);
}

std::optional<int64_t> Function::getSubgroupSize() const {
  if (!attrs)
    return std::nullopt;
  if (const auto *value =
          llvm::dyn_cast_or_null<IntegerAttr>(attrs->get("subgroup_size")))
    return value->getValue();
  return std::nullopt;
}

std::optional<std::array<int64_t, 2>> Function::getWorkGroupSize() const {
  if (!attrs)
    return std::nullopt;
  const auto *array =
      llvm::dyn_cast_or_null<ArrayAttr>(attrs->get("work_group_size"));
  if (!array)
    return std::nullopt;
  std::optional<llvm::SmallVector<int64_t, 4>> values = array->getAsIntegers();
  if (!values || values->size() != 2)
    return std::nullopt;
  return std::array<int64_t, 2>{(*values)[0], (*values)[1]};
}
