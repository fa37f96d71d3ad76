//===- CoopPartsMemory.cpp - Coopmatrix loads and stores as parts ---------===//
//
// A coopmatrix access touches tile element (i, j) at memref indices
// (x + i, y + j), or (x + j, y + i) when transposed. On subgroup size 1 the
// parts of a column (see CoopLayout) are contiguous when mode 0 has stride 1
// and the access is not transposed: they become vector_load / vector_store
// (load / store for width 1); a column outside a checked mode reads zeros
// (from column 0, which is in bounds) or is skipped as a whole; a padded
// part moves its used lanes in runs of the greedy split. With rows
// checked, an `if` takes this form when all rows of the tile are inside
// the memref and the per-element form at the edge. The other accesses
// (transposed, atomics, f16/bf16, lanes > 1) go element by element with a
// bounds test per component; out-of-bounds components read element (0, 0)
// and give 0, or are skipped (their atomic update reports 0).
//
//===----------------------------------------------------------------------===//
#include "Passes/CoopParts.h"
#include "Passes/PartBuilder.h"

#include "llvm/Support/MathExtras.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::ScalarKind;

namespace {

/// A cooperative-matrix memory access, read by the table's names: each has
/// the memref `operand`, the coordinates `x` and `y`, `transpose` and
/// `checked`; stores and atomic updates the matrix `val`; atomics `scope`
/// and `semantics`.
struct CoopAccess {
  ir::Instruction *inst = nullptr;
  ir::Value *memref = nullptr, *x = nullptr, *y = nullptr;
  /// The matrix stored or combined; null for loads.
  ir::Value *matrix = nullptr;
  /// The matrix type loaded or stored.
  const ir::CoopMatrixType *type = nullptr;
  bool isLoad = false, isAtomic = false;
  ir::Transpose transpose = ir::Transpose::N;
  bool checkRows = false, checkCols = false;
  ir::MemoryScope scope = ir::MemoryScope::WorkGroup;
  ir::MemorySemantics semantics = ir::MemorySemantics::Relaxed;

  const ir::MemRefType *getMemRefType() const {
    return llvm::cast<ir::MemRefType>(memref->getType());
  }
};

CoopAccess readCoopAccess(ir::Instruction &inst) {
  const ir::InstDescriptor &desc = inst.getDescriptor();
  auto operand = [&](llvm::StringRef name) -> ir::Value * {
    std::optional<unsigned> group = desc.findOperand(name);
    return group ? inst.getOperandGroup(*group).front() : nullptr;
  };
  // Every access has these (the table's coopmatrix memory instructions).
  auto required = [&](llvm::StringRef name) {
    return inst.getOperandGroup(*desc.findOperand(name)).front();
  };
  CoopAccess access;
  access.inst = &inst;
  access.memref = required("operand");
  access.x = required("x");
  access.y = required("y");
  access.matrix = operand("val");
  access.isLoad = !access.matrix;
  access.type = llvm::cast<ir::CoopMatrixType>(
      (access.isLoad ? inst.getResult(0) : access.matrix)->getType());
  auto property = [&](llvm::StringRef name) -> std::optional<int64_t> {
    if (std::optional<unsigned> index = desc.findProperty(name))
      return inst.getInteger(*index);
    return std::nullopt;
  };
  access.transpose = static_cast<ir::Transpose>(*property("transpose"));
  auto checked = static_cast<ir::CheckedFlag>(*property("checked"));
  access.checkRows =
      checked == ir::CheckedFlag::Rows || checked == ir::CheckedFlag::Both;
  access.checkCols =
      checked == ir::CheckedFlag::Cols || checked == ir::CheckedFlag::Both;
  if (std::optional<int64_t> scope = property("scope")) {
    access.isAtomic = true;
    access.scope = static_cast<ir::MemoryScope>(*scope);
    access.semantics = static_cast<ir::MemorySemantics>(*property("semantics"));
  }
  return access;
}

/// Splits one access; the builder's insertion point is before it.
class AccessSplitter {
public:
  AccessSplitter(PartBuilder &pb, const CoopAccess &access)
      : pb(pb), b(pb.getBuilder()), access(access), loc(access.inst->getLoc()),
        layout(pb.layoutOf(access.type)) {}

