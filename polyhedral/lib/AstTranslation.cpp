//===- AstTranslation.cpp - isl's AST to the mapper's AST -----------------===//
#include "AstTranslation.h"

#include "Mapping.h"
#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

#include <functional>

using namespace comprehend::poly;
using Kind = IndexExpr::Kind;

namespace {

/// Thrown (and caught in translateAst) for an AST that has no AstNode form.
struct Untranslatable {
  std::string reason;
};

/// The name of an identifier expression (a loop iterator, a parameter or a
/// statement).
std::string idName(const isl::ast_expr &expr) {
  if (!expr.isa<isl::ast_expr_id>())
    throw Untranslatable{"an expression that is not an identifier"};
  return expr.as<isl::ast_expr_id>().id().name();
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

  IndexExpr expr(const isl::ast_expr &expr);
  AstCondition condition(const isl::ast_expr &expr);
  void node(const isl::ast_node &node, std::vector<AstNode> &out,
            AstNode::Mapping pending, unsigned depth);

private:
  IndexExpr operation(const isl::ast_expr_op &op);
  void forNode(const isl::ast_node_for &node, std::vector<AstNode> &out,
               AstNode::Mapping pending, unsigned depth);
  /// Whether the loop \p loop (bounds set) goes to \p pending.
  bool isMapped(const AstNode &loop, AstNode::Mapping pending,
                unsigned depth) const;
  void markNode(const isl::ast_node_mark &node, std::vector<AstNode> &out);
  void ifNode(const isl::ast_node_if &node, std::vector<AstNode> &out);
  AstNode userNode(const isl::ast_node_user &node);

  llvm::ArrayRef<std::string> params;
  llvm::ArrayRef<ScopStatement> statements;
  /// The iterators of the work-item loops of the current chain.
  llvm::SmallVector<std::string, 3> chainIterators;
  /// The loop iterators of the band under the current mark.
  llvm::SmallVector<std::string, 3> markedIterators;
};

IndexExpr Translator::expr(const isl::ast_expr &e) {
  if (e.isa<isl::ast_expr_int>())
    return IndexExpr::constant(e.as<isl::ast_expr_int>().val().get_num_si());
  if (e.isa<isl::ast_expr_id>()) {
    std::string name = idName(e);
    if (llvm::is_contained(params, name))
      return IndexExpr::param(name);
    return IndexExpr::var(name);
  }
  if (!e.isa<isl::ast_expr_op>())
    throw Untranslatable{"unknown AST expression"};
  return operation(e.as<isl::ast_expr_op>());
}

/// The IndexExpr kind that folds the arguments of \p op left to right.
std::optional<Kind> foldedKind(const isl::ast_expr_op &op) {
  if (op.isa<isl::ast_expr_op_add>())
    return Kind::Add;
  if (op.isa<isl::ast_expr_op_sub>())
    return Kind::Sub;
  if (op.isa<isl::ast_expr_op_mul>())
    return Kind::Mul;
  if (op.isa<isl::ast_expr_op_min>())
    return Kind::Min;
  if (op.isa<isl::ast_expr_op_max>())
    return Kind::Max;
  // Exact division, floor division and division of a non-negative number:
  // all agree with floor division where isl uses them.
  if (op.isa<isl::ast_expr_op_div>() || op.isa<isl::ast_expr_op_fdiv_q>() ||
      op.isa<isl::ast_expr_op_pdiv_q>())
    return Kind::FloorDiv;
  // Remainders: pdiv_r of a non-negative number; zdiv_r only in
  // comparisons with 0, where floor and truncating remainders agree.
  if (op.isa<isl::ast_expr_op_pdiv_r>() || op.isa<isl::ast_expr_op_zdiv_r>())
    return Kind::Mod;
  return std::nullopt;
}

IndexExpr Translator::operation(const isl::ast_expr_op &op) {
  if (op.isa<isl::ast_expr_op_minus>())
    return IndexExpr::neg(expr(op.arg(0)));
  std::optional<Kind> kind = foldedKind(op);
  if (!kind)
    throw Untranslatable{"an AST expression without IndexExpr form"};
  IndexExpr result = expr(op.arg(0));
  for (unsigned i = 1, e = op.n_arg(); i < e; ++i)
    result = IndexExpr::binary(*kind, std::move(result), expr(op.arg(i)));
  return result;
}

/// The comparison \p op makes, if it is one.
std::optional<AstCondition::Kind> comparisonKind(const isl::ast_expr_op &op) {
  using CK = AstCondition::Kind;
  if (op.isa<isl::ast_expr_op_eq>())
    return CK::Eq;
  if (op.isa<isl::ast_expr_op_le>())
    return CK::Le;
  if (op.isa<isl::ast_expr_op_lt>())
    return CK::Lt;
  if (op.isa<isl::ast_expr_op_ge>())
    return CK::Ge;
  if (op.isa<isl::ast_expr_op_gt>())
    return CK::Gt;
  return std::nullopt;
}

AstCondition Translator::condition(const isl::ast_expr &e) {
  if (!e.isa<isl::ast_expr_op>())
    throw Untranslatable{"a guard that is not a comparison"};
  auto op = e.as<isl::ast_expr_op>();
  using CK = AstCondition::Kind;
  AstCondition result;
  if (std::optional<CK> kind = comparisonKind(op)) {
    result.kind = *kind;
    result.lhs = fold(expr(op.arg(0)));
    result.rhs = fold(expr(op.arg(1)));
    return result;
  }
  if (op.isa<isl::ast_expr_op_and>() || op.isa<isl::ast_expr_op_and_then>())
    result.kind = CK::And;
  else if (op.isa<isl::ast_expr_op_or>() || op.isa<isl::ast_expr_op_or_else>())
    result.kind = CK::Or;
  else
    throw Untranslatable{"a guard that is not a comparison"};
  for (unsigned i = 0, n = op.n_arg(); i < n; ++i)
    result.operands.push_back(condition(op.arg(i)));
  return result;
}

/// The exclusive upper bound of \p iterator from a loop condition
/// `iterator <= e`, `iterator < e` or a conjunction of those.
IndexExpr upperBound(const AstCondition &cond, llvm::StringRef iterator) {
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

bool uses(const IndexExpr &expr, llvm::ArrayRef<std::string> names) {
  return llvm::any_of(expr.getVariables(), [&](const std::string &var) {
    return llvm::is_contained(names, var);
  });
}

bool Translator::isMapped(const AstNode &loop, AstNode::Mapping pending,
                          unsigned depth) const {
  // A mapped loop needs step 1; a group loop constant bounds; a work-item
  // loop bounds that do not depend on the other work-item loops.
  bool mapped = pending != AstNode::Mapping::Sequential && loop.step == 1 &&
                llvm::is_contained(markedIterators, loop.iterator);
  if (mapped && pending == AstNode::Mapping::Group)
    mapped = depth < 3 && evaluate(loop.lo) && evaluate(loop.hi);
  if (mapped && pending == AstNode::Mapping::WorkItem)
    mapped = !uses(loop.lo, chainIterators) && !uses(loop.hi, chainIterators);
  return mapped;
}

/// Whether \p loop (sequential, body translated) carries only the
/// dependences of a reduction: its body updates one LHS element throughout.
bool isReductionLoop(const AstNode &loop,
                     llvm::ArrayRef<ScopStatement> statements) {
  if (loop.mapping != AstNode::Mapping::Sequential ||
      loop.children.size() != 1 ||
      loop.children[0].kind != AstNode::Kind::Instance || loop.children[0].init)
    return false;
  const AstNode &instance = loop.children[0];
  const ScopStatement &stmt = statements[instance.statement];
  return stmt.reduction && llvm::none_of(stmt.lhsPositions, [&](unsigned pos) {
           return uses(instance.args[pos], {loop.iterator});
         });
}

void Translator::forNode(const isl::ast_node_for &node,
                         std::vector<AstNode> &out, AstNode::Mapping pending,
                         unsigned depth) {
  AstNode loop;
  loop.kind = AstNode::Kind::For;
  loop.iterator = idName(node.iterator());
  loop.lo = fold(expr(node.init()));
  if (node.is_degenerate()) {
    loop.hi =
        fold(IndexExpr::binary(Kind::Add, loop.lo, IndexExpr::constant(1)));
  } else {
    loop.hi = fold(upperBound(condition(node.cond()), loop.iterator));
  }
  IndexExpr step = fold(expr(node.inc()));
  if (step.getKind() != Kind::Constant || step.getValue() <= 0)
    throw Untranslatable{"a loop without a positive constant step"};
  loop.step = step.getValue();

  bool mapped = isMapped(loop, pending, depth);
  if (mapped) {
    loop.mapping = pending;
    loop.mappedDim = depth;
    if (pending == AstNode::Mapping::WorkItem)
      chainIterators.push_back(loop.iterator);
  }
  isl::ast_node body = node.body();
  // The chain of mapped loops continues only through directly nested loops.
  bool chain = mapped && body.isa<isl::ast_node_for>();
  this->node(body, loop.children,
             chain ? pending : AstNode::Mapping::Sequential, depth + 1);
  if (mapped && pending == AstNode::Mapping::WorkItem && !chain)
    chainIterators.clear();
  loop.reduction = isReductionLoop(loop, statements);
  out.push_back(std::move(loop));
}

AstNode Translator::userNode(const isl::ast_node_user &node) {
  isl::ast_expr call = node.expr();
  if (!call.isa<isl::ast_expr_op>() ||
      !call.as<isl::ast_expr_op>().isa<isl::ast_expr_op_call>())
    throw Untranslatable{"a statement that is not a call"};
  auto op = call.as<isl::ast_expr_op>();
  isl::ast_expr callee = op.arg(0);
  std::optional<unsigned> index;
  if (callee.isa<isl::ast_expr_id>())
    index = readStatementTag(callee.as<isl::ast_expr_id>().id());
  if (!index || *index >= statements.size())
    throw Untranslatable{"an unknown statement '" + idName(callee) + "'"};
  AstNode instance;
  instance.kind = AstNode::Kind::Instance;
  instance.statement = *index; // rewritten to the def's statement later
  for (unsigned i = 1, n = op.n_arg(); i < n; ++i)
    instance.args.push_back(fold(expr(op.arg(i))));
  instance.init = statements[*index].init;
  return instance;
}

void Translator::ifNode(const isl::ast_node_if &node,
                        std::vector<AstNode> &out) {
  AstNode guardNode;
  guardNode.kind = AstNode::Kind::If;
  guardNode.condition = condition(node.cond());
  this->node(node.then_node(), guardNode.children, AstNode::Mapping::Sequential,
             0);
  if (node.has_else_node())
    this->node(node.else_node(), guardNode.elseChildren,
               AstNode::Mapping::Sequential, 0);
  out.push_back(std::move(guardNode));
}

void Translator::markNode(const isl::ast_node_mark &node,
                          std::vector<AstNode> &out) {
  isl::id id = node.id();
  std::optional<LoopMark> mark = readLoopMark(id);
  if (!mark)
    throw Untranslatable{"an unknown mark '" + id.name() + "'"};
  markedIterators.clear();
  // isl's AST names the loop of schedule dimension d `c<d>`.
  for (unsigned member = 0; member < mark->members; ++member)
    markedIterators.push_back(("c" + llvm::Twine(mark->depth + member)).str());
  if (mark->mapping == AstNode::Mapping::WorkItem)
    chainIterators.clear();
  if (mark->mapping != AstNode::Mapping::Group) {
    this->node(node.node(), out, mark->mapping, 0);
    return;
  }
  // Everything below a group mark is one kernel, also when isl dropped
  // the group loops (a single group) and left a block of several parts.
  std::vector<AstNode> kernel;
  this->node(node.node(), kernel, mark->mapping, 0);
  if (kernel.size() == 1) {
    out.push_back(std::move(kernel.front()));
    return;
  }
  AstNode &block = out.emplace_back();
  block.kind = AstNode::Kind::Block;
  block.children = std::move(kernel);
}

void Translator::node(const isl::ast_node &node, std::vector<AstNode> &out,
                      AstNode::Mapping pending, unsigned depth) {
  if (node.isa<isl::ast_node_for>())
    return forNode(node.as<isl::ast_node_for>(), out, pending, depth);
  if (node.isa<isl::ast_node_block>()) {
    isl::ast_node_list children = node.as<isl::ast_node_block>().children();
    for (unsigned i = 0, n = children.size(); i < n; ++i)
      this->node(children.at(i), out, AstNode::Mapping::Sequential, 0);
    return;
  }
  if (node.isa<isl::ast_node_if>())
    return ifNode(node.as<isl::ast_node_if>(), out);
  if (node.isa<isl::ast_node_mark>())
    return markNode(node.as<isl::ast_node_mark>(), out);
  if (node.isa<isl::ast_node_user>()) {
    out.push_back(userNode(node.as<isl::ast_node_user>()));
    return;
  }
  throw Untranslatable{"an unknown AST node"};
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

/// One kernel per top-level node of \p ast.
llvm::Expected<llvm::SmallVector<MappedKernel, 2>>
translateAst(const isl::ast_node &ast, llvm::ArrayRef<std::string> params,
             llvm::ArrayRef<ScopStatement> statements) {
  Translator translator(params, statements);
  std::vector<AstNode> top;
  try {
    translator.node(ast, top, AstNode::Mapping::Sequential, 0);
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

} // namespace

llvm::Expected<MappedSchedule>
comprehend::poly::buildAst(const isl::schedule &schedule,
                           const isl::set &context,
                           llvm::ArrayRef<std::string> params,
                           llvm::ArrayRef<ScopStatement> statements) {
  isl::ast_build build = isl::ast_build::from_context(context);
  isl::ast_node ast = build.node_from(schedule);
  MappedSchedule result;
  result.scheduleTree = scheduleBlockText(schedule);
  result.astText = ast.to_C_str();
  llvm::Expected<llvm::SmallVector<MappedKernel, 2>> kernels =
      translateAst(ast, params, statements);
  if (!kernels)
    return kernels.takeError();
  result.kernels = std::move(*kernels);
  return result;
}
