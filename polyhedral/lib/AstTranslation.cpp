//===- AstTranslation.cpp - isl's AST to the mapper's AST -----------------===//
#include "AstTranslation.h"

#include "llvm/ADT/STLExtras.h"

#include <isl/ast.h>
#include <isl/id.h>
#include <isl/val.h>

#include <cstdlib>
#include <functional>

using namespace comprehend::poly;
using Kind = IndexExpr::Kind;

namespace {

/// Thrown (and caught in translateAst) for an AST that has no AstNode form.
struct Untranslatable {
  std::string reason;
};

std::string idName(isl_id *id) {
  const char *name = isl_id_get_name(id);
  std::string result = name ? name : "";
  isl_id_free(id);
  return result;
}

/// A constant-folding evaluator: the value of \p expr when it uses no
/// variable or parameter.
std::optional<int64_t> evaluate(const IndexExpr &expr) {
  auto operand = [&](unsigned i) { return evaluate(expr.getOperands()[i]); };
  switch (expr.getKind()) {
  case Kind::Constant:
    return expr.getValue();
  case Kind::Neg:
    if (auto value = operand(0))
      return -*value;
    return std::nullopt;
  case Kind::Add:
  case Kind::Sub:
  case Kind::Mul:
  case Kind::FloorDiv:
  case Kind::Mod:
  case Kind::Min:
  case Kind::Max: {
    std::optional<int64_t> lhs = operand(0), rhs = operand(1);
    if (!lhs || !rhs)
      return std::nullopt;
    int64_t a = *lhs, b = *rhs;
    switch (expr.getKind()) {
    case Kind::Add:
      return a + b;
    case Kind::Sub:
      return a - b;
    case Kind::Mul:
      return a * b;
    case Kind::FloorDiv:
      if (b == 0)
        return std::nullopt;
      return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    case Kind::Mod:
      if (b == 0)
        return std::nullopt;
      return ((a % b) + b) % b;
    case Kind::Min:
      return std::min(a, b);
    default:
      return std::max(a, b);
    }
  }
  default:
    return std::nullopt;
  }
}

/// Folds constants so that printed bounds stay readable.
IndexExpr fold(IndexExpr expr) {
  if (std::optional<int64_t> value = evaluate(expr))
    return IndexExpr::constant(*value);
  return expr;
}

class Translator {
public:
  Translator(llvm::ArrayRef<std::string> params,
             llvm::ArrayRef<ScopStatement> statements)
      : params(params), statements(statements) {}

  IndexExpr expr(isl_ast_expr *expr);
  AstCondition condition(isl_ast_expr *expr);
  void node(isl_ast_node *node, std::vector<AstNode> &out,
            AstNode::Mapping pending, unsigned depth);

private:
  void forNode(isl_ast_node *node, std::vector<AstNode> &out,
               AstNode::Mapping pending, unsigned depth);
  AstNode userNode(isl_ast_node *node);

  llvm::ArrayRef<std::string> params;
  llvm::ArrayRef<ScopStatement> statements;
  /// The iterators of the work-item loops of the current chain.
  llvm::SmallVector<std::string, 3> chainIterators;
  /// The loop iterators of the band under the current mark.
  llvm::SmallVector<std::string, 3> markedIterators;
};

IndexExpr Translator::expr(isl_ast_expr *e) {
  // Takes ownership of e.
  struct Guard {
    isl_ast_expr *e;
    ~Guard() { isl_ast_expr_free(e); }
  } guard{e};
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    isl_val *val = isl_ast_expr_get_val(e);
    int64_t value = isl_val_get_num_si(val);
    isl_val_free(val);
    return IndexExpr::constant(value);
  }
  case isl_ast_expr_id: {
    std::string name = idName(isl_ast_expr_get_id(e));
    if (llvm::is_contained(params, name))
      return IndexExpr::param(name);
    return IndexExpr::var(name);
  }
  case isl_ast_expr_op:
    break;
  default:
    throw Untranslatable{"unknown AST expression"};
  }
  int numArgs = isl_ast_expr_op_get_n_arg(e);
  auto arg = [&](int i) { return expr(isl_ast_expr_op_get_arg(e, i)); };
  auto fold2 = [&](Kind kind) {
    IndexExpr result = arg(0);
    for (int i = 1; i < numArgs; ++i)
      result = IndexExpr::binary(kind, std::move(result), arg(i));
    return result;
  };
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_add:
    return fold2(Kind::Add);
  case isl_ast_expr_op_sub:
    return fold2(Kind::Sub);
  case isl_ast_expr_op_mul:
    return fold2(Kind::Mul);
  case isl_ast_expr_op_min:
    return fold2(Kind::Min);
  case isl_ast_expr_op_max:
    return fold2(Kind::Max);
  case isl_ast_expr_op_minus:
    return IndexExpr::neg(arg(0));
  // Exact division, floor division and division of a non-negative number:
  // all agree with floor division where isl uses them.
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_fdiv_q:
  case isl_ast_expr_op_pdiv_q:
    return fold2(Kind::FloorDiv);
  // Remainders: pdiv_r of a non-negative number; zdiv_r only in
  // comparisons with 0, where floor and truncating remainders agree.
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    return fold2(Kind::Mod);
  default:
    throw Untranslatable{"an AST expression without IndexExpr form"};
  }
}

