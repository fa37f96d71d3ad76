//===- EmitViews.cpp - View classes with accessors and builders -----------===//
#include "Emitters.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace comprehend::tblgen;

namespace {

/// The C++ parameter type of a property in build() and its setter.
std::string propParamType(const PropSpec &prop) {
  if (prop.kind == "Flag")
    return "bool";
  if (prop.kind == "Enum")
    return prop.cppType;
  if (prop.kind == "Integer")
    return "int64_t";
  if (prop.kind == "IntegerList")
    return "llvm::ArrayRef<int64_t>";
  if (prop.kind == "Constant")
    return "ConstantValue";
  return "const DictionaryAttr *";
}

std::string propDefault(const PropSpec &prop) {
  if (prop.kind == "Flag")
    return prop.defaultValue ? "true" : "false";
  if (prop.kind == "Enum")
    return "static_cast<" + prop.cppType + ">(" +
           std::to_string(prop.defaultValue) + ")";
  return "nullptr";
}

/// The expression storing parameter \p param as a Property.
std::string propStore(const PropSpec &prop, StringRef param) {
  if (prop.kind == "Enum")
    return "static_cast<int64_t>(" + param.str() + ")";
  if (prop.kind == "IntegerList")
    return "IntegerList(" + param.str() + ".begin(), " + param.str() +
           ".end())";
  return param.str();
}

const ValueSpec *findOperand(const InstSpec &inst, StringRef name,
                             unsigned *index = nullptr) {
  for (unsigned i = 0; i < inst.operands.size(); ++i)
    if (inst.operands[i].name == name) {
      if (index)
        *index = i;
      return &inst.operands[i];
    }
  return nullptr;
}

/// The operand capturing \p var with a scalar-kind capture, if any.
const ValueSpec *findCapturingOperand(const InstSpec &inst, StringRef var) {
  for (const ValueSpec &operand : inst.operands)
    if (operand.arity == Arity::Single && operand.constraint.captureVar == var)
      return &operand;
  return nullptr;
}

} // namespace

/// Whether build() can compute the result types from the operands.
static bool isInferable(const InstSpec &inst, const ValueSpec &result) {
  const Constraint &c = result.constraint;
  if (c.isTypeFn) {
    const ValueSpec *ref = findOperand(inst, c.refOperand);
    return ref &&
           (result.arity != Arity::Variadic || ref->arity == Arity::Variadic);
  }
  if (result.arity != Arity::Single)
    return false;
  if (c.name == "BoolT" || c.name == "Index" || c.name == "I32")
    return true;
  return c.name == "Number" && !c.captureVar.empty() &&
         findCapturingOperand(inst, c.captureVar);
}

/// The parameter list of build() (without ctx and loc).
static std::string buildParams(const InstSpec &inst, bool withDefaults) {
  std::string params;
  raw_string_ostream os(params);
  for (const ValueSpec &result : inst.results) {
    if (isInferable(inst, result))
      continue;
    if (result.arity == Arity::Variadic)
      os << ", llvm::ArrayRef<const Type *> " << toLowerCamel(result.name)
         << "Types";
    else
      os << ", const Type *" << toLowerCamel(result.name) << "Type";
  }
  for (const ValueSpec &operand : inst.operands) {
    if (operand.arity == Arity::Variadic)
      os << ", llvm::ArrayRef<Value *> " << toLowerCamel(operand.name);
    else
      os << ", Value *" << toLowerCamel(operand.name);
  }
  for (const PropSpec &prop : inst.props)
    if (!prop.hasDefault())
      os << ", " << propParamType(prop) << " " << toLowerCamel(prop.name);
  for (const PropSpec &prop : inst.props) {
    if (!prop.hasDefault())
      continue;
    os << ", " << propParamType(prop) << " " << toLowerCamel(prop.name);
    if (withDefaults)
      os << " = " << propDefault(prop);
  }
  return os.str();
}

