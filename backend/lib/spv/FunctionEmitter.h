//===- FunctionEmitter.h - One kernel as SPIR-V -----------------*- C++ -*-===//
//
// Emits one lowered function as an OpenCL kernel, one instruction at a
// time. The emitter works on the IR after the lowering passes: collective
// BLAS instructions, foreach loops and cooperative matrices are gone (the
// latter split into per-work-item parts by lower-coopmatrix: numbers and
// `vector<...>`, OpenCL vectors here); only SPMD/mixed instructions and
// `parallel` remain.
//
// The member functions are spread over EmitXxx.cpp files by concern.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_SPV_FUNCTIONEMITTER_H
#define COMPREHEND_BACKEND_SPV_FUNCTIONEMITTER_H

#include "KernelShape.h"
#include "spv/ModuleBuilder.h"
#include "spv/TypeMapper.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <spirv/unified1/OpenCL.std.h>

#include <optional>

namespace comprehend::ir {
class Function;
} // namespace comprehend::ir

namespace comprehend::backend::spv {

/// The local arena every kernel of a module shares, as large as the
/// largest, on a core whose local memory lies in global memory: PoCL
/// reserves each module-scope local variable for every kernel of the
/// module, used or not, so that three kernels' arenas of 256 KiB overflowed
/// its 512 KiB (docs/devices.md). A GPU gives each kernel the local memory
/// of the variables it uses, and keeps an arena per kernel.
struct SharedLocalArena {
  uint64_t bytes = 0;
  uint64_t alignment = 16;
  /// The module-scope variable, once a kernel uses it.
  Id variable = 0;
};

/// State shared by all kernels of a module.
struct ModuleState {
  ModuleState(ModuleBuilder &builder, const CoreInfo &core)
      : builder(builder), types(builder), core(core) {}
  ModuleBuilder &builder;
  TypeMapper types;
  const CoreInfo &core;
  /// Imported built-in variables, by built-in.
  llvm::DenseMap<unsigned, Id> builtins;
  /// Set where the kernels share their local arena.
  std::optional<SharedLocalArena> sharedArena;
};

/// Grows \p bytes and \p alignment to hold the placed allocas of
/// \p function (the place-local-memory pass's `local_offset`).
void measureLocalArena(const ir::Function &function, uint64_t &bytes,
                       uint64_t &alignment);

/// A memref in registers: base pointer plus one i64 id per mode size and
/// stride (constants where the type knows them).
struct MemRefDesc {
  Id pointer = 0;
  const ir::MemRefType *type = nullptr;
  llvm::SmallVector<Id, 4> shape;
  llvm::SmallVector<Id, 4> stride;
};

/// A group in registers: pointer to the memref pointers, per dynamic mode a
/// pointer to the i64 array of that mode's sizes/strides (0 when static),
/// and the size and offset as i64 ids.
struct GroupDesc {
  Id pointer = 0;
  const ir::GroupType *type = nullptr;
  llvm::SmallVector<Id, 4> shapeArrays;
  llvm::SmallVector<Id, 4> strideArrays;
  Id size = 0;
  Id offset = 0;
};

class FunctionEmitter {
public:
  FunctionEmitter(ModuleState &module, const ir::Function &function,
                  const KernelShape &shape, DiagnosticEngine &diags);

  /// Emits the kernel and fills \p info; reports and fails on instructions
  /// that cannot be emitted.
  LogicalResult emit(KernelInfo &info);

private:
  //===--------------------------------------------------------------------===//
  // Plumbing (FunctionEmitter.cpp)
  //===--------------------------------------------------------------------===//
  Id newId() { return module.builder.allocateId(); }
  /// Emits an instruction without result.
  void emitOp(::spv::Op op, llvm::ArrayRef<Word> operands) {
    code->emit(op, operands);
  }
  /// Emits `%r = op type operands...` and returns %r.
  Id emitValue(::spv::Op op, Id type, llvm::ArrayRef<Word> operands);
  /// Emits an OpenCL.std extended instruction.
  Id emitExt(OpenCLLIB::Entrypoints inst, Id type, llvm::ArrayRef<Id> operands);
  void startBlock(Id label);
  void branch(Id target) { emitOp(::spv::OpBranch, {target}); }

