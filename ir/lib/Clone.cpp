//===- Clone.cpp - Deep copies of functions and programs ------------------===//
//
// Instructions are copied in order, so that every operand (defined earlier
// in a dominating position) is already mapped when its user is copied.
//
//===----------------------------------------------------------------------===//
#include "comprehend/ir/Clone.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Region.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cassert>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

class Cloner {
public:
  void map(const Value *from, Value *to) { values[from] = to; }

  /// Copies the parameters and instructions of \p from into the empty
  /// region \p to.
  void cloneRegion(const Region &from, Region &to) {
    to.setKind(from.getKind());
    for (const Value *param : from.getParameters())
      map(param,
          to.addParameter(param->getType(), param->getLoc(), param->getName()));
    cloneInstructions(from, to);
  }

  void cloneInstructions(const Region &from, Region &to) {
    for (const Instruction &inst : from)
      to.push_back(cloneInstruction(inst));
  }

private:
  std::unique_ptr<Instruction> cloneInstruction(const Instruction &inst) {
    auto copy = Instruction::create(inst.getKind(), inst.getLoc());
    llvm::SmallVector<Value *, 8> operands;
    llvm::SmallVector<Location, 8> operandLocs;
    for (unsigned i = 0, e = inst.getNumOperands(); i < e; ++i) {
      operands.push_back(lookup(inst.getOperand(i)));
      operandLocs.push_back(inst.getOperandLoc(i));
    }
    copy->setOperands(operands, inst.getOperandSegmentSizes());
    copy->setOperandLocs(operandLocs);
    for (unsigned i = 0, e = inst.getNumProperties(); i < e; ++i)
      copy->setProperty(i, inst.getProperty(i));
    for (const Value *result : inst.getResults())
      map(result, copy->addResult(result->getType(), result->getLoc(),
                                  result->getName()));
    assert(copy->getNumRegions() == inst.getNumRegions() &&
           "an instruction kind has a fixed number of regions");
    for (unsigned i = 0, e = inst.getNumRegions(); i < e; ++i)
      cloneRegion(inst.getRegion(i), copy->getRegion(i));
    return copy;
  }

  Value *lookup(Value *value) const {
    if (!value)
      return nullptr;
    auto it = values.find(value);
    return it == values.end() ? value : it->second;
  }

  llvm::DenseMap<const Value *, Value *> values;
};

} // namespace

std::unique_ptr<Function> ir::clone(const Function &function) {
  auto copy = std::make_unique<Function>(function.getContext(),
                                         function.getName(), function.getLoc());
  Cloner cloner;
  for (unsigned i = 0, e = function.getNumParameters(); i < e; ++i) {
    const Value *param = function.getParameter(i);
    cloner.map(param, copy->addParameter(param->getType(), param->getName(),
                                         param->getLoc(),
                                         function.getParameterAttrs(i)));
  }
  copy->setAttributes(function.getAttributes());
  // The body's parameters are the function's, mapped above.
  cloner.cloneInstructions(function.getBody(), copy->getBody());
  return copy;
}

void ir::cloneInto(const Program &from, Program &to) {
  for (const Function &function : from)
    to.addFunction(clone(function));
}
