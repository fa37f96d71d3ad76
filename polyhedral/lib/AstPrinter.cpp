//===- AstPrinter.cpp - The mapper's AST as pseudo-code -------------------===//
#include "comprehend/polyhedral/Schedule.h"

#include "llvm/Support/raw_ostream.h"

using namespace comprehend::poly;

void comprehend::poly::print(const AstCondition &condition,
                             llvm::raw_ostream &os) {
  using Kind = AstCondition::Kind;
  if (condition.kind == Kind::And || condition.kind == Kind::Or) {
    const char *separator = condition.kind == Kind::And ? " && " : " || ";
    os << '(';
    for (unsigned i = 0; i < condition.operands.size(); ++i) {
      if (i)
        os << separator;
      print(condition.operands[i], os);
    }
    os << ')';
    return;
  }
  static const char *const symbols[] = {"", "", "==", "<=", "<", ">=", ">"};
  condition.lhs.print(os);
  os << ' ' << symbols[static_cast<int>(condition.kind)] << ' ';
  condition.rhs.print(os);
}

static void printChildren(const std::vector<AstNode> &children,
                          llvm::raw_ostream &os, unsigned indent) {
  for (const AstNode &child : children)
    print(child, os, indent);
}

void comprehend::poly::print(const AstNode &node, llvm::raw_ostream &os,
                             unsigned indent) {
  switch (node.kind) {
  case AstNode::Kind::Block:
    printChildren(node.children, os, indent);
    return;
  case AstNode::Kind::For: {
    os.indent(indent) << "for " << node.iterator << " in [";
    node.lo.print(os);
    os << ", ";
    node.hi.print(os);
    os << ')';
    if (node.step != 1)
      os << " step " << node.step;
    if (node.mapping == AstNode::Mapping::Group)
      os << " : group " << node.mappedDim;
    else if (node.mapping == AstNode::Mapping::WorkItem)
      os << " : work-item " << node.mappedDim;
    else if (node.reduction)
      os << " : reduction";
    os << " {\n";
    printChildren(node.children, os, indent + 2);
    os.indent(indent) << "}\n";
    return;
  }
  case AstNode::Kind::If:
    os.indent(indent) << "if ";
    print(node.condition, os);
    os << " {\n";
    printChildren(node.children, os, indent + 2);
    if (!node.elseChildren.empty()) {
      os.indent(indent) << "} else {\n";
      printChildren(node.elseChildren, os, indent + 2);
    }
    os.indent(indent) << "}\n";
    return;
  case AstNode::Kind::Instance:
    os.indent(indent) << (node.init ? "init" : "stmt") << node.statement << '(';
    for (unsigned i = 0; i < node.args.size(); ++i) {
      if (i)
        os << ", ";
      node.args[i].print(os);
    }
    os << ")\n";
    return;
  }
}
