//===- Constraints.cpp - Predicates of the instruction table --------------===//
#include "Constraints.h"

#include "llvm/ADT/StringSwitch.h"

using namespace comprehend::ir;
using namespace comprehend::ir::constraints;
using llvm::StringRef;

std::optional<TypeClass> constraints::parseTypeClass(StringRef name) {
  return llvm::StringSwitch<std::optional<TypeClass>>(name)
      .Case("Number", TypeClass::Number)
      .Case("NumberNoComplex", TypeClass::NumberNoComplex)
      .Case("Integer", TypeClass::Integer)
      .Case("BoolOrInteger", TypeClass::BoolOrInteger)
      .Case("Complex", TypeClass::Complex)
      .Case("Floating", TypeClass::Floating)
      .Case("FloatingOrComplex", TypeClass::FloatingOrComplex)
      .Default(std::nullopt);
}

StringRef constraints::describeTypeClass(TypeClass cls) {
  switch (cls) {
  case TypeClass::Number:
    return "a number type";
  case TypeClass::NumberNoComplex:
    return "an integer or floating type";
  case TypeClass::Integer:
    return "an integer type";
  case TypeClass::BoolOrInteger:
    return "bool or an integer type";
  case TypeClass::Complex:
    return "a complex type";
  case TypeClass::Floating:
    return "a floating type";
  case TypeClass::FloatingOrComplex:
    return "a floating or complex type";
  }
  return "";
}

bool constraints::isKindIn(ScalarKind kind, TypeClass cls) {
  switch (cls) {
  case TypeClass::Number:
    return true;
  case TypeClass::NumberNoComplex:
    return !isComplex(kind);
  case TypeClass::Integer:
  case TypeClass::BoolOrInteger:
    return isInteger(kind);
  case TypeClass::Complex:
    return isComplex(kind);
  case TypeClass::Floating:
    return isFloating(kind);
  case TypeClass::FloatingOrComplex:
    return !isInteger(kind);
  }
  return false;
}

bool constraints::matchAny(const Type *type, ScalarKind *, int64_t, StringRef) {
  return type != nullptr;
}

bool constraints::matchBool(const Type *type, ScalarKind *, int64_t,
                            StringRef) {
  return llvm::isa_and_nonnull<BoolType>(type);
}

static bool isScalarOf(const Type *type, ScalarKind expected) {
  const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type);
  return scalar && scalar->getScalarKind() == expected;
}

bool constraints::matchIndex(const Type *type, ScalarKind *kind, int64_t,
                             StringRef) {
  *kind = ScalarKind::Index;
  return isScalarOf(type, ScalarKind::Index);
}

bool constraints::matchI32(const Type *type, ScalarKind *kind, int64_t,
                           StringRef) {
  *kind = ScalarKind::I32;
  return isScalarOf(type, ScalarKind::I32);
}

bool constraints::matchNumber(const Type *type, ScalarKind *kind, int64_t,
                              StringRef) {
  const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type);
  if (!scalar)
    return false;
  *kind = scalar->getScalarKind();
  return true;
}

bool constraints::matchInteger(const Type *type, ScalarKind *kind, int64_t,
                               StringRef) {
  const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type);
  if (!scalar || !scalar->isInteger())
    return false;
  *kind = scalar->getScalarKind();
  return true;
}

bool constraints::matchMemRef(const Type *type, ScalarKind *kind, int64_t order,
                              StringRef) {
  const auto *memref = llvm::dyn_cast_or_null<MemRefType>(type);
  if (!memref || (order >= 0 && memref->getOrder() != order))
    return false;
  *kind = memref->getElementKind();
  return true;
}

bool constraints::matchGroup(const Type *type, ScalarKind *kind, int64_t,
                             StringRef) {
  const auto *group = llvm::dyn_cast_or_null<GroupType>(type);
  if (!group)
    return false;
  *kind = group->getMemRefType()->getElementKind();
  return true;
}

bool constraints::matchMemRefOrGroup(const Type *type, ScalarKind *kind,
                                     int64_t order, StringRef arg) {
  return matchMemRef(type, kind, order, arg) ||
         matchGroup(type, kind, order, arg);
}