  Id getValue(const ir::Value *value) const;
  const MemRefDesc &getMemRef(const ir::Value *value) const;
  const GroupDesc &getGroup(const ir::Value *value) const;
  void setValue(const ir::Value *value, Id id) { scalars[value] = id; }
  /// Binds \p value to what \p from is bound to (scalar, memref, group).
  void bindLike(const ir::Value *value, const ir::Value *from);

  Id constI64(int64_t value);
  Id constI32(int64_t value);
  /// i64 arithmetic that folds constants (index computations are full of
  /// zero offsets and unit strides).
  Id addI64(Id a, Id b);
  Id mulI64(Id a, Id b);
  Id getBuiltin(::spv::BuiltIn builtin);
  /// Component \p component of a vec3 built-in, as i64.
  Id loadBuiltin(::spv::BuiltIn builtin, unsigned component);

  LogicalResult emitRegion(const ir::Region &region);
  LogicalResult emitInstruction(ir::Instruction &inst);
  /// Reports the first instruction of \p region (at any depth) that a
  /// lowering pass should have removed.
  LogicalResult checkLowered(const ir::Region &region);
  InFlightDiagnostic emitUnsupported(const ir::Instruction &inst,
                                     const llvm::Twine &why);

  //===--------------------------------------------------------------------===//
  // Kernel interface (EmitInterface.cpp)
  //===--------------------------------------------------------------------===//
  void emitParameters(llvm::SmallVectorImpl<Id> &paramTypes,
                      std::vector<KernelArg> &args);
  Id addParameter(Id type, std::vector<KernelArg> &args, KernelArg arg);
  /// The kernel's parameters so far, and the name of the IR parameter
  /// being added.
  struct ParameterList {
    llvm::SmallVectorImpl<Id> &types;
    std::vector<KernelArg> &args;
    llvm::StringRef name;
  };
  /// Adds a parameter of \p type for \p arg, named after the IR parameter.
  Id addNamedParameter(ParameterList &params, Id type, KernelArg arg);
  void emitBoolParameter(ParameterList &params, const ir::Value *param,
                         unsigned index);
  void emitMemRefParameter(ParameterList &params, const ir::Value *param,
                           unsigned index);
  void emitGroupParameter(ParameterList &params, const ir::Value *param,
                          unsigned index);

  //===--------------------------------------------------------------------===//
  // Control flow (EmitControlFlow.cpp)
  //===--------------------------------------------------------------------===//
  LogicalResult emitFor(ir::ForInst inst);
  LogicalResult emitIf(ir::IfInst inst);
  /// The ids of the values a region's trailing yield yields.
  llvm::SmallVector<Id, 8> getYieldedIds(const ir::Region &region);
  llvm::SmallVector<Id, 8> flatten(llvm::ArrayRef<ir::Value *> values);
  /// The SPIR-V type of each of \p values.
  llvm::SmallVector<Id, 8> flattenTypes(llvm::ArrayRef<ir::Value *> values);
  /// Binds \p values to \p ids, one each.
  void bindFlattened(llvm::ArrayRef<ir::Value *> values,
                     llvm::ArrayRef<Id> ids);

