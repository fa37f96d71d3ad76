//===- CustomPrinters.cpp - `custom<...>` hooks of instruction formats ----===//
//
// The printing halves of CustomParsers.cpp; each prints what its parser
// reads back.
//
//===----------------------------------------------------------------------===//
#include "AsmPrinter.h"

#include "comprehend/ir/Region.h"
#include "comprehend/ir/Types.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

namespace {

class CustomPrinter {
public:
  CustomPrinter(AsmPrinter &printer, const Instruction &inst)
      : printer(printer), inst(inst), desc(inst.getDescriptor()) {}

  void printConstant();
  void printFor();
  void printIf();
  void printForeach() { printForeach(/*tiled=*/false); }
  void printForeachTile() { printForeach(/*tiled=*/true); }
  void printForeach(bool tiled);
  void printSubview();
  void printExpand();
  void printCoopApply();

private:
  /// `-> (type, ...)`: the instruction's result types.
  void printResultTypes() {
    printer.emit("->");
    printer.emitLiteral("(");
    for (unsigned i = 0; i < inst.getNumResults(); ++i) {
      if (i != 0)
        printer.emitLiteral(",");
      printer.emitType(inst.getResult(i)->getType());
    }
    printer.emitLiteral(")");
  }
  llvm::ArrayRef<Value *> group(llvm::StringRef name) const {
    std::optional<unsigned> index = desc.findOperand(name);
    return index ? inst.getOperandGroup(*index) : llvm::ArrayRef<Value *>();
  }
  const Property *property(llvm::StringRef name) const {
    std::optional<unsigned> index = desc.findProperty(name);
    return index ? &inst.getProperty(*index) : nullptr;
  }
  llvm::ArrayRef<int64_t> integerList(llvm::StringRef name) const {
    if (const Property *prop = property(name))
      if (const auto *list = std::get_if<IntegerList>(prop))
        return *list;
    return {};
  }
  /// "(" a, b, ... ")"
  void printParenthesized(llvm::ArrayRef<Value *> values) {
    printer.emitLiteral("(");
    printer.emitValueList(values);
    printer.emitLiteral(")");
  }
  /// A static entry, or the next value of \p values when it is kDynamic.
  void printConstantOrValue(int64_t entry, llvm::ArrayRef<Value *> values,
                            unsigned &next) {
    if (!isDynamic(entry))
      return printer.emitInteger(entry);
    if (next < values.size())
      return printer.emitValue(values[next++]);
    printer.emit("?");
  }

  AsmPrinter &printer;
  const Instruction &inst;
  const InstDescriptor &desc;
};

} // namespace

void CustomPrinter::printConstant() {
  if (const Property *prop = property("value"))
    if (const auto *value = std::get_if<ConstantValue>(prop))
      printer.emitConstant(*value);
}

void CustomPrinter::printFor() {
  const Region &body = inst.getRegion(0);
  llvm::ArrayRef<Value *> params = body.getParameters();
  if (!params.empty())
    printer.emitValue(params.front());
  printer.emit("=");
  llvm::SmallVector<Value *, 3> range;
  llvm::append_range(range, group("from"));
  llvm::append_range(range, group("to"));
  llvm::append_range(range, group("step"));
  printer.emitValueList(range);
  llvm::ArrayRef<Value *> init = group("init");
  if (!init.empty()) {
    printer.emit("init");
    printer.emit("(", /*spaceBefore=*/false, /*spaceAfter=*/false);
    for (unsigned i = 0; i < init.size(); ++i) {
      if (i != 0)
        printer.emitLiteral(",");
      if (i + 1 < params.size())
        printer.emit(printer.getName(params[i + 1]) + "=");
      printer.emit(printer.getName(init[i]), /*spaceBefore=*/false);
    }
    printer.emitLiteral(")");
    printResultTypes();
  }
  printer.printRegion(body);
}

void CustomPrinter::printIf() {
  printer.emitValueList(group("condition"));
  if (inst.getNumResults() != 0) {
    printResultTypes();
  }
  printer.printRegion(inst.getRegion(0));
  if (inst.getNumRegions() > 1 && !inst.getRegion(1).empty()) {
    printer.emit("else");
    printer.printRegion(inst.getRegion(1));
  }
}

void CustomPrinter::printForeach(bool tiled) {
  const Region &body = inst.getRegion(0);
  llvm::ArrayRef<Value *> from = group("from");
  llvm::ArrayRef<Value *> params = body.getParameters();
  printParenthesized(params.take_front(from.size()));
  printer.emit("=");
  printParenthesized(from);
  printer.emitLiteral(",");
  printParenthesized(group("to"));
  if (tiled) {
    printer.emit("as");
    printParenthesized(params.drop_front(from.size()));
    printer.emit("<=");
    printer.emitLiteral("(");
    llvm::ArrayRef<int64_t> shape = integerList("tile_shape");
    for (unsigned i = 0; i < shape.size(); ++i) {
      if (i != 0)
        printer.emitLiteral(",");
      printer.emitInteger(shape[i]);
    }
    printer.emitLiteral(")");
  }
  printer.printRegion(body);
}

void CustomPrinter::printSubview() {
  printer.emitValueList(group("operand"));
  printer.emitLiteral("[");
  llvm::ArrayRef<int64_t> offsets = integerList("static_offsets");
  llvm::ArrayRef<int64_t> sizes = integerList("static_sizes");
  llvm::ArrayRef<Value *> offsetValues = group("offsets");
  llvm::ArrayRef<Value *> sizeValues = group("sizes");
  unsigned nextOffset = 0, nextSize = 0;
  for (unsigned i = 0; i < offsets.size(); ++i) {
    if (i != 0)
      printer.emitLiteral(",");
    printConstantOrValue(offsets[i], offsetValues, nextOffset);
    // `offset:0` is written as the single index `offset`.
    if (i < sizes.size() && sizes[i] != 0) {
      printer.emit(":", /*spaceBefore=*/false, /*spaceAfter=*/false);
      printConstantOrValue(sizes[i], sizeValues, nextSize);
    }
  }
  printer.emitLiteral("]");
}

void CustomPrinter::printExpand() {
  printer.emitValueList(group("operand"));
  printer.emitLiteral("[");
  if (const Property *mode = property("mode"))
    if (const int64_t *value = std::get_if<int64_t>(mode))
      printer.emitInteger(*value);
  printer.emit("->");
  llvm::ArrayRef<int64_t> shape = integerList("static_expand_shape");
  llvm::ArrayRef<Value *> values = group("expand_shape");
  unsigned next = 0;
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (i != 0)
      printer.emit("x");
    printConstantOrValue(shape[i], values, next);
  }
  printer.emitLiteral("]");
}

void CustomPrinter::printCoopApply() {
  const Region &body = inst.getRegion(0);
  printParenthesized(body.getParameters());
  printer.emit("=");
  printer.emitValueList(group("a"));
  printer.emit("->");
  if (inst.getNumResults() != 0)
    printer.emitType(inst.getResult(0)->getType());
  printer.printRegion(body);
}

void AsmPrinter::printCustom(const Instruction &inst,
                             const FormatElement &element) {
  CustomPrinter hooks(*this, inst);
  switch (static_cast<CustomFormat>(element.index)) {
#define COMPREHEND_CUSTOM_FORMAT(Name)                                         \
  case CustomFormat::Name:                                                     \
    return hooks.print##Name();
#include "comprehend/ir/InstCustomFormats.inc"
  }
  llvm_unreachable("AsmFormat resolves every custom format");
}