bool constraints::matchCoop(const Type *type, ScalarKind *kind, int64_t,
                            StringRef use) {
  const auto *coop = llvm::dyn_cast_or_null<CoopMatrixType>(type);
  if (!coop)
    return false;
  if (!use.empty()) {
    MatrixUse expected = llvm::StringSwitch<MatrixUse>(use)
                             .Case("A", MatrixUse::A)
                             .Case("B", MatrixUse::B)
                             .Default(MatrixUse::Acc);
    if (coop->getUse() != expected)
      return false;
  }
  *kind = coop->getComponentKind();
  return true;
}

bool constraints::matchVector(const Type *type, ScalarKind *kind, int64_t,
                              StringRef) {
  const auto *vector = llvm::dyn_cast_or_null<VectorType>(type);
  if (!vector)
    return false;
  *kind = vector->getElementKind();
  return true;
}

bool constraints::matchPart(const Type *type, ScalarKind *kind, int64_t order,
                            StringRef) {
  return matchNumber(type, kind, order, {}) ||
         matchVector(type, kind, order, {});
}

// Vectors (lower-coopmatrix's parts) go wherever coopmatrices go: through
// arithmetic, casts, constants and control flow.
bool constraints::matchNumberOrCoop(const Type *type, ScalarKind *kind,
                                    int64_t order, StringRef) {
  return matchNumber(type, kind, order, {}) ||
         matchCoop(type, kind, order, {}) || matchVector(type, kind, order, {});
}

bool constraints::matchReturnType(const Type *type, ScalarKind *kind,
                                  int64_t order, StringRef) {
  return matchBool(type, kind, order, {}) ||
         matchNumberOrCoop(type, kind, order, {});
}

bool constraints::matchClass(const Type *type, ScalarKind *kind, int64_t,
                             StringRef arg) {
  std::optional<TypeClass> cls = parseTypeClass(arg);
  assert(cls && "unknown type class in the instruction table");
  if (llvm::isa_and_nonnull<BoolType>(type))
    return *cls == TypeClass::BoolOrInteger;
  const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type);
  if (!scalar || !isKindIn(scalar->getScalarKind(), *cls))
    return false;
  *kind = scalar->getScalarKind();
  return true;
}

bool constraints::matchClassOrCoop(const Type *type, ScalarKind *kind,
                                   int64_t order, StringRef arg) {
  if (matchClass(type, kind, order, arg))
    return true;
  std::optional<ScalarKind> component;
  if (llvm::isa_and_nonnull<CoopMatrixType, VectorType>(type))
    component = getScalarOrComponentKind(type);
  if (!component || !isKindIn(*component, *parseTypeClass(arg)))
    return false;
  *kind = *component;
  return true;
}

bool constraints::matchClassOrVector(const Type *type, ScalarKind *kind,
                                     int64_t order, StringRef arg) {
  if (matchClass(type, kind, order, arg))
    return true;
  const auto *vector = llvm::dyn_cast_or_null<VectorType>(type);
  // Vectors are real: complex math is expanded per value by the emitter.
  if (!vector || isComplex(vector->getElementKind()) ||
      !isKindIn(vector->getElementKind(), *parseTypeClass(arg)))
    return false;
  *kind = vector->getElementKind();
  return true;
}

const Type *constraints::sameType(const Type *type) { return type; }

const Type *constraints::realType(const Type *type) {
  if (const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type))
    return ScalarType::get(type->getContext(),
                           getComponentKind(scalar->getScalarKind()));
  if (const auto *coop = llvm::dyn_cast_or_null<CoopMatrixType>(type))
    return coop->withComponent(getComponentKind(coop->getComponentKind()));
  return type;
}

const Type *constraints::elementType(const Type *type) {
  if (const auto *memref = llvm::dyn_cast_or_null<MemRefType>(type))
    return memref->getElementType();
  if (const auto *group = llvm::dyn_cast_or_null<GroupType>(type))
    return group->getMemRefType();
  return nullptr;
}

ScalarKind constraints::captureKind(const Type *type) {
  ScalarKind kind = ScalarKind::I8;
  bool matched = matchNumberOrCoop(type, &kind, -1, {}) ||
                 matchMemRefOrGroup(type, &kind, -1, {});
  assert(matched && "operand type has no scalar kind to capture");
  (void)matched;
  return kind;
}
