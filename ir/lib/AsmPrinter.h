//===- AsmPrinter.h - Printer state shared by the printer files -*- C++ -*-===//
//
// Printer.cpp prints programs, functions, regions and the generic format
// directives; CustomPrinters.cpp prints the `custom<...>` hooks. Both write
// through the spacing helpers here, which put single spaces between words
// and none inside `x[i]` or before `,`.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_ASMPRINTER_H
#define COMPREHEND_IR_LIB_ASMPRINTER_H

#include "AsmFormat.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace comprehend::ir::detail {

class AsmPrinter {
public:
  explicit AsmPrinter(llvm::raw_ostream &os) : os(os) {}

  /// Names every value of \p function: `%name` (unique per function) or a
  /// number in order of appearance.
  void nameValues(const Function &function);
  /// Names the values of a detached region tree rooted at \p inst.
  void nameValues(const Instruction &inst);

  void printFunction(const Function &function);
  void printInstruction(const Instruction &inst);
  void printRegion(const Region &region);
  void setIndent(unsigned newIndent) { indent = newIndent; }

  //===--------------------------------------------------------------------===//
  // Spacing helpers
  //===--------------------------------------------------------------------===//

  /// Writes \p text after a space if one is pending and \p spaceBefore.
  void emit(llvm::StringRef text, bool spaceBefore = true,
            bool spaceAfter = true);
  /// A literal of a format with its conventional spacing.
  void emitLiteral(llvm::StringRef text);
  void emitValue(const Value *value) { emit(getName(value)); }
  void emitValueList(llvm::ArrayRef<Value *> values);
  void emitType(const Type *type);
  void emitInteger(int64_t value) { emit(std::to_string(value)); }
  void emitConstant(const ConstantValue &value);
  /// `: type` of a result.
  void emitResultType(const Type *type);
  void emitDictionary(const DictionaryAttr *dict);

  /// The printed name of \p value, `%...`; `%<unknown>` for values outside
  /// the named scope (broken IR must still print).
  std::string getName(const Value *value) const;

  /// Prints `custom<Name>` of \p inst (CustomPrinters.cpp).
  void printCustom(const Instruction &inst, const FormatElement &element);

private:
  void nameValue(const Value *value);
  void nameRegion(const Region &region);
  void nameInstruction(const Instruction &inst);
  void printModifiers(const Instruction &inst, const FormatElement &element);
  void printFormat(const Instruction &inst, const AsmFormat &format);
  void newLine();

  llvm::raw_ostream &os;
  unsigned indent = 0;
  bool pendingSpace = false;
  llvm::DenseMap<const Value *, std::string> names;
  llvm::StringSet<> usedNames;
  llvm::StringSet<> reservedNames;
  unsigned nextNumber = 0;
};

} // namespace comprehend::ir::detail

#endif // COMPREHEND_IR_LIB_ASMPRINTER_H