  /// The loaded parts, the parts of the old values of an atomic update, or
  /// nothing for a store.
  Parts split() {
    if (!canAccessAsVectors())
      return packed(elementAccess());
    if (!access.checkRows)
      return vectorAccess();
    // Rows checked: the vector form when all rows of the tile are inside
    // the memref (interior tiles), the per-element form at the edge.
    ir::Value *end = pb.addIndex(access.x, layout.blocks, loc);
    ir::Value *inside =
        b.create<ir::UnsignedLessThanEqualInst>(loc, end, size(0)).getResult();
    llvm::SmallVector<const ir::Type *, 16> types;
    if (access.isLoad)
      for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part)
        types.push_back(pb.partType(access.type->getComponentKind(),
                                    layout.getWidth(part)));
    auto branch = b.create<ir::IfInst>(loc, types, inside);
    b.setInsertionPointToEnd(branch.getThen());
    Parts vectorParts = vectorAccess();
    if (access.isLoad)
      b.create<ir::YieldInst>(loc, vectorParts);
    b.setInsertionPointToEnd(branch.getElse());
    Parts elementParts = packed(elementAccess());
    if (access.isLoad)
      b.create<ir::YieldInst>(loc, elementParts);
    b.setInsertionPointAfter(branch);
    llvm::ArrayRef<ir::Value *> results = branch->getResults();
    return Parts(results.begin(), results.end());
  }

private:
  ir::Value *size(unsigned mode) {
    const ir::MemRefType *type = access.getMemRefType();
    if (!type->isDynamicShape(mode))
      return pb.index(type->getShape(mode), loc);
    return b.create<ir::SizeInst>(loc, access.memref, mode).getResult();
  }

  Parts packed(Parts components) {
    if (components.empty())
      return components;
    return pb.pack(access.type, components, loc);
  }

  /// Whether the access may move whole column chunks as vectors once its
  /// rows are known to be in bounds.
  bool canAccessAsVectors() const {
    const ir::MemRefType *memref = access.getMemRefType();
    ScalarKind elem = memref->getElementKind();
    return !access.isAtomic && !layout.isScalar() &&
           access.transpose == ir::Transpose::N &&
           elem == access.type->getComponentKind() && elem != ScalarKind::F16 &&
           elem != ScalarKind::BF16 && memref->getStride(0) == 1;
  }

  /// \p test and the tests so far.
  void require(ir::Value *&condition, ir::Value *test) {
    condition = condition
                    ? b.create<ir::AndInst>(loc, condition, test).getResult()
                    : test;
  }

  /// The vector form (rows in bounds): the loaded parts, or nothing for a
  /// store.
  Parts vectorAccess() {
    unsigned chunks = layout.getPartsPerColumn();
    ScalarKind elem = access.getMemRefType()->getElementKind();
    Parts values;
    if (!access.isLoad)
      values = pb.getParts(access.matrix);
    Parts results;
    for (unsigned j = 0; j < layout.cols; ++j) {
      ir::Value *col = pb.addIndex(access.y, j, loc);
      ir::Value *valid = nullptr;
      if (access.checkCols)
        valid =
            b.create<ir::UnsignedLessThanInst>(loc, col, size(1)).getResult();
      ir::Instruction *guard = nullptr;
      if (valid && !access.isLoad) {
        // A column outside the memref is not stored.
        guard = b.create<ir::IfInst>(loc, llvm::ArrayRef<const ir::Type *>(),
                                     valid);
        b.setInsertionPointToEnd(ir::IfInst(guard).getThen());
      }
      // A column outside the memref reads column 0 (in bounds) and is
      // replaced by zeros.
      ir::Value *readCol =
          valid && access.isLoad
              ? b.create<ir::SelectInst>(loc, valid, col, pb.index(0, loc))
                    .getResult()
              : col;
      for (unsigned chunk = 0; chunk < chunks; ++chunk) {
        unsigned width = layout.widths[chunk];
        ir::Value *row = pb.addIndex(access.x, layout.starts[chunk], loc);
        if (!access.isLoad) {
          ir::Value *value = values[chunk + chunks * j];
          if (layout.getUsedLanes(chunk) != width)
            storePadded(value, layout.getUsedLanes(chunk), row, col);
          else
            storeRun(value, width, row, col);
          continue;
        }
        const ir::Type *type = pb.partType(elem, width);
        ir::Value *value =
            layout.getUsedLanes(chunk) != width
                ? loadPadded(type, layout.getUsedLanes(chunk), row, readCol)
                : loadRun(type, row, readCol);
        if (valid)
          value =
              b.create<ir::SelectInst>(loc, valid, value, pb.zero(type, loc))
                  .getResult();
        results.push_back(value);
      }
      if (guard)
        b.setInsertionPointAfter(guard);
    }
    return results;
  }