/// The accessors of operands, results, properties and regions.
static void emitAccessors(const InstSpec &inst, raw_ostream &os,
                          bool withProps) {
  for (unsigned i = 0; i < inst.operands.size(); ++i) {
    const ValueSpec &operand = inst.operands[i];
    std::string getter = "get" + toUpperCamel(operand.name);
    if (operand.arity == Arity::Variadic)
      os << "  llvm::ArrayRef<Value *> " << getter
         << "() const { return inst->getOperandGroup(" << i << "); }\n";
    else if (operand.arity == Arity::Optional)
      os << "  Value *" << getter << "() const {\n"
         << "    llvm::ArrayRef<Value *> group = inst->getOperandGroup(" << i
         << ");\n    return group.empty() ? nullptr : group.front();\n  }\n";
    else
      os << "  Value *" << getter << "() const { return inst->getOperandGroup("
         << i << ").front(); }\n";
  }
  for (const ValueSpec &result : inst.results) {
    std::string getter = "get" + toUpperCamel(result.name);
    if (result.arity == Arity::Variadic)
      os << "  llvm::ArrayRef<Value *> " << getter
         << "() const { return inst->getResults(); }\n";
    else
      os << "  Value *" << getter
         << "() const { return inst->getResult(0); }\n";
  }
  for (unsigned i = 0; withProps && i < inst.props.size(); ++i) {
    const PropSpec &prop = inst.props[i];
    std::string camel = toUpperCamel(prop.name);
    std::string type = propParamType(prop);
    if (prop.kind == "Flag")
      os << "  bool is" << camel << "() const { return inst->getFlag(" << i
         << "); }\n";
    else if (prop.kind == "Enum")
      os << "  " << type << " get" << camel << "() const {\n"
         << "    return static_cast<" << type << ">(inst->getInteger(" << i
         << "));\n  }\n";
    else if (prop.kind == "Integer")
      os << "  int64_t get" << camel << "() const { return inst->getInteger("
         << i << "); }\n";
    else if (prop.kind == "IntegerList")
      os << "  llvm::ArrayRef<int64_t> get" << camel
         << "() const { return inst->getIntegerList(" << i << "); }\n";
    else if (prop.kind == "Constant")
      os << "  const ConstantValue &get" << camel
         << "() const { return inst->getConstant(" << i << "); }\n";
    else
      os << "  const DictionaryAttr *get" << camel
         << "() const { return inst->getDictionary(" << i << "); }\n";
    os << "  void set" << camel << "(" << type << " value) const {\n"
       << "    inst->setProperty(" << i << ", " << propStore(prop, "value")
       << ");\n  }\n";
  }
  for (unsigned i = 0; i < inst.regions.size(); ++i)
    os << "  Region &get" << toUpperCamel(inst.regions[i].name)
       << "() const { return inst->getRegion(" << i << "); }\n";
}

static bool sameValues(ArrayRef<ValueSpec> a, ArrayRef<ValueSpec> b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const ValueSpec &x, const ValueSpec &y) {
                      return x.name == y.name && x.arity == y.arity;
                    });
}

static bool sameProps(ArrayRef<PropSpec> a, ArrayRef<PropSpec> b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const PropSpec &x, const PropSpec &y) {
                      return x.name == y.name && x.kind == y.kind &&
                             x.cppType == y.cppType;
                    });
}

/// A view per TableGen class whose instructions share their operands and
/// results (`ArithBinaryView` for add, sub, ...), so code handling the
/// family by trait still reads operands by name. Properties and regions
/// are included when they agree too.
static void emitFamilyViews(ArrayRef<InstSpec> insts, raw_ostream &os) {
  std::vector<std::string> families;
  for (const InstSpec &inst : insts)
    for (const std::string &cls : inst.classes)
      if (!llvm::is_contained(families, cls))
        families.push_back(cls);
  for (const std::string &family : families) {
    std::vector<const InstSpec *> members;
    for (const InstSpec &inst : insts)
      if (llvm::is_contained(inst.classes, family))
        members.push_back(&inst);
    const InstSpec &first = *members.front();
    bool sameShape = members.size() > 1;
    bool withProps = true;
    for (const InstSpec *member : members) {
      sameShape &= sameValues(member->operands, first.operands) &&
                   sameValues(member->results, first.results) &&
                   member->regions.size() == first.regions.size();
      withProps &= sameProps(member->props, first.props);
    }
    if (!sameShape)
      continue;
    os << "\n/// Any instruction of the `" << family << "` family:";
    for (const InstSpec *member : members)
      os << " `" << member->mnemonic << "`";
    os << ".\nclass " << family << "View : public InstView {\npublic:\n"
       << "  using InstView::InstView;\n"
       << "  static bool classof(const Instruction *inst) {\n"
       << "    switch (inst->getKind()) {\n";
    for (const InstSpec *member : members)
      os << "    case InstKind::" << member->kindName << ":\n";
    os << "      return true;\n    default:\n      return false;\n    }\n"
       << "  }\n\n";
    emitAccessors(first, os, withProps);
    os << "};\n";
  }
}

