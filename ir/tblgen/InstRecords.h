//===- InstRecords.h - The instruction table as C++ structs -----*- C++ -*-===//
//
// Reads the records of Instructions.td (InstBase.td vocabulary) into plain
// structs the emitters walk. Malformed entries are reported through
// llvm::PrintFatalError with the record's location.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TBLGEN_INSTRECORDS_H
#define COMPREHEND_TBLGEN_INSTRECORDS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/TableGen/Record.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace comprehend::tblgen {

enum class Arity { Single, Optional, Variadic };

/// A constraint in a valued position: a predicate (`(MemRef $e, 2)`) or a
/// type function (`(SameAs $a)`).
struct Constraint {
  bool isTypeFn = false;
  std::string name;             // predicate or type function record name
  std::string desc;             // "a memref", "the type of"
  std::string function;         // C++ matcher or type function
  std::string captureVar;       // `$e` of (MemRef $e), empty if none
  std::optional<int64_t> order; // (MemRef $e, 2)
  std::string strArg;           // (OfClass "Number"), (Coop $k, "A")
  std::string refOperand;       // (SameAs $a)

  /// "a memref of order 2", "the type of 'a'".
  std::string describe() const;
};

struct ValueSpec {
  std::string name;
  Arity arity = Arity::Single;
  Constraint constraint;
  /// Operands: whether the instruction reads / writes the memref's
  /// elements, and whether a memref result refers to this operand's memory.
  bool reads = false;
  bool writes = false;
  bool viewSource = false;
};

struct PropSpec {
  std::string name;
  std::string kind; // Flag, Enum, Integer, IntegerList, Constant, Dictionary
  int64_t defaultValue = 0;
  std::vector<std::string> spellings;
  std::string cppType;
  bool alwaysPrint = false;
  /// Whether build() takes it with a default argument.
  bool hasDefault() const {
    return kind == "Flag" || kind == "Enum" || kind == "Dictionary";
  }
};

struct RegionSpec {
  std::string name;
  std::string kind; // Collective, Spmd, Mixed
  bool optional = false;
};

/// A kind expression of a `where` relation: a captured variable or
/// (Promote a, b).
struct KindExpr {
  std::string var;
  std::unique_ptr<KindExpr> lhs, rhs;
};

struct WhereSpec {
  std::string relation; // Promotable, CastAllowed, KindIn
  KindExpr lhs, rhs;
  std::string typeClass; // KindIn
};

struct InstSpec {
  const llvm::Record *record;
  std::string defName;  // GemmInst
  std::string kindName; // Gemm
  std::string mnemonic;
  std::string category;
  std::string summary;
  std::vector<PropSpec> props;
  std::vector<ValueSpec> operands;
  std::vector<ValueSpec> results;
  std::vector<RegionSpec> regions;
  std::vector<WhereSpec> where;
  std::string format;
  std::string verify;
  std::string buildHook;
  bool pure = false;
  bool terminator = false;
  std::vector<std::string> traits; // Trait def names
  /// The TableGen classes the record derives from, other than Inst
  /// (`ArithBinary`), outermost last.
  std::vector<std::string> classes;
  std::string combine; // kind name of the combining instruction
  std::string intFold, intFoldIf, realFold, boolFold, compare;
  std::string spirvInt, spirvFloat, spirvBool;
  bool spirvExt = false;
};

/// All Trait defs in definition order.
std::vector<const llvm::Record *> readTraits(const llvm::RecordKeeper &records);

/// All instructions in definition order.
std::vector<InstSpec> readInstructions(const llvm::RecordKeeper &records);

/// `transpose_a` -> `TransposeA`.
std::string toUpperCamel(llvm::StringRef name);
/// `transpose_a` -> `transposeA`, `A` -> `a`.
std::string toLowerCamel(llvm::StringRef name);
/// "an integer or floating type" for "NumberNoComplex"; empty if unknown.
std::string describeTypeClass(llvm::StringRef cls);
/// A C++ string literal for \p text.
std::string quote(llvm::StringRef text);

} // namespace comprehend::tblgen

#endif // COMPREHEND_TBLGEN_INSTRECORDS_H
