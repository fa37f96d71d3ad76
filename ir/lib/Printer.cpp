//===- Printer.cpp - Programs, functions and format directives ------------===//
#include "AsmPrinter.h"

#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Region.h"
#include "comprehend/ir/Types.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

//===----------------------------------------------------------------------===//
// Value names
//===----------------------------------------------------------------------===//

/// Visits the values of \p region in order of appearance in the text:
/// an instruction's results, then its regions' parameters and contents.
template <typename Fn> static void walkValues(const Instruction &inst, Fn &&fn);

template <typename Fn> static void walkValues(const Region &region, Fn &&fn) {
  for (const Value *param : region.getParameters())
    fn(param);
  for (const Instruction &inst : region)
    walkValues(inst, fn);
}

template <typename Fn>
static void walkValues(const Instruction &inst, Fn &&fn) {
  for (const Value *result : inst.getResults())
    fn(result);
  for (unsigned i = 0; i < inst.getNumRegions(); ++i)
    walkValues(inst.getRegion(i), fn);
}

void AsmPrinter::nameValue(const Value *value) {
  if (!value->hasName()) {
    names[value] = "%" + std::to_string(nextNumber++);
    return;
  }
  llvm::StringRef name = value->getName();
  std::string unique = name.str();
  // A name seen before in this function gets the first `_N` suffix that no
  // value of the function is called.
  for (unsigned suffix = 1; usedNames.contains(unique); ++suffix) {
    std::string candidate = (name + "_" + llvm::Twine(suffix)).str();
    if (!reservedNames.contains(candidate))
      unique = std::move(candidate);
  }
  usedNames.insert(unique);
  names[value] = "%" + unique;
}

void AsmPrinter::nameValues(const Function &function) {
  names.clear();
  usedNames.clear();
  reservedNames.clear();
  nextNumber = 0;
  walkValues(function.getBody(), [&](const Value *value) {
    if (value->hasName())
      reservedNames.insert(value->getName());
  });
  walkValues(function.getBody(), [&](const Value *value) { nameValue(value); });
}

void AsmPrinter::nameValues(const Instruction &inst) {
  const Region *parent = inst.getParentRegion();
  if (const Function *function =
          parent ? parent->getEnclosingFunction() : nullptr) {
    nameValues(*function);
    return;
  }
  walkValues(inst, [&](const Value *value) {
    if (value->hasName())
      reservedNames.insert(value->getName());
  });
  walkValues(inst, [&](const Value *value) { nameValue(value); });
}

std::string AsmPrinter::getName(const Value *value) const {
  auto it = names.find(value);
  if (it == names.end())
    return "%<unknown>";
  return it->second;
}

//===----------------------------------------------------------------------===//
// Spacing helpers
//===----------------------------------------------------------------------===//

void AsmPrinter::emit(llvm::StringRef text, bool spaceBefore, bool spaceAfter) {
  if (pendingSpace && spaceBefore)
    os << ' ';
  os << text;
  pendingSpace = spaceAfter;
}

void AsmPrinter::emitLiteral(llvm::StringRef text) {
  if (text == ",")
    return emit(text, /*spaceBefore=*/false);
  if (text == "[")
    return emit(text, /*spaceBefore=*/false, /*spaceAfter=*/false);
  if (text == "]" || text == ")")
    return emit(text, /*spaceBefore=*/false);
  if (text == "(")
    return emit(text, /*spaceBefore=*/true, /*spaceAfter=*/false);
  emit(text);
}

void AsmPrinter::emitValueList(llvm::ArrayRef<Value *> values) {
  for (unsigned i = 0; i < values.size(); ++i) {
    if (i != 0)
      emitLiteral(",");
    emitValue(values[i]);
  }
}

void AsmPrinter::emitType(const Type *type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  emit(text);
}

void AsmPrinter::emitResultType(const Type *type) {
  emit(":");
  emitType(type);
}

