//===- Attributes.h - Compile-time attribute values -------------*- C++ -*-===//
//
// Attributes are uniqued in the Context and compared by pointer:
//
//   [1, 2]   true   {alignment = 64, "key" = "value"}   42   "text"
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_ATTRIBUTES_H
#define COMPREHEND_IR_ATTRIBUTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace comprehend::ir {

class Context;

/// Base of all attributes; owned by the Context.
class Attribute : public llvm::FoldingSetNode {
public:
  enum class AttrKind : uint8_t { Array, Bool, Dictionary, Integer, String };

  Attribute(const Attribute &) = delete;
  Attribute &operator=(const Attribute &) = delete;

  AttrKind getAttrKind() const { return kind; }
  /// Prints in the spec's syntax.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

protected:
  explicit Attribute(AttrKind kind) : kind(kind) {}
  ~Attribute() = default;

private:
  AttrKind kind;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const Attribute &attr) {
  attr.print(os);
  return os;
}

/// `[a, b, ...]`.
class ArrayAttr : public Attribute {
public:
  static const ArrayAttr *get(Context &ctx,
                              llvm::ArrayRef<const Attribute *> elements);
  llvm::ArrayRef<const Attribute *> getElements() const { return elements; }
  size_t size() const { return elements.size(); }
  const Attribute *operator[](size_t i) const { return elements[i]; }
  /// The elements as integers if every element is an IntegerAttr.
  std::optional<llvm::SmallVector<int64_t, 4>> getAsIntegers() const;
  static bool classof(const Attribute *attr) {
    return attr->getAttrKind() == AttrKind::Array;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  explicit ArrayAttr(llvm::ArrayRef<const Attribute *> elements)
      : Attribute(AttrKind::Array), elements(elements) {}
  llvm::ArrayRef<const Attribute *> elements;
};

/// `true` / `false`.
class BoolAttr : public Attribute {
public:
  static const BoolAttr *get(Context &ctx, bool value);
  bool getValue() const { return value; }
  static bool classof(const Attribute *attr) {
    return attr->getAttrKind() == AttrKind::Bool;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  explicit BoolAttr(bool value) : Attribute(AttrKind::Bool), value(value) {}
  bool value;
};

/// A signed 64-bit integer.
class IntegerAttr : public Attribute {
public:
  static const IntegerAttr *get(Context &ctx, int64_t value);
  int64_t getValue() const { return value; }
  static bool classof(const Attribute *attr) {
    return attr->getAttrKind() == AttrKind::Integer;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  explicit IntegerAttr(int64_t value)
      : Attribute(AttrKind::Integer), value(value) {}
  int64_t value;
};

/// `"text"` (printable ASCII except the double quote).
class StringAttr : public Attribute {
public:
  static const StringAttr *get(Context &ctx, llvm::StringRef value);
  llvm::StringRef getValue() const { return value; }
  static bool classof(const Attribute *attr) {
    return attr->getAttrKind() == AttrKind::String;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  explicit StringAttr(llvm::StringRef value)
      : Attribute(AttrKind::String), value(value) {}
  llvm::StringRef value;
};

/// One `name = value` entry of a dictionary.
struct NamedAttribute {
  llvm::StringRef name;
  const Attribute *value;
};

/// `{name = value, ...}`; entries are kept sorted by name and names are
/// unique (a later duplicate in get() replaces an earlier one). Names are
/// identifiers (`alignment`) or arbitrary strings; the printer quotes names
/// that are not identifiers.
class DictionaryAttr : public Attribute {
public:
  static const DictionaryAttr *get(Context &ctx,
                                   llvm::ArrayRef<NamedAttribute> entries);
  /// The empty dictionary.
  static const DictionaryAttr *getEmpty(Context &ctx);
  llvm::ArrayRef<NamedAttribute> getEntries() const { return entries; }
  bool empty() const { return entries.empty(); }
  size_t size() const { return entries.size(); }
  /// The value of \p name, or null.
  const Attribute *get(llvm::StringRef name) const;
  static bool classof(const Attribute *attr) {
    return attr->getAttrKind() == AttrKind::Dictionary;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  explicit DictionaryAttr(llvm::ArrayRef<NamedAttribute> entries)
      : Attribute(AttrKind::Dictionary), entries(entries) {}
  llvm::ArrayRef<NamedAttribute> entries;
};

/// True if \p name prints without quotes (an identifier).
bool isBareAttributeName(llvm::StringRef name);

/// `{simd = true}`, the attributes of a `for` whose producer promises that
/// consecutive iterations may share vector lanes and that its carried values
/// are reductions whose order does not matter (the backend's vectorize-loops
/// pass checks the accesses itself).
const DictionaryAttr *getSimdLoopAttributes(Context &ctx);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_ATTRIBUTES_H