AstCondition Translator::condition(isl_ast_expr *e) {
  struct Guard {
    isl_ast_expr *e;
    ~Guard() { isl_ast_expr_free(e); }
  } guard{e};
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op)
    throw Untranslatable{"a guard that is not a comparison"};
  AstCondition result;
  auto compare = [&](AstCondition::Kind kind) {
    result.kind = kind;
    result.lhs = fold(expr(isl_ast_expr_op_get_arg(e, 0)));
    result.rhs = fold(expr(isl_ast_expr_op_get_arg(e, 1)));
    return result;
  };
  auto junction = [&](AstCondition::Kind kind) {
    result.kind = kind;
    for (int i = 0, n = isl_ast_expr_op_get_n_arg(e); i < n; ++i)
      result.operands.push_back(condition(isl_ast_expr_op_get_arg(e, i)));
    return result;
  };
  using CK = AstCondition::Kind;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    return junction(CK::And);
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    return junction(CK::Or);
  case isl_ast_expr_op_eq:
    return compare(CK::Eq);
  case isl_ast_expr_op_le:
    return compare(CK::Le);
  case isl_ast_expr_op_lt:
    return compare(CK::Lt);
  case isl_ast_expr_op_ge:
    return compare(CK::Ge);
  case isl_ast_expr_op_gt:
    return compare(CK::Gt);
  default:
    throw Untranslatable{"a guard that is not a comparison"};
  }
}

/// The exclusive upper bound of \p iterator from a loop condition
/// `iterator <= e`, `iterator < e` or a conjunction of those.
static IndexExpr upperBound(const AstCondition &cond,
                            llvm::StringRef iterator) {
  using CK = AstCondition::Kind;
  if (cond.kind == CK::And) {
    IndexExpr result = upperBound(cond.operands[0], iterator);
    for (unsigned i = 1; i < cond.operands.size(); ++i)
      result = IndexExpr::binary(Kind::Min, std::move(result),
                                 upperBound(cond.operands[i], iterator));
    return result;
  }
  bool isIterator =
      cond.lhs.getKind() == Kind::Var && cond.lhs.getName() == iterator;
  if (isIterator && cond.kind == CK::Lt)
    return cond.rhs;
  if (isIterator && cond.kind == CK::Le)
    return fold(IndexExpr::binary(Kind::Add, cond.rhs, IndexExpr::constant(1)));
  throw Untranslatable{"a loop condition that is not an upper bound"};
}

static bool uses(const IndexExpr &expr, llvm::ArrayRef<std::string> names) {
  return llvm::any_of(expr.getVariables(), [&](const std::string &var) {
    return llvm::is_contained(names, var);
  });
}

