//===- AsmFormat.cpp - The `format` strings of the instruction table ------===//
#include "AsmFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <optional>

using namespace comprehend::ir;

namespace {

/// Splits one format string; the current position is `rest`.
class FormatSplitter {
public:
  FormatSplitter(const InstDescriptor &desc, AsmFormat &result,
                 std::string &error)
      : desc(desc), result(result), error(error), rest(desc.format) {}

  bool split();

private:
  bool fail(const llvm::Twine &message) {
    error = ("format of '" + desc.mnemonic + "': " + message).str();
    return false;
  }
  llvm::StringRef lexName() {
    size_t n = 0;
    while (n < rest.size() && (llvm::isAlnum(rest[n]) || rest[n] == '_'))
      ++n;
    llvm::StringRef name = rest.take_front(n);
    rest = rest.drop_front(n);
    return name;
  }
  bool addName(llvm::StringRef name);
  bool addResultType();
  bool addCustom();

  const InstDescriptor &desc;
  AsmFormat &result;
  std::string &error;
  llvm::StringRef rest;
};

} // namespace

static std::optional<unsigned> findIndex(llvm::ArrayRef<RegionDescriptor> list,
                                         llvm::StringRef name) {
  for (unsigned i = 0; i < list.size(); ++i)
    if (list[i].name == name)
      return i;
  return std::nullopt;
}

static std::optional<unsigned> findIndex(llvm::ArrayRef<OperandDescriptor> list,
                                         llvm::StringRef name) {
  for (unsigned i = 0; i < list.size(); ++i)
    if (list[i].name == name)
      return i;
  return std::nullopt;
}

bool FormatSplitter::addName(llvm::StringRef name) {
  if (std::optional<unsigned> prop = desc.findProperty(name)) {
    const PropertyDescriptor &pd = desc.properties[*prop];
    if (pd.kind == PropertyKind::Flag || pd.kind == PropertyKind::Enum) {
      if (!result.elements.empty() &&
          result.elements.back().kind == FormatElement::Kind::Modifiers) {
        result.elements.back().indices.push_back(*prop);
        return true;
      }
      FormatElement element{FormatElement::Kind::Modifiers, name};
      element.indices.push_back(*prop);
      result.elements.push_back(std::move(element));
      return true;
    }
    result.elements.push_back({FormatElement::Kind::Property, name, *prop});
    return true;
  }
  if (std::optional<unsigned> operand = desc.findOperand(name)) {
    result.elements.push_back({FormatElement::Kind::Operand, name, *operand});
    return true;
  }
  if (std::optional<unsigned> region = findIndex(desc.regions, name)) {
    result.elements.push_back({FormatElement::Kind::Region, name, *region});
    return true;
  }
  return fail("unknown name '$" + name + "'");
}

bool FormatSplitter::addResultType() {
  rest = rest.ltrim();
  if (!rest.consume_front("$"))
    return fail("expected '$result' in 'type(...)'");
  llvm::StringRef name = lexName();
  std::optional<unsigned> result_ = findIndex(desc.results, name);
  if (!result_)
    return fail("unknown result '$" + name + "'");
  rest = rest.ltrim();
  if (!rest.consume_front(")"))
    return fail("expected ')' after 'type($" + name + "'");
  result.elements.push_back({FormatElement::Kind::Type, name, *result_});
  return true;
}

bool FormatSplitter::addCustom() {
  size_t close = rest.find('>');
  if (close == llvm::StringRef::npos)
    return fail("expected '>' in 'custom<...>'");
  FormatElement element{FormatElement::Kind::Custom, rest.take_front(close)};
  std::optional<CustomFormat> hook =
      llvm::StringSwitch<std::optional<CustomFormat>>(element.text)
#define COMPREHEND_CUSTOM_FORMAT(Name) .Case(#Name, CustomFormat::Name)
#include "comprehend/ir/InstCustomFormats.inc"
          .Default(std::nullopt);
  // The enumerators come from these very formats (InstCustomFormats.inc),
  // so this only fails for a format built outside the table.
  if (!hook)
    return fail("no hooks for 'custom<" + element.text + ">'");
  element.index = static_cast<unsigned>(*hook);
  rest = rest.drop_front(close + 1).ltrim();
  if (rest.consume_front("(")) {
    while (true) {
      rest = rest.ltrim();
      if (rest.consume_front(")"))
        break;
      rest.consume_front("$");
      llvm::StringRef arg = lexName();
      if (arg.empty())
        return fail("malformed arguments of 'custom<" + element.text + ">'");
      element.args.push_back(arg);
      rest = rest.ltrim();
      rest.consume_front(",");
    }
  }
  result.elements.push_back(std::move(element));
  return true;
}

bool FormatSplitter::split() {
  static constexpr std::array<llvm::StringRef, 11> punctuation = {
      "->", "<=", ",", ":", "[", "]", "(", ")", "=", "<", ">"};
  while (true) {
    rest = rest.ltrim();
    if (rest.empty())
      return true;
    if (rest.consume_front("$")) {
      if (!addName(lexName()))
        return false;
      continue;
    }
    if (rest.consume_front("`")) {
      size_t close = rest.find('`');
      if (close == llvm::StringRef::npos || close == 0)
        return fail("unterminated literal");
      result.elements.push_back(
          {FormatElement::Kind::Literal, rest.take_front(close)});
      rest = rest.drop_front(close + 1);
      continue;
    }
    if (rest.consume_front("type(")) {
      if (!addResultType())
        return false;
      continue;
    }
    if (rest.startswith("attr-dict")) {
      bool withKeyword = rest.consume_front("attr-dict-with-keyword");
      if (!withKeyword)
        rest = rest.drop_front(llvm::StringRef("attr-dict").size());
      std::optional<unsigned> dict;
      for (unsigned i = 0; i < desc.properties.size(); ++i)
        if (desc.properties[i].kind == PropertyKind::Dictionary)
          dict = i;
      if (!dict)
        return fail("'attr-dict' without a dictionary property");
      result.elements.push_back({withKeyword
                                     ? FormatElement::Kind::AttrDictWithKeyword
                                     : FormatElement::Kind::AttrDict,
                                 "attr-dict", *dict});
      continue;
    }
    if (rest.consume_front("custom<")) {
      if (!addCustom())
        return false;
      continue;
    }
    bool matched = false;
    for (llvm::StringRef p : punctuation) {
      if (rest.consume_front(p)) {
        result.elements.push_back({FormatElement::Kind::Literal, p});
        matched = true;
        break;
      }
    }
    if (!matched)
      return fail("unexpected '" + rest.take_front(1) + "'");
  }
}

bool comprehend::ir::parseAsmFormat(const InstDescriptor &desc,
                                    AsmFormat &result, std::string &error) {
  return FormatSplitter(desc, result, error).split();
}

namespace {
/// Every format split once; immutable afterwards, so safe to share.
struct FormatTable {
  FormatTable() {
    for (unsigned i = 0; i < kNumInstKinds; ++i) {
      AsmFormat format;
      if (parseAsmFormat(getDescriptor(static_cast<InstKind>(i)), format,
                         errors[i]))
        formats[i] = std::move(format);
    }
  }
  std::array<std::optional<AsmFormat>, kNumInstKinds> formats;
  std::array<std::string, kNumInstKinds> errors;
};
} // namespace

const AsmFormat *comprehend::ir::getAsmFormat(InstKind kind,
                                              std::string *error) {
  static const FormatTable table;
  unsigned index = static_cast<unsigned>(kind);
  if (!table.formats[index]) {
    if (error)
      *error = table.errors[index];
    return nullptr;
  }
  return &*table.formats[index];
}