  /// A number (width 1) or vector of \p type at (\p row, \p col).
  ir::Value *loadRun(const ir::Type *type, ir::Value *row, ir::Value *col) {
    ir::Value *indices[] = {row, col};
    if (!llvm::isa<ir::VectorType>(type))
      return b.create<ir::LoadInst>(loc, access.memref, indices).getResult();
    return b.create<ir::VectorLoadInst>(loc, type, access.memref, indices)
        .getResult();
  }

  /// Stores \p value, a number (width 1) or vector, at (\p row, \p col).
  void storeRun(ir::Value *value, unsigned width, ir::Value *row,
                ir::Value *col) {
    ir::Value *indices[] = {row, col};
    if (width == 1)
      b.create<ir::StoreInst>(loc, value, access.memref, indices);
    else
      b.create<ir::VectorStoreInst>(loc, value, access.memref, indices);
  }

  /// The used lanes of a padded part in runs of the greedy split (9: 8 and
  /// 1), which are what memory holds of the column.
  static llvm::SmallVector<unsigned, 4> getRuns(unsigned used) {
    llvm::SmallVector<unsigned, 4> runs;
    while (used) {
      runs.push_back(static_cast<unsigned>(llvm::PowerOf2Floor(used)));
      used -= runs.back();
    }
    return runs;
  }

  /// A padded part of \p type: its \p used lanes loaded run by run and
  /// moved into a zero vector (LLVM turns the moves into shuffles).
  ir::Value *loadPadded(const ir::Type *type, unsigned used, ir::Value *row,
                        ir::Value *col) {
    ScalarKind elem = access.getMemRefType()->getElementKind();
    ir::Value *part = pb.zero(type, loc);
    unsigned lane = 0;
    for (unsigned run : getRuns(used)) {
      ir::Value *value =
          loadRun(pb.partType(elem, run), pb.addIndex(row, lane, loc), col);
      for (unsigned i = 0; i < run; ++i, ++lane) {
        ir::Value *component =
            run == 1
                ? value
                : b.create<ir::VectorExtractInst>(loc, value, i).getResult();
        part = b.create<ir::VectorInsertInst>(loc, component, part, lane)
                   .getResult();
      }
    }
    return part;
  }

  /// Stores the \p used lanes of padded part \p part run by run.
  void storePadded(ir::Value *part, unsigned used, ir::Value *row,
                   ir::Value *col) {
    ScalarKind elem = access.getMemRefType()->getElementKind();
    unsigned lane = 0;
    for (unsigned run : getRuns(used)) {
      ir::Value *value =
          run == 1 ? nullptr : pb.zero(pb.partType(elem, run), loc);
      for (unsigned i = 0; i < run; ++i, ++lane) {
        ir::Value *component =
            b.create<ir::VectorExtractInst>(loc, part, lane).getResult();
        value = run == 1
                    ? component
                    : b.create<ir::VectorInsertInst>(loc, component, value, i)
                          .getResult();
      }
      storeRun(value, run, pb.addIndex(row, lane - run, loc), col);
    }
  }

