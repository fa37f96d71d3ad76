//===- InstRecords.cpp - Reads Instructions.td into structs ---------------===//
#include "InstRecords.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"

using namespace llvm;
using namespace comprehend::tblgen;

std::string comprehend::tblgen::toUpperCamel(StringRef name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? toUpper(c) : c;
    upper = false;
  }
  return out;
}

std::string comprehend::tblgen::toLowerCamel(StringRef name) {
  std::string out = toUpperCamel(name);
  if (!out.empty())
    out[0] = toLower(out[0]);
  return out;
}

std::string comprehend::tblgen::quote(StringRef text) {
  std::string out = "\"";
  raw_string_ostream os(out);
  os.write_escaped(text);
  os.flush();
  return out + "\"";
}

std::string comprehend::tblgen::describeTypeClass(StringRef cls) {
  return StringSwitch<std::string>(cls)
      .Case("Number", "a number type")
      .Case("NumberNoComplex", "an integer or floating type")
      .Case("Integer", "an integer type")
      .Case("BoolOrInteger", "bool or an integer type")
      .Case("Complex", "a complex type")
      .Case("Floating", "a floating type")
      .Case("FloatingOrComplex", "a floating or complex type")
      .Default("");
}

std::string Constraint::describe() const {
  if (isTypeFn)
    return desc + " '" + refOperand + "'";
  if (name == "OfClass")
    return describeTypeClass(strArg);
  if (name == "OfClassOrCoop")
    return describeTypeClass(strArg) + ", or a coopmatrix of such";
  if (name == "OfClassOrVector")
    return describeTypeClass(strArg) + ", or a vector of such";
  std::string text = desc;
  if (order)
    text += *order >= 0 ? " of order " + std::to_string(*order) : "";
  if (!strArg.empty())
    text += " with use " + StringSwitch<std::string>(strArg)
                               .Case("A", "matrix_a")
                               .Case("B", "matrix_b")
                               .Default("matrix_acc");
  return text;
}

