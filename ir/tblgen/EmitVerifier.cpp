//===- EmitVerifier.cpp - Generated constraint checks ---------------------===//
//
// For each instruction: check every operand and result against its
// predicate, capture scalar kinds into variables (checking that repeated
// captures agree), compare type-function constraints, then check the
// `where` relations. The verify hook runs only when all of that held, so
// hooks may rely on the types.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"

#include <set>

using namespace llvm;
using namespace comprehend::tblgen;

namespace {

/// What a captured kind is, relative to the value ("element type").
std::string captureWhat(const Constraint &c) {
  if (c.name == "MemRef")
    return "element type";
  if (c.name == "Coop")
    return "component type";
  if (c.name == "NumberOrCoop")
    return "scalar type";
  return "type";
}

class VerifierEmitter {
public:
  VerifierEmitter(const InstSpec &inst, raw_ostream &os) : inst(inst), os(os) {}
  void emit();

private:
  void emitValue(const ValueSpec &value, unsigned group, bool isResult);
  std::string emitKindExpr(const KindExpr &expr);
  void collectVars(const KindExpr &expr, std::set<std::string> &vars);

  const InstSpec &inst;
  raw_ostream &os;
  unsigned numTemps = 0;
};

} // namespace

void VerifierEmitter::emitValue(const ValueSpec &value, unsigned group,
                                bool isResult) {
  const Constraint &c = value.constraint;
  std::string range =
      isResult ? "vc.resultRange(inst)"
               : "vc.operandRange(inst, " + std::to_string(group) + ")";
  std::string getValue = isResult ? "inst.getResult(i)" : "inst.getOperand(i)";
  std::string site = isResult ? "result" : "operand '" + value.name + "'";
  os << "  // " << site << ": " << c.describe() << "\n";
  if (c.isTypeFn) {
    unsigned refGroup = 0;
    bool found = false;
    for (unsigned g = 0; g < inst.operands.size(); ++g)
      if (inst.operands[g].name == c.refOperand) {
        refGroup = g;
        found = true;
      }
    if (!found)
      PrintFatalError(inst.record->getLoc(),
                      "'" + c.refOperand + "' is not an operand");
    bool elementwise = inst.operands[refGroup].arity == Arity::Variadic;
    os << "  if (ok) {\n"
       << "    auto range = " << range << ";\n"
       << "    auto ref = vc.operandRange(inst, " << refGroup << ");\n";
    if (elementwise)
      os << "    if (range.second - range.first != ref.second - ref.first) {\n"
         << "      vc.countMismatch(inst, " << (isResult ? "true" : "false")
         << ", " << quote(value.name) << ", range.second - range.first, "
         << quote(c.refOperand) << ", ref.second - ref.first);\n"
         << "      ok = false;\n"
         << "      range.second = range.first;\n    }\n";
    os << "    for (unsigned i = range.first; i != range.second; ++i) {\n"
       << "      const Type *expected = constraints::" << c.function
       << "(inst.getOperand("
       << (elementwise ? "ref.first + i - range.first" : "ref.first")
       << ")->getType());\n"
       << "      if (" << getValue << "->getType() != expected) {\n"
       << "        vc." << (isResult ? "result" : "operand")
       << "Mismatch(inst, i, " << quote(c.describe()) << ", expected);\n"
       << "        ok = false;\n      }\n    }\n  }\n";
    return;
  }
  os << "  for (auto range = " << range
     << "; range.first != range.second; ++range.first) {\n"
     << "    unsigned i = range.first;\n"
     << "    ScalarKind kind = ScalarKind::I8;\n"
     << "    if (!constraints::" << c.function << "(" << getValue
     << "->getType(), &kind, " << (c.order ? *c.order : -1) << ", "
     << quote(c.strArg) << ")) {\n"
     << "      vc." << (isResult ? "result" : "operand")
     << "TypeError(inst, i, " << quote(c.describe()) << ");\n"
     << "      ok = false;\n      continue;\n    }\n";
  if (!c.captureVar.empty())
    os << "    ok &= vc.capture(inst, var_" << c.captureVar << ", kind, "
       << getValue << ", "
       << (isResult ? "inst.getLoc()" : "inst.getOperandLoc(i)") << ", "
       << quote(captureWhat(c) + " of " + site) << ");\n";
  else
    os << "    (void)kind;\n";
  os << "  }\n";
}

void VerifierEmitter::collectVars(const KindExpr &expr,
                                  std::set<std::string> &vars) {
  if (!expr.var.empty()) {
    vars.insert(expr.var);
    return;
  }
  collectVars(*expr.lhs, vars);
  collectVars(*expr.rhs, vars);
}

