//===- Constraints.h - Predicates of the instruction table ------*- C++ -*-===//
//
// The C++ side of the predicates in InstBase.td. Every matcher has the same
// signature so the generated checks are uniform:
//
//   bool matchX(const Type *type, ScalarKind *kind, int64_t order,
//               llvm::StringRef arg);
//
// It returns whether \p type satisfies the predicate and stores the
// captured scalar kind (element, component or scalar kind) in \p kind.
// \p order is the required memref order or -1; \p arg the string argument
// (a TypeClass name or a matrix use). Null types never match.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_CONSTRAINTS_H
#define COMPREHEND_IR_LIB_CONSTRAINTS_H

#include "comprehend/ir/Types.h"

#include "llvm/ADT/StringRef.h"

namespace comprehend::ir::constraints {

/// Classes of scalar types named in the table (`(OfClass "Integer")`).
enum class TypeClass {
  Number,
  NumberNoComplex,
  Integer,
  BoolOrInteger,
  Complex,
  Floating,
  FloatingOrComplex
};
std::optional<TypeClass> parseTypeClass(llvm::StringRef name);
/// "an integer or floating type".
llvm::StringRef describeTypeClass(TypeClass cls);
bool isKindIn(ScalarKind kind, TypeClass cls);

bool matchAny(const Type *type, ScalarKind *kind, int64_t order,
              llvm::StringRef arg);
bool matchBool(const Type *type, ScalarKind *kind, int64_t order,
               llvm::StringRef arg);
bool matchIndex(const Type *type, ScalarKind *kind, int64_t order,
                llvm::StringRef arg);
bool matchI32(const Type *type, ScalarKind *kind, int64_t order,
              llvm::StringRef arg);
bool matchNumber(const Type *type, ScalarKind *kind, int64_t order,
                 llvm::StringRef arg);
bool matchInteger(const Type *type, ScalarKind *kind, int64_t order,
                  llvm::StringRef arg);
bool matchMemRef(const Type *type, ScalarKind *kind, int64_t order,
                 llvm::StringRef arg);
bool matchGroup(const Type *type, ScalarKind *kind, int64_t order,
                llvm::StringRef arg);
bool matchMemRefOrGroup(const Type *type, ScalarKind *kind, int64_t order,
                        llvm::StringRef arg);
bool matchCoop(const Type *type, ScalarKind *kind, int64_t order,
               llvm::StringRef arg);
bool matchVector(const Type *type, ScalarKind *kind, int64_t order,
                 llvm::StringRef arg);
/// A number type or a vector.
bool matchPart(const Type *type, ScalarKind *kind, int64_t order,
               llvm::StringRef arg);
bool matchNumberOrCoop(const Type *type, ScalarKind *kind, int64_t order,
                       llvm::StringRef arg);
bool matchReturnType(const Type *type, ScalarKind *kind, int64_t order,
                     llvm::StringRef arg);
bool matchClass(const Type *type, ScalarKind *kind, int64_t order,
                llvm::StringRef arg);
bool matchClassOrCoop(const Type *type, ScalarKind *kind, int64_t order,
                      llvm::StringRef arg);
bool matchClassOrVector(const Type *type, ScalarKind *kind, int64_t order,
                        llvm::StringRef arg);

/// Type functions; null when undefined for \p type.
const Type *sameType(const Type *type);
/// The component type of a complex scalar or coopmatrix; else \p type.
const Type *realType(const Type *type);
/// The element type of a memref; the memref type of a group.
const Type *elementType(const Type *type);

/// The scalar kind a matcher would capture from \p type (builders use it to
/// infer result types); asserts that there is one.
ScalarKind captureKind(const Type *type);

} // namespace comprehend::ir::constraints

#endif // COMPREHEND_IR_LIB_CONSTRAINTS_H
