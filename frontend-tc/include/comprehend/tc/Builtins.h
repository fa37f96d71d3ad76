//===- Builtins.h - TC's built-in math functions ----------------*- C++ -*-===//
//
// TC's builtin table (the CUDA math functions of tc/lang/builtins.h). The
// names are reserved: no tensor, size variable, index or let may use them.
// `min` and `max` are operators, not builtins.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_BUILTINS_H
#define COMPREHEND_TC_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace comprehend::tc {

/// The number of arguments of builtin \p name, or nullopt if \p name is not
/// a builtin.
std::optional<unsigned> getBuiltinArity(llvm::StringRef name);

/// Evaluates builtin \p name in double precision (the reference evaluator's
/// semantics). \p args has the builtin's arity.
double evaluateBuiltin(llvm::StringRef name, llvm::ArrayRef<double> args);

/// The function evaluateBuiltin calls for \p name (null if \p name is not a
/// builtin), to look the name up once rather than at every call.
using BuiltinFunction = double (*)(llvm::ArrayRef<double>);
BuiltinFunction getBuiltinFunction(llvm::StringRef name);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_BUILTINS_H