  //===--------------------------------------------------------------------===//
  // Memory (EmitMemory.cpp)
  //===--------------------------------------------------------------------===//
  LogicalResult emitMemoryInst(ir::Instruction &inst);
  LogicalResult emitLoad(ir::LoadInst load);
  void emitBarrier(ir::BarrierInst barrier);
  /// The descriptors of the views a subview, expand or fuse makes.
  MemRefDesc describeSubview(ir::SubviewInst subview);
  MemRefDesc describeExpand(ir::ExpandInst expand);
  MemRefDesc describeFuse(ir::FuseInst fuse);
  /// Pointer to element \p indices of \p memref.
  Id getElementPointer(const MemRefDesc &memref, llvm::ArrayRef<Id> indices);
  Id getElementPointer(const MemRefDesc &memref, Id linearOffset);
  Id linearOffset(const MemRefDesc &memref, llvm::ArrayRef<Id> indices);
  Id loadElement(const MemRefDesc &memref, Id linearOffset);
  void storeElement(const MemRefDesc &memref, Id linearOffset, Id value);
  MemRefDesc loadFromGroup(const GroupDesc &group, Id index);
  LogicalResult emitAlloca(ir::AllocaInst inst);
  /// Pointer (to i8, Workgroup) to the arena of the allocas placed by the
  /// place-local-memory pass; made on first use.
  Id getLocalArena();
  LogicalResult emitAtomic(ir::Instruction &inst);
  /// Atomically applies \p combine (Add/Min/Max) at \p pointer; returns the
  /// old value. Floats use a compare-exchange loop.
  Id emitAtomicUpdate(ir::InstKind combine, ir::ScalarKind elem,
                      ir::AddressSpace space, Id pointer, Id value,
                      ir::MemoryScope scope, ir::MemorySemantics semantics);
  Id emitAtomicLoad(ir::ScalarKind elem, ir::AddressSpace space, Id pointer,
                    ir::MemoryScope scope, ir::MemorySemantics semantics);
  void emitAtomicStore(ir::ScalarKind elem, ir::AddressSpace space, Id pointer,
                       Id value, ir::MemoryScope scope,
                       ir::MemorySemantics semantics);
  /// Fails with a diagnostic if \p inst cannot be atomic on \p elem.
  LogicalResult checkAtomicElement(const ir::Instruction &inst,
                                   ir::ScalarKind elem);
  Id getScope(ir::MemoryScope scope);
  Id getSemantics(ir::MemorySemantics semantics, ir::AddressSpace space);

  //===--------------------------------------------------------------------===//
  // Arithmetic, comparisons, casts, math (EmitArithmetic.cpp)
  //===--------------------------------------------------------------------===//
  LogicalResult emitArithmeticInst(ir::Instruction &inst);
  void emitConstant(ir::ConstantInst inst);
  /// The table's opcode of \p kind for \p scalar operands (bool ones when
  /// \p scalar is empty), applied to \p operands.
  Id emitTableOp(ir::InstKind kind, std::optional<ir::ScalarKind> scalar,
                 Id type, llvm::ArrayRef<Id> operands);
  Id emitBinary(ir::InstKind kind, const ir::Type *type, Id a, Id b);
  /// \p width > 1 applies the operation to vectors of \p scalar (real and
  /// integer kinds only).
  Id emitScalarBinary(ir::InstKind kind, ir::ScalarKind scalar, Id a, Id b,
                      unsigned width = 1);
  Id emitScalarUnary(ir::InstKind kind, ir::ScalarKind scalar, Id a,
                     unsigned width = 1);
  Id emitCompare(ir::InstKind kind, ir::ScalarKind scalar, Id a, Id b);
  Id emitCast(ir::ScalarKind from, ir::ScalarKind to, Id value,
              unsigned width = 1);
  Id emitMath(ir::InstKind kind, ir::ScalarKind scalar, Id a);
  Id complexMul(ir::ScalarKind kind, Id a, Id b);
  Id complexDiv(ir::ScalarKind kind, Id a, Id b);
  /// a * b + c in \p kind (fma for floats).
  Id emitMulAdd(ir::ScalarKind kind, Id a, Id b, Id c, unsigned width = 1);
  Id makeComplex(ir::ScalarKind kind, Id re, Id im);