void comprehend::tblgen::emitViewDecls(ArrayRef<InstSpec> insts,
                                       raw_ostream &os) {
  os << "// Generated by comprehend-tblgen from Instructions.td. Do not "
        "edit.\n";
  for (const InstSpec &inst : insts) {
    os << "\n/// `" << inst.mnemonic << "`: " << inst.summary << ".\n"
       << "class " << inst.defName << " : public InstView {\npublic:\n"
       << "  using InstView::InstView;\n"
       << "  static constexpr InstKind kKind = InstKind::" << inst.kindName
       << ";\n"
       << "  static bool classof(const Instruction *inst) {\n"
       << "    return inst->getKind() == InstKind::" << inst.kindName
       << ";\n  }\n"
       << "  static std::unique_ptr<Instruction> build(Context &ctx, "
          "Location loc"
       << buildParams(inst, true) << ");\n\n";
    emitAccessors(inst, os, true);
    os << "};\n";
  }
  emitFamilyViews(insts, os);
}

/// The expression computing a result type in build().
static std::string inferredType(const InstSpec &inst, const ValueSpec &result,
                                StringRef elem) {
  const Constraint &c = result.constraint;
  if (c.isTypeFn)
    return "constraints::" + c.function + "(" + elem.str() + "->getType())";
  if (c.name == "BoolT")
    return "BoolType::get(ctx)";
  if (c.name == "Index")
    return "ScalarType::get(ctx, ScalarKind::Index)";
  if (c.name == "I32")
    return "ScalarType::get(ctx, ScalarKind::I32)";
  const ValueSpec *from = findCapturingOperand(inst, c.captureVar);
  return "ScalarType::get(ctx, constraints::captureKind(" +
         toLowerCamel(from->name) + "->getType()))";
}

void comprehend::tblgen::emitViewDefs(ArrayRef<InstSpec> insts,
                                      raw_ostream &os) {
  os << "// Generated by comprehend-tblgen from Instructions.td. Do not edit.\n"
     << "namespace detail {\n";
  for (const InstSpec &inst : insts)
    if (!inst.buildHook.empty())
      os << "void " << inst.buildHook << "(Context &ctx, Instruction &inst);\n";
  os << "} // namespace detail\n";
  for (const InstSpec &inst : insts) {
    os << "\nstd::unique_ptr<Instruction> " << inst.defName
       << "::build(Context &ctx, Location loc" << buildParams(inst, false)
       << ") {\n"
       << "  std::unique_ptr<Instruction> inst = Instruction::create(InstKind::"
       << inst.kindName << ", loc);\n";
    if (!inst.operands.empty()) {
      os << "  llvm::SmallVector<Value *, 8> operands;\n"
         << "  llvm::SmallVector<unsigned, 4> segments;\n";
      for (const ValueSpec &operand : inst.operands) {
        std::string name = toLowerCamel(operand.name);
        if (operand.arity == Arity::Variadic)
          os << "  operands.append(" << name << ".begin(), " << name
             << ".end());\n  segments.push_back(" << name << ".size());\n";
        else if (operand.arity == Arity::Optional)
          os << "  if (" << name << ")\n    operands.push_back(" << name
             << ");\n  segments.push_back(" << name << " ? 1 : 0);\n";
        else
          os << "  operands.push_back(" << name
             << ");\n  segments.push_back(1);\n";
      }
      os << "  inst->setOperands(operands, segments);\n";
    }
    for (unsigned i = 0; i < inst.props.size(); ++i)
      os << "  inst->setProperty(" << i << ", "
         << propStore(inst.props[i], toLowerCamel(inst.props[i].name))
         << ");\n";
    for (const ValueSpec &result : inst.results) {
      std::string name = toLowerCamel(result.name);
      if (!isInferable(inst, result)) {
        if (result.arity == Arity::Variadic)
          os << "  for (const Type *type : " << name << "Types)\n"
             << "    inst->addResult(type, loc);\n";
        else
          os << "  inst->addResult(" << name << "Type, loc);\n";
        continue;
      }
      if (result.arity == Arity::Variadic) {
        os << "  for (Value *value : "
           << toLowerCamel(result.constraint.refOperand) << ")\n"
           << "    inst->addResult(" << inferredType(inst, result, "value")
           << ", loc);\n";
        continue;
      }
      os << "  inst->addResult("
         << inferredType(inst, result,
                         toLowerCamel(result.constraint.refOperand))
         << ", loc);\n";
    }
    if (!inst.buildHook.empty())
      os << "  detail::" << inst.buildHook << "(ctx, *inst);\n";
    os << "  (void)ctx;\n  return inst;\n}\n";
  }
}