namespace {

/// Reads the variable name of a `$x` argument (an unset init with a name).
std::string argVar(const DagInit *dag, unsigned i) {
  if (!isa<UnsetInit>(dag->getArg(i)) || !dag->getArgName(i))
    return {};
  return dag->getArgNameStr(i).str();
}

Constraint readConstraint(const Record *owner, const Init *init) {
  Constraint c;
  const Record *op = nullptr;
  const DagInit *dag = dyn_cast<DagInit>(init);
  if (dag)
    op = dag->getOperatorAsDef(owner->getLoc());
  else if (const auto *def = dyn_cast<DefInit>(init))
    op = def->getDef();
  if (!op)
    PrintFatalError(owner->getLoc(),
                    "expected a constraint, got " + init->getAsString());
  c.name = op->getName().str();
  c.desc = op->getValueAsString("desc").str();
  c.isTypeFn = op->isSubClassOf("TypeFn");
  if (!c.isTypeFn && !op->isSubClassOf("Pred"))
    PrintFatalError(owner->getLoc(), "'" + c.name + "' is not a predicate");
  c.function = op->getValueAsString(c.isTypeFn ? "function" : "matcher").str();
  if (!dag)
    return c;
  for (unsigned i = 0, e = dag->getNumArgs(); i != e; ++i) {
    const Init *arg = dag->getArg(i);
    if (const auto *intInit = dyn_cast<IntInit>(arg))
      c.order = intInit->getValue();
    else if (const auto *str = dyn_cast<StringInit>(arg))
      c.strArg = str->getValue().str();
    else if (std::string var = argVar(dag, i); !var.empty())
      (c.isTypeFn ? c.refOperand : c.captureVar) = var;
    else
      PrintFatalError(owner->getLoc(),
                      "unexpected constraint argument " + arg->getAsString());
  }
  if (c.isTypeFn && c.refOperand.empty())
    PrintFatalError(owner->getLoc(), c.name + " needs an operand ($x)");
  return c;
}

std::vector<ValueSpec> readValues(const Record *record, StringRef field) {
  std::vector<ValueSpec> values;
  const DagInit *dag = record->getValueAsDag(field);
  for (unsigned i = 0, e = dag->getNumArgs(); i != e; ++i) {
    ValueSpec value;
    value.name = dag->getArgNameStr(i).str();
    if (value.name.empty())
      PrintFatalError(record->getLoc(), "unnamed entry in " + field);
    const Init *arg = dag->getArg(i);
    if (const auto *wrap = dyn_cast<DagInit>(arg)) {
      StringRef op = wrap->getOperatorAsDef(record->getLoc())->getName();
      if (op == "Optional" || op == "Variadic") {
        value.arity = op == "Optional" ? Arity::Optional : Arity::Variadic;
        arg = wrap->getArg(0);
      }
    }
    value.constraint = readConstraint(record, arg);
    values.push_back(std::move(value));
  }
  return values;
}

std::vector<PropSpec> readProps(const Record *record) {
  std::vector<PropSpec> props;
  const DagInit *dag = record->getValueAsDag("props");
  for (unsigned i = 0, e = dag->getNumArgs(); i != e; ++i) {
    const auto *def = dyn_cast<DefInit>(dag->getArg(i));
    if (!def || !def->getDef()->isSubClassOf("Prop"))
      PrintFatalError(record->getLoc(), "expected a Prop in props");
    const Record *prop = def->getDef();
    PropSpec spec;
    spec.name = dag->getArgNameStr(i).str();
    spec.kind = prop->getValueAsString("kind").str();
    spec.defaultValue = prop->getValueAsInt("defaultValue");
    for (StringRef s : prop->getValueAsListOfStrings("spellings"))
      spec.spellings.push_back(s.str());
    spec.cppType = prop->getValueAsString("cppType").str();
    spec.alwaysPrint = prop->getValueAsBit("alwaysPrint");
    props.push_back(std::move(spec));
  }
  return props;
}

std::vector<RegionSpec> readRegions(const Record *record) {
  std::vector<RegionSpec> regions;
  const DagInit *dag = record->getValueAsDag("regions");
  for (unsigned i = 0, e = dag->getNumArgs(); i != e; ++i) {
    RegionSpec spec;
    spec.name = dag->getArgNameStr(i).str();
    const Init *arg = dag->getArg(i);
    if (const auto *wrap = dyn_cast<DagInit>(arg)) {
      spec.optional = true;
      arg = wrap->getArg(0);
    }
    const auto *def = dyn_cast<DefInit>(arg);
    if (!def || !def->getDef()->isSubClassOf("Kind"))
      PrintFatalError(record->getLoc(), "expected a region kind");
    spec.kind = def->getDef()->getValueAsString("name").str();
    regions.push_back(std::move(spec));
  }
  return regions;
}

KindExpr readKindExpr(const Record *record, const DagInit *parent, unsigned i) {
  KindExpr expr;
  if (const auto *dag = dyn_cast<DagInit>(parent->getArg(i))) {
    if (dag->getOperatorAsDef(record->getLoc())->getName() != "Promote" ||
        dag->getNumArgs() != 2)
      PrintFatalError(record->getLoc(), "expected (Promote a, b)");
    expr.lhs = std::make_unique<KindExpr>(readKindExpr(record, dag, 0));
    expr.rhs = std::make_unique<KindExpr>(readKindExpr(record, dag, 1));
    return expr;
  }
  expr.var = argVar(parent, i);
  if (expr.var.empty())
    PrintFatalError(record->getLoc(), "expected a captured variable");
  return expr;
}

std::vector<WhereSpec> readWhere(const Record *record) {
  std::vector<WhereSpec> relations;
  for (const Init *init : record->getValueAsListInit("where")->getValues()) {
    const auto *dag = dyn_cast<DagInit>(init);
    if (!dag || dag->getNumArgs() != 2)
      PrintFatalError(record->getLoc(), "expected a binary relation");
    WhereSpec spec;
    spec.relation = dag->getOperatorAsDef(record->getLoc())->getName().str();
    spec.lhs = readKindExpr(record, dag, 0);
    if (spec.relation == "KindIn") {
      const auto *cls = dyn_cast<StringInit>(dag->getArg(1));
      if (!cls)
        PrintFatalError(record->getLoc(), "KindIn needs a class name");
      spec.typeClass = cls->getValue().str();
    } else if (spec.relation == "Promotable" ||
               spec.relation == "CastAllowed") {
      spec.rhs = readKindExpr(record, dag, 1);
    } else {
      PrintFatalError(record->getLoc(),
                      "unknown relation '" + spec.relation + "'");
    }
    relations.push_back(std::move(spec));
  }
  return relations;
}

/// Marks the operands named in `reads`, `writes` and `viewSource`.
void readEffects(const Record *record, InstSpec &spec) {
  auto find = [&](StringRef name) -> ValueSpec & {
    for (ValueSpec &operand : spec.operands)
      if (operand.name == name)
        return operand;
    PrintFatalError(record->getLoc(), "no operand '" + name + "'");
  };
  for (StringRef name : record->getValueAsListOfStrings("reads"))
    find(name).reads = true;
  for (StringRef name : record->getValueAsListOfStrings("writes"))
    find(name).writes = true;
  if (StringRef name = record->getValueAsString("viewSource"); !name.empty())
    find(name).viewSource = true;
}

} // namespace