  //===--------------------------------------------------------------------===//
  // Built-ins and subgroup operations (EmitBuiltins.cpp)
  //===--------------------------------------------------------------------===//
  LogicalResult emitBuiltinInst(ir::Instruction &inst);
  Id getSubgroupLocalId();
  Id getSubgroupIdX();
  Id getSubgroupIdY();
  /// Reduce/scan over the subgroup; the identity for S = 1 scans.
  Id emitGroupOperation(ir::InstKind kind, ir::ScalarKind scalar, Id value);
  /// \p operation (a SPIR-V GroupOperation) with \p combine (Add, Max or
  /// Min) over a subgroup of more than one work-item.
  Id emitGroupCombine(ir::InstKind combine, Word operation,
                      ir::ScalarKind scalar, Id value);
  Id emitBroadcast(ir::ScalarKind scalar, Id value, Id lane);
  /// The identity of \p combine (Add, Max or Min) on \p scalar.
  Id getReductionIdentity(ir::InstKind combine, ir::ScalarKind scalar);

  //===--------------------------------------------------------------------===//
  // The parts of cooperative matrices (EmitParts.cpp)
  //===--------------------------------------------------------------------===//
  /// fma, select, vector_splat, vector_extract and vector_insert.
  LogicalResult emitPartInst(ir::Instruction &inst);
  /// vector_load and vector_store.
  LogicalResult emitVectorAccess(ir::Instruction &inst);
  /// The SPIR-V type of a part (number, vector) or bool.
  Id getPartType(const ir::Type *type);
  /// \p scalar's value type, or a vector of \p width of it.
  Id getVectorValueType(ir::ScalarKind scalar, unsigned width);
  /// A vector of \p width copies of \p value (\p value when width is 1).
  Id splat(ir::ScalarKind scalar, Id value, unsigned width);
  /// `bool ? a : b` on \p width values of \p scalar (complex values are
  /// float vectors): before SPIR-V 1.4 a vector select takes a vector
  /// condition, so the scalar \p condition is broadcast to one.
  Id selectValue(ir::ScalarKind scalar, unsigned width, Id condition, Id a,
                 Id b);
  /// A pointer to \p width elements of \p memref from \p offset on.
  Id getVectorPointer(const MemRefDesc &memref, Id offset, unsigned width);
  Id emitVectorLoad(const MemRefDesc &memref, Id offset, unsigned width);
  /// Honours the store's `align` and `nontemporal` attributes.
  void emitVectorStore(const MemRefDesc &memref, Id offset, Id value,
                       unsigned width, const ir::DictionaryAttr *attrs);

  ModuleState &module;
  ModuleBuilder &builder;
  TypeMapper &types;
  const ir::Function &function;
  KernelShape shape;
  DiagnosticEngine &diags;
  Id openclStd;

  InstructionStream *code = nullptr;
  /// The entry block's OpVariables, then loads of built-ins (which dominate
  /// every use from there).
  InstructionStream variables, entryCode;
  Id currentBlock = 0;
  llvm::SmallVector<Id, 4> interface;
  uint64_t localMemoryBytes = 0;
  Id localArena = 0;

  llvm::DenseMap<const ir::Value *, Id> scalars;
  llvm::DenseMap<const ir::Value *, MemRefDesc> memrefs;
  llvm::DenseMap<const ir::Value *, GroupDesc> groups;
  /// Built-in values loaded in the entry block, by (built-in, component).
  llvm::DenseMap<unsigned, Id> builtinValues;
  Id subgroupLocalId = 0, subgroupIdX = 0, subgroupIdY = 0;
  /// Values of the i64 constants made by constI64.
  llvm::DenseMap<Id, int64_t> i64Constants;
};

/// Emits every function of \p program into one module.
std::optional<CompiledProgram> emitModule(const ir::Program &program,
                                          const CoreInfo &core,
                                          DiagnosticEngine &diags);

} // namespace comprehend::backend::spv

#endif // COMPREHEND_BACKEND_SPV_FUNCTIONEMITTER_H