void AsmPrinter::emitDictionary(const DictionaryAttr *dict) {
  std::string text;
  llvm::raw_string_ostream(text) << *dict;
  emit(text);
}

/// The shortest decimal text that reads back as \p value and lexes as a
/// floating constant (never as an integer).
static std::string formatFloating(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  auto roundTrips = [&](const std::string &text) {
    return std::strtod(text.c_str(), nullptr) == value;
  };
  auto format = [](const char *spec, int precision, double value) {
    llvm::SmallString<32> buffer;
    llvm::raw_svector_ostream(buffer) << llvm::format(spec, precision, value);
    return buffer.str().str();
  };
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    text = format("%.*g", precision, value);
    if (roundTrips(text))
      break;
  }
  // Plain notation where it is short: 1000.0 rather than 1e+03.
  double magnitude = std::fabs(value);
  if (text.find('e') != std::string::npos && magnitude >= 1e-4 &&
      magnitude < 1e16) {
    for (int decimals = 1; decimals <= 20; ++decimals) {
      std::string fixed = format("%.*f", decimals, value);
      if (roundTrips(fixed)) {
        text = fixed;
        break;
      }
    }
  }
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

void AsmPrinter::emitConstant(const ConstantValue &value) {
  if (const bool *b = std::get_if<bool>(&value))
    return emit(*b ? "true" : "false");
  if (const int64_t *i = std::get_if<int64_t>(&value))
    return emitInteger(*i);
  if (const double *d = std::get_if<double>(&value))
    return emit(formatFloating(*d));
  const auto &c = std::get<std::complex<double>>(value);
  emit("[" + formatFloating(c.real()) + ", " + formatFloating(c.imag()) + "]");
}

