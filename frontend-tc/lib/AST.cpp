//===- AST.cpp - Typed syntax tree of Tensor Comprehensions ---------------===//
#include "comprehend/tc/AST.h"
#include "comprehend/tc/ExprVisitor.h"

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

namespace {

/// Prints an expression as TC source, every binary operation in
/// parentheses.
class ExprPrinter : public ConstExprVisitor<ExprPrinter> {
public:
  explicit ExprPrinter(llvm::raw_ostream &os) : os(os) {}

  void visitIntLit(const IntLitExpr &lit) { os << lit.getValue(); }
  void visitFloatLit(const FloatLitExpr &lit) {
    // Round-trippable and always recognisable as a floating-point literal.
    char buffer[64];
    auto [end, ec] =
        std::to_chars(buffer, buffer + sizeof(buffer), lit.getValue());
    llvm::StringRef text(buffer, end - buffer);
    os << text;
    if (text.find_first_of(".eEn") == llvm::StringRef::npos)
      os << ".0";
  }
  void visitIdent(const IdentExpr &ident) { os << ident.getName(); }
  void visitDimAccess(const DimAccessExpr &dim) {
    os << dim.getTensor().name << '.' << dim.getDim();
  }
  void visitUnary(const UnaryExpr &unary) {
    os << (unary.getOp() == UnaryOp::Neg ? "-" : "!") << '(';
    visit(unary.getOperand());
    os << ')';
  }
  void visitBinary(const BinaryExpr &binary) {
    if (binary.getOp() == BinaryOp::Min || binary.getOp() == BinaryOp::Max) {
      os << getSpelling(binary.getOp()) << '(';
      visit(binary.getLhs());
      os << ", ";
      visit(binary.getRhs());
      os << ')';
      return;
    }
    os << '(';
    visit(binary.getLhs());
    os << ' ' << getSpelling(binary.getOp()) << ' ';
    visit(binary.getRhs());
    os << ')';
  }
  void visitTernary(const TernaryExpr &ternary) {
    os << '(';
    visit(ternary.getCond());
    os << " ? ";
    visit(ternary.getTrueValue());
    os << " : ";
    visit(ternary.getFalseValue());
    os << ')';
  }
  void visitApply(const ApplyExpr &apply) {
    os << apply.getCallee().name << '(';
    llvm::interleaveComma(apply.getArgs(), os,
                          [&](const ExprPtr &arg) { visit(*arg); });
    os << ')';
  }
  void visitCast(const CastExpr &cast) {
    os << getSpelling(cast.getType()) << '(';
    visit(cast.getOperand());
    os << ')';
  }

private:
  llvm::raw_ostream &os;
};

} // namespace

void tc::print(const Expr &expr, llvm::raw_ostream &os) {
  ExprPrinter(os).visit(expr);
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

void tc::print(const Stmt &stmt, llvm::raw_ostream &os) {
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

void tc::printSignature(const Def &def, llvm::raw_ostream &os) {
  os << "def " << def.getName().name << '(';
  llvm::interleaveComma(def.getInputs(), os,
                        [&](const Param &p) { printParam(p, os); });
  os << ") -> (";
  llvm::interleaveComma(def.getOutputs(), os,
                        [&](const Param &p) { printParam(p, os); });
  os << ")";
}

void tc::print(const Program &program, llvm::raw_ostream &os) {
  for (const std::unique_ptr<Def> &def : program.getDefs()) {
    printSignature(*def, os);
    os << " {\n";
    for (const std::unique_ptr<Stmt> &stmt : def->getBody())
      print(*stmt, os);
    os << "}\n";
  }
}
