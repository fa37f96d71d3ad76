//===- ScalarKind.cpp - Scalar kinds, promotion and casts -----------------===//
#include "comprehend/ir/Types.h"

#include "llvm/ADT/StringSwitch.h"

using namespace comprehend::ir;

bool comprehend::ir::isInteger(ScalarKind kind) {
  return kind <= ScalarKind::Index;
}

bool comprehend::ir::isFloating(ScalarKind kind) {
  return kind >= ScalarKind::BF16 && kind <= ScalarKind::F64;
}

bool comprehend::ir::isComplex(ScalarKind kind) {
  return kind == ScalarKind::C32 || kind == ScalarKind::C64;
}

unsigned comprehend::ir::getSizeInBytes(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I8:
    return 1;
  case ScalarKind::I16:
  case ScalarKind::BF16:
  case ScalarKind::F16:
    return 2;
  case ScalarKind::I32:
  case ScalarKind::F32:
    return 4;
  case ScalarKind::I64:
  case ScalarKind::Index:
  case ScalarKind::F64:
  case ScalarKind::C32:
    return 8;
  case ScalarKind::C64:
    return 16;
  }
  return 0;
}

ScalarKind comprehend::ir::getComponentKind(ScalarKind kind) {
  if (kind == ScalarKind::C32)
    return ScalarKind::F32;
  if (kind == ScalarKind::C64)
    return ScalarKind::F64;
  return kind;
}

llvm::StringRef comprehend::ir::stringify(ScalarKind kind) {
  static constexpr llvm::StringRef names[] = {"i8",    "i16",  "i32", "i64",
                                              "index", "bf16", "f16", "f32",
                                              "f64",   "c32",  "c64"};
  return names[static_cast<unsigned>(kind)];
}

std::optional<ScalarKind> comprehend::ir::parseScalarKind(llvm::StringRef s) {
  return llvm::StringSwitch<std::optional<ScalarKind>>(s)
      .Case("i8", ScalarKind::I8)
      .Case("i16", ScalarKind::I16)
      .Case("i32", ScalarKind::I32)
      .Case("i64", ScalarKind::I64)
      .Case("index", ScalarKind::Index)
      .Case("bf16", ScalarKind::BF16)
      .Case("f16", ScalarKind::F16)
      .Case("f32", ScalarKind::F32)
      .Case("f64", ScalarKind::F64)
      .Case("c32", ScalarKind::C32)
      .Case("c64", ScalarKind::C64)
      .Default(std::nullopt);
}

/// The spec's relation matrix (rows ⪯ columns) in the order i8, i16, i32,
/// i64, bf16, f16, f32, f64, c32, c64: α ⪯ β iff every α is exactly
/// representable in β. `index` is mapped to i64 before the lookup.
static constexpr bool kPromotable[10][10] = {
    // i8 i16 i32 i64 bf16 f16 f32 f64 c32 c64
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // i8
    {0, 1, 1, 1, 0, 0, 1, 1, 1, 1}, // i16
    {0, 0, 1, 1, 0, 0, 0, 1, 0, 1}, // i32
    {0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, // i64
    {0, 0, 0, 0, 1, 0, 1, 1, 1, 1}, // bf16
    {0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, // f16
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, // f32
    {0, 0, 0, 0, 0, 0, 0, 1, 0, 1}, // f64
    {0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, // c32
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, // c64
};

static unsigned matrixIndex(ScalarKind kind) {
  unsigned i = static_cast<unsigned>(kind);
  if (kind == ScalarKind::Index)
    return static_cast<unsigned>(ScalarKind::I64);
  return kind > ScalarKind::Index ? i - 1 : i;
}

bool comprehend::ir::isPromotable(ScalarKind a, ScalarKind b) {
  if (a == b)
    return true;
  return kPromotable[matrixIndex(a)][matrixIndex(b)];
}

std::optional<ScalarKind> comprehend::ir::promote(ScalarKind a, ScalarKind b) {
  if (isPromotable(a, b))
    return b;
  if (isPromotable(b, a))
    return a;
  return std::nullopt;
}

bool comprehend::ir::isCastAllowed(ScalarKind from, ScalarKind to) {
  return !isComplex(from) || isComplex(to);
}
