//===- AST.cpp - Typed syntax tree of Tensor Comprehensions ---------------===//
#include "comprehend/tc/AST.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

using namespace comprehend;
using namespace comprehend::tc;

llvm::StringRef tc::getSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Less:
    return "<";
  case BinaryOp::Greater:
    return ">";
  case BinaryOp::LessEqual:
    return "<=";
  case BinaryOp::GreaterEqual:
    return ">=";
  case BinaryOp::Equal:
    return "==";
  case BinaryOp::NotEqual:
    return "!=";
  case BinaryOp::And:
    return "&&";
  case BinaryOp::Or:
    return "||";
  case BinaryOp::Min:
    return "min";
  case BinaryOp::Max:
    return "max";
  }
  return "?";
}

std::string tc::getAssignSpelling(ReductionKind kind, bool init) {
  std::string text;
  switch (kind) {
  case ReductionKind::None:
    return "=";
  case ReductionKind::Add:
    text = "+=";
    break;
  case ReductionKind::Mul:
    text = "*=";
    break;
  case ReductionKind::Min:
    text = "min=";
    break;
  case ReductionKind::Max:
    text = "max=";
    break;
  }
  if (init)
    text += '!';
  return text;
}

const TensorInfo *Def::lookupTensor(llvm::StringRef tensor) const {
  auto it = tensors.find(tensor);
  return it == tensors.end() ? nullptr : &it->second;
}

const Def *Program::lookup(llvm::StringRef name) const {
  for (const std::unique_ptr<Def> &def : defs)
    if (def->getName().name == name)
      return def.get();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

void tc::print(const Expr &expr, llvm::raw_ostream &os) {
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
    os << llvm::cast<IntLitExpr>(expr).getValue();
    return;
  case Expr::Kind::FloatLit: {
    // Round-trippable and always recognisable as a floating-point literal.
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer),
                                   llvm::cast<FloatLitExpr>(expr).getValue());
    llvm::StringRef text(buffer, end - buffer);
    os << text;
    if (text.find_first_of(".eEn") == llvm::StringRef::npos)
      os << ".0";
    return;
  }
  case Expr::Kind::Ident:
    os << llvm::cast<IdentExpr>(expr).getName();
    return;
  case Expr::Kind::DimAccess: {
    const auto &dim = llvm::cast<DimAccessExpr>(expr);
    os << dim.getTensor().name << '.' << dim.getDim();
    return;
  }
  case Expr::Kind::Unary: {
    const auto &unary = llvm::cast<UnaryExpr>(expr);
    os << (unary.getOp() == UnaryOp::Neg ? "-" : "!") << '(';
    print(unary.getOperand(), os);
    os << ')';
    return;
  }
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    if (binary.getOp() == BinaryOp::Min || binary.getOp() == BinaryOp::Max) {
      os << getSpelling(binary.getOp()) << '(';
      print(binary.getLhs(), os);
      os << ", ";
      print(binary.getRhs(), os);
      os << ')';
      return;
    }
    os << '(';
    print(binary.getLhs(), os);
    os << ' ' << getSpelling(binary.getOp()) << ' ';
    print(binary.getRhs(), os);
    os << ')';
    return;
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    os << '(';
    print(ternary.getCond(), os);
    os << " ? ";
    print(ternary.getTrueValue(), os);
    os << " : ";
    print(ternary.getFalseValue(), os);
    os << ')';
    return;
  }
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<ApplyExpr>(expr);
    os << apply.getCallee().name << '(';
    llvm::interleaveComma(apply.getArgs(), os,
                          [&](const ExprPtr &arg) { print(*arg, os); });
    os << ')';
    return;
  }
  case Expr::Kind::Cast: {
    const auto &cast = llvm::cast<CastExpr>(expr);
    os << getSpelling(cast.getType()) << '(';
    print(cast.getOperand(), os);
    os << ')';
    return;
  }
  }
}

static void printParam(const Param &param, llvm::raw_ostream &os) {
  if (param.type) {
    os << getSpelling(param.type->scalar);
    if (!param.type->dims.empty()) {
      os << '(';
      llvm::interleaveComma(param.type->dims, os,
                            [&](const TensorType::Dim &dim) {
                              if (dim.sizeVar.empty())
                                os << dim.constant;
                              else
                                os << dim.sizeVar;
                            });
      os << ')';
    }
    os << ' ';
  }
  os << param.name.name;
}

static void printWhere(const WhereClause &where, llvm::raw_ostream &os) {
  switch (where.getKind()) {
  case WhereClause::Kind::Range:
    os << where.getVar().name << " in ";
    print(where.getLo(), os);
    os << ':';
    print(where.getHi(), os);
    return;
  case WhereClause::Kind::Let:
    os << where.getVar().name << " = ";
    print(where.getValue(), os);
    return;
  case WhereClause::Kind::Exists:
    os << "exists ";
    print(where.getValue(), os);
    return;
  }
}

static void printStmt(const Stmt &stmt, llvm::raw_ostream &os) {
  os << "  ";
  if (const auto *call = llvm::dyn_cast<CallStmt>(&stmt)) {
    llvm::interleaveComma(call->getResults(), os,
                          [&](const Ident &id) { os << id.name; });
    os << " = " << call->getCallee().name << '(';
    llvm::interleaveComma(call->getArgs(), os,
                          [&](const Ident &id) { os << id.name; });
    os << ")\n";
    return;
  }
  const auto &comp = llvm::cast<ComprehensionStmt>(stmt);
  os << comp.getLhs().name << '(';
  llvm::interleaveComma(comp.getIndices(), os,
                        [&](const Ident &id) { os << id.name; });
  os << ") " << getAssignSpelling(comp.getReduction(), comp.hasInit()) << ' ';
  print(comp.getRhs(), os);
  if (!comp.getWheres().empty()) {
    os << " where ";
    llvm::interleaveComma(comp.getWheres(), os,
                          [&](const WhereClause &w) { printWhere(w, os); });
  }
  os << '\n';
}

void tc::print(const Program &program, llvm::raw_ostream &os) {
  for (const std::unique_ptr<Def> &def : program.getDefs()) {
    os << "def " << def->getName().name << '(';
    llvm::interleaveComma(def->getInputs(), os,
                          [&](const Param &p) { printParam(p, os); });
    os << ") -> (";
    llvm::interleaveComma(def->getOutputs(), os,
                          [&](const Param &p) { printParam(p, os); });
    os << ") {\n";
    for (const std::unique_ptr<Stmt> &stmt : def->getBody())
      printStmt(*stmt, os);
    os << "}\n";
  }
}