void AsmPrinter::newLine() {
  os << '\n';
  os.indent(indent);
  pendingSpace = false;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

void AsmPrinter::printModifiers(const Instruction &inst,
                                const FormatElement &element) {
  const InstDescriptor &desc = inst.getDescriptor();
  unsigned n = element.indices.size();
  llvm::SmallVector<bool, 4> shown(n, false);
  for (unsigned i = 0; i < n; ++i) {
    unsigned index = element.indices[i];
    const PropertyDescriptor &prop = desc.properties[index];
    const Property &value = inst.getProperty(index);
    if (prop.kind == PropertyKind::Flag) {
      const bool *set = std::get_if<bool>(&value);
      shown[i] = set && *set;
    } else if (const int64_t *e = std::get_if<int64_t>(&value)) {
      shown[i] = prop.alwaysPrint || *e != prop.defaultValue;
    }
  }
  // Repeated enums are positional: a later one shown forces the earlier ones
  // with the same spellings (`gemm.n.t`).
  for (unsigned j = n; j-- > 0;) {
    if (!shown[j])
      continue;
    const PropertyDescriptor &later = desc.properties[element.indices[j]];
    for (unsigned i = 0; i < j; ++i) {
      const PropertyDescriptor &earlier = desc.properties[element.indices[i]];
      if (earlier.kind == PropertyKind::Enum &&
          earlier.spellings.equals(later.spellings))
        shown[i] = true;
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    if (!shown[i])
      continue;
    unsigned index = element.indices[i];
    const PropertyDescriptor &prop = desc.properties[index];
    unsigned which = 0;
    if (prop.kind == PropertyKind::Enum)
      which = static_cast<unsigned>(std::get<int64_t>(inst.getProperty(index)));
    if (which < prop.spellings.size())
      emit(prop.spellings[which], /*spaceBefore=*/false);
  }
}

void AsmPrinter::printFormat(const Instruction &inst, const AsmFormat &format) {
  for (const FormatElement &element : format.elements) {
    switch (element.kind) {
    case FormatElement::Kind::Literal:
      emitLiteral(element.text);
      break;
    case FormatElement::Kind::Modifiers:
      printModifiers(inst, element);
      break;
    case FormatElement::Kind::Property: {
      const Property &value = inst.getProperty(element.index);
      if (const int64_t *i = std::get_if<int64_t>(&value)) {
        emitInteger(*i);
      } else if (const auto *c = std::get_if<ConstantValue>(&value)) {
        emitConstant(*c);
      } else if (const auto *list = std::get_if<IntegerList>(&value)) {
        emitLiteral("[");
        for (unsigned k = 0; k < list->size(); ++k) {
          if (k != 0)
            emitLiteral(",");
          emitInteger((*list)[k]);
        }
        emitLiteral("]");
      } else if (const auto *dict =
                     std::get_if<const DictionaryAttr *>(&value)) {
        if (*dict && !(*dict)->empty())
          emitDictionary(*dict);
      }
      break;
    }
    case FormatElement::Kind::Operand:
      emitValueList(inst.getOperandGroup(element.index));
      break;
    case FormatElement::Kind::Region:
      printRegion(inst.getRegion(element.index));
      break;
    case FormatElement::Kind::Type:
      if (element.index < inst.getNumResults())
        emitResultType(inst.getResult(element.index)->getType());
      break;
    case FormatElement::Kind::AttrDict:
    case FormatElement::Kind::AttrDictWithKeyword: {
      const auto *dict =
          std::get_if<const DictionaryAttr *>(&inst.getProperty(element.index));
      if (!dict || !*dict || (*dict)->empty())
        break;
      if (element.kind == FormatElement::Kind::AttrDictWithKeyword)
        emit("attributes");
      emitDictionary(*dict);
      break;
    }
    case FormatElement::Kind::Custom:
      printCustom(inst, element);
      break;
    }
  }
}

void AsmPrinter::printInstruction(const Instruction &inst) {
  if (inst.getNumResults() != 0) {
    emitValueList(inst.getResults());
    emit("=");
  }
  emit(inst.getName());
  const AsmFormat *format = getAsmFormat(inst.getKind());
  if (!format) {
    emit("<malformed format>");
    return;
  }
  printFormat(inst, *format);
}

void AsmPrinter::printRegion(const Region &region) {
  emit("{");
  indent += 2;
  for (const Instruction &inst : region) {
    newLine();
    printInstruction(inst);
  }
  indent -= 2;
  newLine();
  emit("}");
}

//===----------------------------------------------------------------------===//
// Functions and programs
//===----------------------------------------------------------------------===//

void AsmPrinter::printFunction(const Function &function) {
  nameValues(function);
  pendingSpace = false;
  emit("func");
  emit(("@" + function.getName()).str());
  emit("(", /*spaceBefore=*/false, /*spaceAfter=*/false);
  for (unsigned i = 0; i < function.getNumParameters(); ++i) {
    if (i != 0)
      emitLiteral(",");
    emit(getName(function.getParameter(i)) + ":");
    emitType(function.getParameter(i)->getType());
    if (const DictionaryAttr *attrs = function.getParameterAttrs(i))
      if (!attrs->empty())
        emitDictionary(attrs);
  }
  emitLiteral(")");
  if (const DictionaryAttr *attrs = function.getAttributes()) {
    if (!attrs->empty()) {
      emit("attributes");
      emitDictionary(attrs);
    }
  }
  printRegion(function.getBody());
  os << '\n';
  pendingSpace = false;
}

void comprehend::ir::print(const Program &program, llvm::raw_ostream &os) {
  AsmPrinter printer(os);
  bool first = true;
  for (const Function &function : program) {
    if (!first)
      os << '\n';
    first = false;
    printer.printFunction(function);
  }
}

void comprehend::ir::print(const Function &function, llvm::raw_ostream &os) {
  AsmPrinter(os).printFunction(function);
}

void comprehend::ir::print(const Instruction &inst, llvm::raw_ostream &os,
                           unsigned indent) {
  AsmPrinter printer(os);
  printer.nameValues(inst);
  printer.setIndent(indent);
  os.indent(indent);
  printer.printInstruction(inst);
  os << '\n';
}