std::vector<InstSpec>
comprehend::tblgen::readInstructions(const RecordKeeper &records) {
  std::vector<Record *> defs = records.getAllDerivedDefinitions("Inst");
  // Definition order (getAllDerivedDefinitions sorts by name).
  llvm::sort(defs, [](const Record *a, const Record *b) {
    return a->getID() < b->getID();
  });
  std::vector<InstSpec> insts;
  for (const Record *record : defs) {
    InstSpec spec;
    spec.record = record;
    spec.defName = record->getName().str();
    StringRef kind = record->getName();
    if (!kind.consume_back("Inst"))
      PrintFatalError(record->getLoc(), "instruction names end in 'Inst'");
    spec.kindName = kind.str();
    spec.mnemonic = record->getValueAsString("mnemonic").str();
    spec.category =
        record->getValueAsDef("category")->getValueAsString("name").str();
    spec.summary = record->getValueAsString("summary").str();
    spec.props = readProps(record);
    spec.operands = readValues(record, "operands");
    spec.results = readValues(record, "results");
    spec.regions = readRegions(record);
    spec.where = readWhere(record);
    spec.format = record->getValueAsString("format").str();
    spec.verify = record->getValueAsString("verify").str();
    spec.buildHook = record->getValueAsString("buildHook").str();
    spec.pure = record->getValueAsBit("pure");
    spec.terminator = record->getValueAsBit("terminator");
    if (spec.results.size() > 1)
      PrintFatalError(record->getLoc(), "at most one result group");
    for (const auto &[superClass, range] : record->getSuperClasses())
      if (superClass->getName() != "Inst")
        spec.classes.push_back(superClass->getName().str());
    for (const Record *trait : record->getValueAsListOfDefs("traits"))
      spec.traits.push_back(trait->getName().str());
    readEffects(record, spec);
    spec.intFold = record->getValueAsString("intFold").str();
    spec.intFoldIf = record->getValueAsString("intFoldIf").str();
    spec.realFold = record->getValueAsString("realFold").str();
    spec.boolFold = record->getValueAsString("boolFold").str();
    spec.compare = record->getValueAsString("compare").str();
    spec.spirvInt = record->getValueAsString("spirvInt").str();
    spec.spirvFloat = record->getValueAsString("spirvFloat").str();
    spec.spirvBool = record->getValueAsString("spirvBool").str();
    spec.spirvExt = record->getValueAsBit("spirvExt");
    insts.push_back(std::move(spec));
  }
  // `combine` names an instruction by mnemonic; resolve it to its kind.
  for (InstSpec &spec : insts) {
    std::string combine = spec.record->getValueAsString("combine").str();
    if (combine.empty())
      continue;
    auto it = llvm::find_if(insts, [&](const InstSpec &other) {
      return other.mnemonic == combine;
    });
    if (it == insts.end())
      PrintFatalError(spec.record->getLoc(),
                      "combine: no instruction '" + combine + "'");
    spec.combine = it->kindName;
  }
  return insts;
}

std::vector<const Record *>
comprehend::tblgen::readTraits(const RecordKeeper &records) {
  std::vector<Record *> defs = records.getAllDerivedDefinitions("Trait");
  llvm::sort(defs, [](const Record *a, const Record *b) {
    return a->getID() < b->getID();
  });
  if (defs.size() > 64)
    PrintFatalError("at most 64 traits (InstDescriptor::traits is a mask)");
  return {defs.begin(), defs.end()};
}