std::string VerifierEmitter::emitKindExpr(const KindExpr &expr) {
  if (!expr.var.empty())
    return "var_" + expr.var;
  std::string lhs = emitKindExpr(*expr.lhs);
  std::string rhs = emitKindExpr(*expr.rhs);
  std::string temp = "promoted" + std::to_string(numTemps++);
  os << "    KindVar " << temp << " = vc.promote(inst, " << lhs << ", " << rhs
     << ");\n";
  return temp;
}

void VerifierEmitter::emit() {
  os << "\nstatic bool verifyConstraints" << inst.kindName
     << "(const Instruction &inst, VerifyContext &vc) {\n"
     << "  bool ok = true;\n";
  std::set<std::string> vars;
  auto addVar = [&](const ValueSpec &value) {
    if (!value.constraint.isTypeFn && !value.constraint.captureVar.empty())
      vars.insert(value.constraint.captureVar);
  };
  for (const ValueSpec &value : inst.operands)
    addVar(value);
  for (const ValueSpec &value : inst.results)
    addVar(value);
  for (const std::string &var : vars)
    os << "  KindVar var_" << var << ";\n";
  // Plain predicates first, type functions after, so a type function is only
  // compared against operands that passed their own predicate.
  for (unsigned g = 0; g < inst.operands.size(); ++g)
    if (!inst.operands[g].constraint.isTypeFn)
      emitValue(inst.operands[g], g, false);
  for (const ValueSpec &result : inst.results)
    if (!result.constraint.isTypeFn)
      emitValue(result, 0, true);
  for (unsigned g = 0; g < inst.operands.size(); ++g)
    if (inst.operands[g].constraint.isTypeFn)
      emitValue(inst.operands[g], g, false);
  for (const ValueSpec &result : inst.results)
    if (result.constraint.isTypeFn)
      emitValue(result, 0, true);
  // Relations are independent of each other: each is checked when the
  // operand and result predicates held.
  if (!inst.where.empty())
    os << "  const bool valuesOk = ok;\n";
  for (const WhereSpec &where : inst.where) {
    std::set<std::string> used;
    collectVars(where.lhs, used);
    if (where.rhs.lhs || !where.rhs.var.empty())
      collectVars(where.rhs, used);
    for (const std::string &var : used)
      if (!vars.count(var))
        PrintFatalError(inst.record->getLoc(),
                        "'$" + var + "' is never captured");
    os << "  if (valuesOk";
    for (const std::string &var : used)
      os << " && var_" << var << ".kind";
    os << ") {\n";
    std::string lhs = emitKindExpr(where.lhs);
    if (where.relation == "KindIn") {
      os << "    ok &= vc.kindIn(inst, " << lhs << ", "
         << quote(where.typeClass) << ");\n  }\n";
      continue;
    }
    std::string rhs = emitKindExpr(where.rhs);
    os << "    ok &= vc."
       << (where.relation == "Promotable" ? "promotable" : "castAllowed")
       << "(inst, " << lhs << ", " << rhs << ");\n  }\n";
  }
  os << "  return ok;\n}\n";
}

void comprehend::tblgen::emitVerifyHookDecls(ArrayRef<InstSpec> insts,
                                             raw_ostream &os) {
  os << "// Generated by comprehend-tblgen from Instructions.td. Do not edit.\n"
     << "// The hand-written verify hooks named in the table.\n";
  std::set<std::string> hooks;
  for (const InstSpec &inst : insts)
    if (!inst.verify.empty() && hooks.insert(inst.verify).second)
      os << "void " << inst.verify
         << "(const Instruction &inst, VerifyContext &vc);\n";
}

void comprehend::tblgen::emitVerifier(ArrayRef<InstSpec> insts,
                                      raw_ostream &os) {
  os << "// Generated by comprehend-tblgen from Instructions.td. Do not "
        "edit.\n";
  for (const InstSpec &inst : insts)
    VerifierEmitter(inst, os).emit();
  os << "\n/// Runs the generated checks of \\p inst, then its verify hook.\n"
     << "static bool verifyGenerated(const Instruction &inst, VerifyContext "
        "&vc) {\n"
     << "  switch (inst.getKind()) {\n";
  for (const InstSpec &inst : insts) {
    os << "  case InstKind::" << inst.kindName << ":\n"
       << "    if (!verifyConstraints" << inst.kindName << "(inst, vc))\n"
       << "      return false;\n";
    if (!inst.verify.empty())
      os << "    return detail::" << inst.verify << "(inst, vc), true;\n";
    else
      os << "    return true;\n";
  }
  os << "  }\n  return true;\n}\n";
}
