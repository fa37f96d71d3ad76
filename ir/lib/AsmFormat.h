//===- AsmFormat.h - The `format` strings of the instruction table -*- C++
//-*-===//
//
// The parser and printer interpret each instruction's `format` (the
// directives below; docs/design.md "Adding an instruction") at run time. A
// format is split once into elements:
//
//   $name                 a property, operand group or region of the
//                         descriptor (resolved by name)
//   `x` or bare , : [ ]   literal punctuation or keyword
//   type($result)         `:` followed by the type of a result
//   attr-dict             an optional dictionary attribute property
//   attr-dict-with-keyword  the same after the keyword `attributes`
//   custom<Name>($a, $b)  a hand-written hook pair
//
// Consecutive modifier properties (flags and enums) form one group, whose
// modifiers are accepted in any order (`gemm.t.atomic.n`).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_ASMFORMAT_H
#define COMPREHEND_IR_LIB_ASMFORMAT_H

#include "comprehend/ir/InstDescriptor.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace comprehend::ir {

struct FormatElement {
  enum class Kind {
    Literal,   ///< text: the punctuation or keyword
    Modifiers, ///< indices: consecutive flag/enum properties
    Property,  ///< index: an integer, integer-list, constant or dictionary
               ///< property
    Operand,   ///< index: an operand group
    Region,    ///< index: a region
    Type,      ///< index: a result whose type is written as `: type`
    AttrDict,  ///< index: the dictionary property, optional `{...}`
    AttrDictWithKeyword, ///< index: the same, written `attributes {...}`
    Custom ///< text: the hook name, index: its CustomFormat; args: its
           ///< `$name` arguments
  };
  FormatElement(Kind kind, llvm::StringRef text, unsigned index = 0)
      : kind(kind), text(text), index(index) {}

  Kind kind;
  llvm::StringRef text;
  unsigned index;
  llvm::SmallVector<unsigned, 4> indices;
  llvm::SmallVector<llvm::StringRef, 4> args;
};

/// One enumerator per distinct `custom<Name>` of the table's formats; the
/// parser and printer dispatch on it to their parseName / printName hooks.
enum class CustomFormat : uint8_t {
#define COMPREHEND_CUSTOM_FORMAT(Name) Name,
#include "comprehend/ir/InstCustomFormats.inc"
};

/// A format split into elements.
struct AsmFormat {
  llvm::SmallVector<FormatElement, 8> elements;
};

/// The format of \p kind, split once and cached. Returns null (with the
/// reason in \p error) if the table's format string is malformed.
const AsmFormat *getAsmFormat(InstKind kind, std::string *error = nullptr);

/// Splits \p format of \p desc; exposed for tests of the table.
bool parseAsmFormat(const InstDescriptor &desc, AsmFormat &result,
                    std::string &error);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_ASMFORMAT_H
