//===- Enums.cpp - Spellings of the small enumerations --------------------===//
#include "comprehend/ir/Enums.h"

#include "llvm/ADT/StringSwitch.h"

using namespace comprehend::ir;
using llvm::StringRef;

StringRef comprehend::ir::stringify(AddressSpace value) {
  return value == AddressSpace::Local ? "local" : "global";
}

StringRef comprehend::ir::stringify(MatrixUse value) {
  switch (value) {
  case MatrixUse::A:
    return "matrix_a";
  case MatrixUse::B:
    return "matrix_b";
  case MatrixUse::Acc:
    return "matrix_acc";
  }
  return "";
}

StringRef comprehend::ir::stringify(Transpose value) {
  return value == Transpose::T ? ".t" : ".n";
}

StringRef comprehend::ir::stringify(CheckedFlag value) {
  switch (value) {
  case CheckedFlag::None:
    return "";
  case CheckedFlag::Rows:
    return ".rows_checked";
  case CheckedFlag::Cols:
    return ".cols_checked";
  case CheckedFlag::Both:
    return ".both_checked";
  }
  return "";
}

StringRef comprehend::ir::stringify(MemoryScope value) {
  switch (value) {
  case MemoryScope::CrossDevice:
    return ".cross_device";
  case MemoryScope::Device:
    return ".device";
  case MemoryScope::WorkGroup:
    return ".work_group";
  case MemoryScope::Subgroup:
    return ".subgroup";
  }
  return "";
}

StringRef comprehend::ir::stringify(MemorySemantics value) {
  switch (value) {
  case MemorySemantics::Relaxed:
    return ".relaxed";
  case MemorySemantics::Acquire:
    return ".acquire";
  case MemorySemantics::Release:
    return ".release";
  case MemorySemantics::AcquireRelease:
    return ".acquire_release";
  case MemorySemantics::SequentiallyConsistent:
    return ".sequentially_consistent";
  }
  return "";
}

StringRef comprehend::ir::stringify(Comp3 value) {
  switch (value) {
  case Comp3::X:
    return ".x";
  case Comp3::Y:
    return ".y";
  case Comp3::Z:
    return ".z";
  }
  return "";
}

StringRef comprehend::ir::stringify(ReduceMode value) {
  return value == ReduceMode::Row ? ".row" : ".column";
}

StringRef comprehend::ir::stringify(RegionKind value) {
  switch (value) {
  case RegionKind::Collective:
    return "collective";
  case RegionKind::Spmd:
    return "spmd";
  case RegionKind::Mixed:
    return "mixed";
  }
  return "";
}

StringRef comprehend::ir::stringify(InstCategory value) {
  switch (value) {
  case InstCategory::Collective:
    return "collective";
  case InstCategory::Spmd:
    return "spmd";
  case InstCategory::Mixed:
    return "mixed";
  }
  return "";
}

std::optional<AddressSpace>
comprehend::ir::parseAddressSpace(StringRef spelling) {
  return llvm::StringSwitch<std::optional<AddressSpace>>(spelling)
      .Case("global", AddressSpace::Global)
      .Case("local", AddressSpace::Local)
      .Default(std::nullopt);
}

std::optional<MatrixUse> comprehend::ir::parseMatrixUse(StringRef spelling) {
  return llvm::StringSwitch<std::optional<MatrixUse>>(spelling)
      .Case("matrix_a", MatrixUse::A)
      .Case("matrix_b", MatrixUse::B)
      .Case("matrix_acc", MatrixUse::Acc)
      .Default(std::nullopt);
}