void Translator::forNode(isl_ast_node *node, std::vector<AstNode> &out,
                         AstNode::Mapping pending, unsigned depth) {
  AstNode loop;
  loop.kind = AstNode::Kind::For;
  isl_ast_expr *iterator = isl_ast_node_for_get_iterator(node);
  loop.iterator = idName(isl_ast_expr_get_id(iterator));
  isl_ast_expr_free(iterator);
  loop.lo = fold(expr(isl_ast_node_for_get_init(node)));
  if (isl_ast_node_for_is_degenerate(node)) {
    loop.hi =
        fold(IndexExpr::binary(Kind::Add, loop.lo, IndexExpr::constant(1)));
  } else {
    loop.hi = fold(
        upperBound(condition(isl_ast_node_for_get_cond(node)), loop.iterator));
  }
  isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
  IndexExpr step = fold(expr(inc));
  if (step.getKind() != Kind::Constant || step.getValue() <= 0)
    throw Untranslatable{"a loop without a positive constant step"};
  loop.step = step.getValue();

  // A mapped loop needs step 1; a group loop constant bounds; a work-item
  // loop bounds that do not depend on the other work-item loops.
  bool mapped = pending != AstNode::Mapping::Sequential && loop.step == 1 &&
                llvm::is_contained(markedIterators, loop.iterator);
  if (mapped && pending == AstNode::Mapping::Group)
    mapped = depth < 3 && evaluate(loop.lo) && evaluate(loop.hi);
  if (mapped && pending == AstNode::Mapping::WorkItem)
    mapped = !uses(loop.lo, chainIterators) && !uses(loop.hi, chainIterators);
  if (mapped) {
    loop.mapping = pending;
    loop.mappedDim = depth;
    if (pending == AstNode::Mapping::WorkItem)
      chainIterators.push_back(loop.iterator);
  }
  isl_ast_node *body = isl_ast_node_for_get_body(node);
  // The chain of mapped loops continues only through directly nested loops.
  bool chain = mapped && isl_ast_node_get_type(body) == isl_ast_node_for;
  this->node(body, loop.children,
             chain ? pending : AstNode::Mapping::Sequential, depth + 1);
  if (mapped && pending == AstNode::Mapping::WorkItem && !chain)
    chainIterators.clear();

  // A reduction loop: its body updates one LHS element throughout.
  if (loop.mapping == AstNode::Mapping::Sequential &&
      loop.children.size() == 1 &&
      loop.children[0].kind == AstNode::Kind::Instance &&
      !loop.children[0].init) {
    const AstNode &instance = loop.children[0];
    const ScopStatement &stmt = statements[instance.statement];
    loop.reduction =
        stmt.reduction && llvm::none_of(stmt.lhsPositions, [&](unsigned pos) {
          return uses(instance.args[pos], {loop.iterator});
        });
  }
  out.push_back(std::move(loop));
}

AstNode Translator::userNode(isl_ast_node *node) {
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  struct Guard {
    isl_ast_expr *e;
    ~Guard() { isl_ast_expr_free(e); }
  } guard{call};
  if (isl_ast_expr_get_type(call) != isl_ast_expr_op ||
      isl_ast_expr_op_get_type(call) != isl_ast_expr_op_call)
    throw Untranslatable{"a statement that is not a call"};
  isl_ast_expr *callee = isl_ast_expr_op_get_arg(call, 0);
  std::string name = idName(isl_ast_expr_get_id(callee));
  isl_ast_expr_free(callee);
  unsigned index = std::strtoul(name.c_str() + 1, nullptr, 10);
  if (name.empty() || name[0] != 'S' || index >= statements.size())
    throw Untranslatable{"an unknown statement '" + name + "'"};
  AstNode instance;
  instance.kind = AstNode::Kind::Instance;
  instance.statement = index; // rewritten to the def's statement later
  for (int i = 1, n = isl_ast_expr_op_get_n_arg(call); i < n; ++i)
    instance.args.push_back(fold(expr(isl_ast_expr_op_get_arg(call, i))));
  instance.init = statements[index].init;
  return instance;
}

void Translator::node(isl_ast_node *node, std::vector<AstNode> &out,
                      AstNode::Mapping pending, unsigned depth) {
  struct Guard {
    isl_ast_node *n;
    ~Guard() { isl_ast_node_free(n); }
  } guard{node};
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    return forNode(node, out, pending, depth);
  case isl_ast_node_block: {
    isl_ast_node_list *children = isl_ast_node_block_get_children(node);
    for (int i = 0, n = isl_ast_node_list_n_ast_node(children); i < n; ++i)
      this->node(isl_ast_node_list_get_ast_node(children, i), out,
                 AstNode::Mapping::Sequential, 0);
    isl_ast_node_list_free(children);
    return;
  }
  case isl_ast_node_if: {
    AstNode guardNode;
    guardNode.kind = AstNode::Kind::If;
    guardNode.condition = condition(isl_ast_node_if_get_cond(node));
    this->node(isl_ast_node_if_get_then_node(node), guardNode.children,
               AstNode::Mapping::Sequential, 0);
    if (isl_ast_node_if_has_else_node(node) == isl_bool_true)
      this->node(isl_ast_node_if_get_else_node(node), guardNode.elseChildren,
                 AstNode::Mapping::Sequential, 0);
    out.push_back(std::move(guardNode));
    return;
  }
  case isl_ast_node_mark: {
    // `<kind>_<depth>_<members>` (see markName in Schedule.cpp).
    std::string mark = idName(isl_ast_node_mark_get_id(node));
    auto [rest, membersText] = llvm::StringRef(mark).rsplit('_');
    auto [kind, depthText] = rest.rsplit('_');
    unsigned depth = 0, members = 0;
    if (depthText.getAsInteger(10, depth) ||
        membersText.getAsInteger(10, members))
      throw Untranslatable{"an unknown mark '" + mark + "'"};
    AstNode::Mapping mapping = kind == "group" ? AstNode::Mapping::Group
                               : kind == "work_items"
                                   ? AstNode::Mapping::WorkItem
                                   : AstNode::Mapping::Sequential;
    markedIterators.clear();
    for (unsigned member = 0; member < members; ++member)
      markedIterators.push_back("c" + std::to_string(depth + member));
    if (mapping == AstNode::Mapping::WorkItem)
      chainIterators.clear();
    if (mapping != AstNode::Mapping::Group) {
      this->node(isl_ast_node_mark_get_node(node), out, mapping, 0);
      return;
    }
    // Everything below a group mark is one kernel, also when isl dropped
    // the group loops (a single group) and left a block of several parts.
    std::vector<AstNode> kernel;
    this->node(isl_ast_node_mark_get_node(node), kernel, mapping, 0);
    if (kernel.size() == 1) {
      out.push_back(std::move(kernel.front()));
      return;
    }
    AstNode &block = out.emplace_back();
    block.kind = AstNode::Kind::Block;
    block.children = std::move(kernel);
    return;
  }
  case isl_ast_node_user:
    out.push_back(userNode(node));
    return;
  default:
    throw Untranslatable{"an unknown AST node"};
  }
}

