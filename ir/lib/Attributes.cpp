//===- Attributes.cpp - Uniquing and printing of attributes ---------------===//
#include "ContextImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace comprehend::ir;

bool comprehend::ir::isBareAttributeName(llvm::StringRef name) {
  if (name.empty() || !llvm::isAlpha(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

void Attribute::print(llvm::raw_ostream &os) const {
  switch (kind) {
  case AttrKind::Array:
    os << '[';
    llvm::interleave(
        llvm::cast<ArrayAttr>(this)->getElements(), os,
        [&](const Attribute *element) { element->print(os); }, ", ");
    os << ']';
    return;
  case AttrKind::Bool:
    os << (llvm::cast<BoolAttr>(this)->getValue() ? "true" : "false");
    return;
  case AttrKind::Integer:
    os << llvm::cast<IntegerAttr>(this)->getValue();
    return;
  case AttrKind::String:
    os << '"' << llvm::cast<StringAttr>(this)->getValue() << '"';
    return;
  case AttrKind::Dictionary:
    os << '{';
    llvm::interleave(
        llvm::cast<DictionaryAttr>(this)->getEntries(), os,
        [&](const NamedAttribute &entry) {
          if (isBareAttributeName(entry.name))
            os << entry.name;
          else
            os << '"' << entry.name << '"';
          os << " = ";
          entry.value->print(os);
        },
        ", ");
    os << '}';
    return;
  }
}

std::string Attribute::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}

const BoolAttr *BoolAttr::get(Context &ctx, bool value) {
  return ctx.getImpl().boolAttrs[value ? 1 : 0];
}

void BoolAttr::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddBoolean(value);
}

void IntegerAttr::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddInteger(value);
}

const IntegerAttr *IntegerAttr::get(Context &ctx, int64_t value) {
  llvm::FoldingSetNodeID id;
  id.AddInteger(value);
  auto &set = ctx.getImpl().integerAttrs;
  void *pos = nullptr;
  if (IntegerAttr *existing = set.FindNodeOrInsertPos(id, pos))
    return existing;
  auto *attr =
      new (ctx.getAllocator().Allocate<IntegerAttr>()) IntegerAttr(value);
  set.InsertNode(attr, pos);
  return attr;
}

void StringAttr::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddString(value);
}

const StringAttr *StringAttr::get(Context &ctx, llvm::StringRef value) {
  llvm::FoldingSetNodeID id;
  id.AddString(value);
  auto &set = ctx.getImpl().stringAttrs;
  void *pos = nullptr;
  if (StringAttr *existing = set.FindNodeOrInsertPos(id, pos))
    return existing;
  auto *attr = new (ctx.getAllocator().Allocate<StringAttr>())
      StringAttr(ctx.allocateCopy(value));
  set.InsertNode(attr, pos);
  return attr;
}

void ArrayAttr::Profile(llvm::FoldingSetNodeID &id) const {
  for (const Attribute *element : elements)
    id.AddPointer(element);
}

const ArrayAttr *ArrayAttr::get(Context &ctx,
                                llvm::ArrayRef<const Attribute *> elements) {
  llvm::FoldingSetNodeID id;
  for (const Attribute *element : elements)
    id.AddPointer(element);
  auto &set = ctx.getImpl().arrayAttrs;
  void *pos = nullptr;
  if (ArrayAttr *existing = set.FindNodeOrInsertPos(id, pos))
    return existing;
  auto *attr = new (ctx.getAllocator().Allocate<ArrayAttr>())
      ArrayAttr(ctx.allocateCopy(elements));
  set.InsertNode(attr, pos);
  return attr;
}

std::optional<llvm::SmallVector<int64_t, 4>> ArrayAttr::getAsIntegers() const {
  llvm::SmallVector<int64_t, 4> values;
  for (const Attribute *element : elements) {
    const auto *integer = llvm::dyn_cast<IntegerAttr>(element);
    if (!integer)
      return std::nullopt;
    values.push_back(integer->getValue());
  }
  return values;
}

void DictionaryAttr::Profile(llvm::FoldingSetNodeID &id) const {
  for (const NamedAttribute &entry : entries) {
    id.AddString(entry.name);
    id.AddPointer(entry.value);
  }
}

const DictionaryAttr *
DictionaryAttr::get(Context &ctx, llvm::ArrayRef<NamedAttribute> entries) {
  // Sort by name; a later duplicate replaces an earlier one.
  llvm::SmallVector<NamedAttribute, 8> sorted(entries.begin(), entries.end());
  llvm::stable_sort(sorted,
                    [](const NamedAttribute &a, const NamedAttribute &b) {
                      return a.name < b.name;
                    });
  llvm::SmallVector<NamedAttribute, 8> unique;
  for (const NamedAttribute &entry : sorted) {
    if (!unique.empty() && unique.back().name == entry.name)
      unique.back() = entry;
    else
      unique.push_back(entry);
  }
  llvm::FoldingSetNodeID id;
  for (const NamedAttribute &entry : unique) {
    id.AddString(entry.name);
    id.AddPointer(entry.value);
  }
  auto &set = ctx.getImpl().dictionaryAttrs;
  void *pos = nullptr;
  if (DictionaryAttr *existing = set.FindNodeOrInsertPos(id, pos))
    return existing;
  for (NamedAttribute &entry : unique)
    entry.name = ctx.allocateCopy(entry.name);
  auto *attr = new (ctx.getAllocator().Allocate<DictionaryAttr>())
      DictionaryAttr(ctx.allocateCopy(llvm::ArrayRef<NamedAttribute>(unique)));
  set.InsertNode(attr, pos);
  return attr;
}

const DictionaryAttr *comprehend::ir::getSimdLoopAttributes(Context &ctx) {
  NamedAttribute simd{"simd", BoolAttr::get(ctx, true)};
  return DictionaryAttr::get(ctx, simd);
}

const DictionaryAttr *DictionaryAttr::getEmpty(Context &ctx) {
  return get(ctx, {});
}

const Attribute *DictionaryAttr::get(llvm::StringRef name) const {
  const NamedAttribute *it = llvm::partition_point(
      entries, [&](const NamedAttribute &entry) { return entry.name < name; });
  if (it != entries.end() && it->name == name)
    return it->value;
  return nullptr;
}