  /// The per-element form: the loaded components or old values, or nothing
  /// for a store.
  Parts elementAccess() {
    const ir::MemRefType *memref = access.getMemRefType();
    ScalarKind elem = memref->getElementKind();
    const ir::Type *valueType = pb.partType(elem, 1);
    ir::Instruction &inst = *access.inst;
    Parts values;
    if (!access.isLoad)
      values = pb.getComponents(access.matrix, loc);
    bool isTransposed = access.transpose == ir::Transpose::T;
    bool hasPadding = access.type->getRows() % pb.getSubgroupSize() != 0;
    unsigned blocks = layout.blocks;
    Parts results;
    for (unsigned k = 0, e = layout.getNumComponents(); k < e; ++k) {
      ir::Value *row = pb.rowOf(k % blocks, loc);
      int64_t col = k / blocks;
      // Memref indices: (x + i, y + j), or (x + j, y + i) when transposed.
      ir::Value *first = isTransposed ? pb.addIndex(access.x, col, loc)
                                      : pb.add(access.x, row, loc);
      ir::Value *second = isTransposed ? pb.add(access.y, row, loc)
                                       : pb.addIndex(access.y, col, loc);
      ir::Value *rowIndex = isTransposed ? second : first;
      ir::Value *colIndex = isTransposed ? first : second;
      unsigned rowMode = isTransposed ? 1 : 0;
      ir::Value *condition = nullptr;
      if (hasPadding)
        require(condition, b.create<ir::LessThanInst>(
                                loc, row, pb.index(access.type->getRows(), loc))
                               .getResult());
      if (access.checkRows)
        require(condition,
                b.create<ir::UnsignedLessThanInst>(loc, rowIndex, size(rowMode))
                    .getResult());
      if (access.checkCols)
        require(condition, b.create<ir::UnsignedLessThanInst>(loc, colIndex,
                                                              size(1 - rowMode))
                               .getResult());

      if (access.isLoad) {
        // Out-of-bounds components read element (0, 0) and give 0.
        if (condition) {
          first = select(condition, first, pb.index(0, loc));
          second = select(condition, second, pb.index(0, loc));
        }
        ir::Value *indices[] = {first, second};
        ir::Value *value =
            access.isAtomic
                ? b.create<ir::AtomicLoadInst>(loc, access.memref, indices,
                                               access.scope, access.semantics)
                      .getResult()
                : b.create<ir::LoadInst>(loc, access.memref, indices)
                      .getResult();
        if (condition)
          value = select(condition, value, pb.zero(valueType, loc));
        results.push_back(value);
        continue;
      }

      bool hasResult = inst.getNumResults() != 0;
      ir::IfInst guard;
      if (condition) {
        llvm::SmallVector<const ir::Type *, 1> types;
        if (hasResult)
          types.push_back(valueType);
        guard = b.create<ir::IfInst>(loc, types, condition);
        b.setInsertionPointToEnd(guard.getThen());
      }
      ir::Value *result = store(values[k], {first, second});
      if (!condition) {
        if (result)
          results.push_back(result);
        continue;
      }
      if (result) {
        // Skipped components report 0 as their old value.
        b.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{result});
        b.setInsertionPointToEnd(guard.getElse());
        b.create<ir::YieldInst>(
            loc, llvm::ArrayRef<ir::Value *>{pb.zero(valueType, loc)});
        results.push_back(guard->getResult(0));
      }
      b.setInsertionPointAfter(guard);
    }
    return results;
  }

  /// Stores \p value at \p indices, atomically if asked; the old value of
  /// an atomic update.
  ir::Value *store(ir::Value *value, llvm::ArrayRef<ir::Value *> indices) {
    ir::Instruction &inst = *access.inst;
    if (!access.isAtomic) {
      b.create<ir::StoreInst>(loc, value, access.memref, indices);
      return nullptr;
    }
    if (inst.getNumResults() == 0) {
      b.create<ir::AtomicStoreInst>(loc, value, access.memref, indices,
                                    access.scope, access.semantics);
      return nullptr;
    }
    // atomic_add/max/min: the table's combine names the update.
    std::optional<ir::InstKind> kind = ir::lookupMnemonic(
        ("atomic_" + ir::getMnemonic(*inst.getDescriptor().combine)).str());
    assert(kind && "every coopmatrix atomic update has a scalar one");
    auto update = ir::Instruction::create(*kind, loc);
    llvm::SmallVector<ir::Value *, 4> operands{value, access.memref};
    llvm::append_range(operands, indices);
    update->setOperands(operands, {1, 1, unsigned(indices.size())});
    const ir::InstDescriptor &desc = update->getDescriptor();
    update->setProperty(*desc.findProperty("scope"),
                        static_cast<int64_t>(access.scope));
    update->setProperty(*desc.findProperty("semantics"),
                        static_cast<int64_t>(access.semantics));
    ir::Value *old = update->addResult(value->getType());
    b.insert(std::move(update));
    return old;
  }

  ir::Value *select(ir::Value *condition, ir::Value *a, ir::Value *other) {
    return b.create<ir::SelectInst>(loc, condition, a, other).getResult();
  }

  PartBuilder &pb;
  ir::Builder &b;
  const CoopAccess &access;
  Location loc;
  CoopLayout layout;
};

} // namespace

Parts comprehend::backend::splitCoopAccess(PartBuilder &pb,
                                           ir::Instruction &inst) {
  CoopAccess access = readCoopAccess(inst);
  return AccessSplitter(pb, access).split();
}

std::optional<std::string>
comprehend::backend::checkCoopAtomic(const ir::Instruction &inst,
                                     const CoreInfo &core) {
  const ir::InstDescriptor &desc = inst.getDescriptor();
  if (!desc.findProperty("scope"))
    return std::nullopt;
  auto *memref = llvm::cast<ir::MemRefType>(
      inst.getOperandGroup(*desc.findOperand("operand")).front()->getType());
  ScalarKind elem = memref->getElementKind();
  unsigned bytes = ir::getSizeInBytes(ir::getComponentKind(elem));
  if (elem == ScalarKind::F16 || elem == ScalarKind::BF16 || bytes < 4)
    return "atomics need 32- or 64-bit elements, but the memref holds " +
           ir::stringify(elem).str();
  if (bytes == 8 && !core.features.int64Atomics)
    return std::string("the target has no 64-bit atomics");
  return std::nullopt;
}