/// Renames scop statements to the def's statements.
void renumber(AstNode &node, llvm::ArrayRef<ScopStatement> statements) {
  if (node.kind == AstNode::Kind::Instance)
    node.statement = statements[node.statement].defStatement;
  for (AstNode &child : node.children)
    renumber(child, statements);
  for (AstNode &child : node.elseChildren)
    renumber(child, statements);
}

/// The launch grid of a kernel: the trip counts of its leading chain of
/// group loops.
std::array<int64_t, 3> gridOf(const AstNode &root) {
  std::array<int64_t, 3> grid = {1, 1, 1};
  const AstNode *node = &root;
  while (node->kind == AstNode::Kind::Block && node->children.size() == 1)
    node = &node->children[0];
  while (node->kind == AstNode::Kind::For &&
         node->mapping == AstNode::Mapping::Group) {
    grid[node->mappedDim] = *evaluate(node->hi) - *evaluate(node->lo);
    if (node->children.size() != 1)
      break;
    node = &node->children[0];
  }
  return grid;
}

/// Clears Group mappings that do not form the kernel's leading chain: only
/// that chain becomes `group_id`.
void dropStrayGroups(AstNode &node, bool leading) {
  bool isGroup = node.kind == AstNode::Kind::For &&
                 node.mapping == AstNode::Mapping::Group;
  if (isGroup && !leading)
    node.mapping = AstNode::Mapping::Sequential;
  bool childLeading = (leading && isGroup && node.children.size() == 1) ||
                      (leading && node.kind == AstNode::Kind::Block &&
                       node.children.size() == 1);
  for (AstNode &child : node.children)
    dropStrayGroups(child, childLeading);
  for (AstNode &child : node.elseChildren)
    dropStrayGroups(child, false);
}

} // namespace

llvm::Expected<llvm::SmallVector<MappedKernel, 2>>
comprehend::poly::translateAst(const isl::ast_node &ast,
                               llvm::ArrayRef<std::string> params,
                               llvm::ArrayRef<ScopStatement> statements) {
  Translator translator(params, statements);
  std::vector<AstNode> top;
  try {
    translator.node(ast.copy(), top, AstNode::Mapping::Sequential, 0);
  } catch (const Untranslatable &error) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot translate isl's AST: " +
                                       error.reason);
  }
  // Each top-level node is a kernel, except that consecutive ones of a
  // single work-group share one: its parts run in order, separated by
  // barriers where they touch what an earlier part wrote (a scalar
  // reduction's init and its parallel sum), which saves launches.
  constexpr std::array<int64_t, 3> oneGroup = {1, 1, 1};
  llvm::SmallVector<MappedKernel, 2> kernels;
  for (AstNode &node : top) {
    renumber(node, statements);
    MappedKernel part;
    part.root.kind = AstNode::Kind::Block;
    part.root.children.push_back(std::move(node));
    dropStrayGroups(part.root, true);
    part.grid = gridOf(part.root);
    if (!kernels.empty() && kernels.back().grid == oneGroup &&
        part.grid == oneGroup) {
      AstNode &root = kernels.back().root;
      for (AstNode &child : part.root.children)
        root.children.push_back(std::move(child));
      dropStrayGroups(root, true);
      continue;
    }
    kernels.push_back(std::move(part));
  }
  return kernels;
}
