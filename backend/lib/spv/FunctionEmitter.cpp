//===- FunctionEmitter.cpp - One kernel as SPIR-V -------------------------===//
#include "spv/FunctionEmitter.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Program.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;

FunctionEmitter::FunctionEmitter(ModuleState &module,
                                 const ir::Function &function,
                                 const KernelShape &shape,
                                 DiagnosticEngine &diags)
    : module(module), builder(module.builder), types(module.types),
      function(function), shape(shape), diags(diags),
      openclStd(module.builder.getExtInstImport("OpenCL.std")) {}

//===----------------------------------------------------------------------===//
// Plumbing
//===----------------------------------------------------------------------===//

Id FunctionEmitter::emitValue(::spv::Op op, Id type,
                              llvm::ArrayRef<Word> operands) {
  Id result = newId();
  llvm::SmallVector<Word, 8> words = {type, result};
  words.append(operands.begin(), operands.end());
  code->emit(op, words);
  return result;
}

Id FunctionEmitter::emitExt(OpenCLLIB::Entrypoints inst, Id type,
                            llvm::ArrayRef<Id> operands) {
  llvm::SmallVector<Word, 8> words = {openclStd, static_cast<Word>(inst)};
  words.append(operands.begin(), operands.end());
  return emitValue(::spv::OpExtInst, type, words);
}

void FunctionEmitter::startBlock(Id label) {
  code->emit(::spv::OpLabel, {label});
  currentBlock = label;
}

Id FunctionEmitter::getValue(const ir::Value *value) const {
  auto it = scalars.find(value);
  assert(it != scalars.end() && "value used before its definition");
  return it->second;
}

const MemRefDesc &FunctionEmitter::getMemRef(const ir::Value *value) const {
  auto it = memrefs.find(value);
  assert(it != memrefs.end() && "memref used before its definition");
  return it->second;
}

const GroupDesc &FunctionEmitter::getGroup(const ir::Value *value) const {
  auto it = groups.find(value);
  assert(it != groups.end() && "group used before its definition");
  return it->second;
}

void FunctionEmitter::bindLike(const ir::Value *value, const ir::Value *from) {
  if (auto it = scalars.find(from); it != scalars.end())
    scalars[value] = it->second;
  else if (auto it = memrefs.find(from); it != memrefs.end())
    memrefs[value] = it->second;
  else if (auto it = groups.find(from); it != groups.end())
    groups[value] = it->second;
}

Id FunctionEmitter::constI64(int64_t value) {
  Id id = builder.getConstantInt(types.getIndexType(),
                                 static_cast<uint64_t>(value));
  i64Constants.try_emplace(id, value);
  return id;
}

Id FunctionEmitter::addI64(Id a, Id b) {
  auto ca = i64Constants.find(a), cb = i64Constants.find(b);
  bool knownA = ca != i64Constants.end(), knownB = cb != i64Constants.end();
  if (knownA && knownB)
    return constI64(
        static_cast<int64_t>(uint64_t(ca->second) + uint64_t(cb->second)));
  if (knownA && ca->second == 0)
    return b;
  if (knownB && cb->second == 0)
    return a;
  return emitValue(::spv::OpIAdd, types.getIndexType(), {a, b});
}

Id FunctionEmitter::mulI64(Id a, Id b) {
  auto ca = i64Constants.find(a), cb = i64Constants.find(b);
  bool knownA = ca != i64Constants.end(), knownB = cb != i64Constants.end();
  if (knownA && knownB)
    return constI64(
        static_cast<int64_t>(uint64_t(ca->second) * uint64_t(cb->second)));
  if ((knownA && ca->second == 0) || (knownB && cb->second == 0))
    return constI64(0);
  if (knownA && ca->second == 1)
    return b;
  if (knownB && cb->second == 1)
    return a;
  return emitValue(::spv::OpIMul, types.getIndexType(), {a, b});
}

Id FunctionEmitter::constI32(int64_t value) {
  return builder.getConstantInt(types.getI32Type(),
                                static_cast<uint64_t>(value));
}

Id FunctionEmitter::getBuiltin(::spv::BuiltIn builtin) {
  auto [it, inserted] = module.builtins.try_emplace(builtin, 0);
  if (inserted) {
    // Imported through LinkageAttributes: LLVMSPIRVLib's reverse translation
    // needs it (a measured PoCL fact; runtime/include/comprehend/runtime/
    // SpirBridge.h says what the bridge accepts).
    Id vec3 = builder.getVectorType(types.getIndexType(), 3);
    Id pointer = builder.getPointerType(::spv::StorageClassInput, vec3);
    it->second = builder.addGlobalVariable(pointer, ::spv::StorageClassInput);
    builder.addDecoration(it->second, ::spv::DecorationBuiltIn, {builtin});
    builder.addDecoration(it->second, ::spv::DecorationConstant);
    llvm::StringRef name;
    switch (builtin) {
    case ::spv::BuiltInWorkgroupId:
      name = "__spirv_BuiltInWorkgroupId";
      break;
    case ::spv::BuiltInNumWorkgroups:
      name = "__spirv_BuiltInNumWorkgroups";
      break;
    case ::spv::BuiltInLocalInvocationId:
      name = "__spirv_BuiltInLocalInvocationId";
      break;
    default:
      llvm_unreachable("built-in without import name");
    }
    builder.addLinkageDecoration(it->second, name, ::spv::LinkageTypeImport);
  }
  if (!llvm::is_contained(interface, it->second))
    interface.push_back(it->second);
  return it->second;
}

Id FunctionEmitter::loadBuiltin(::spv::BuiltIn builtin, unsigned component) {
  auto [it, inserted] =
      builtinValues.try_emplace(unsigned(builtin) * 4 + component, 0);
  if (!inserted)
    return it->second;
  // Loaded in the entry block, which dominates every use.
  Id variable = getBuiltin(builtin);
  Id i64 = types.getIndexType();
  Id vec3 = builder.getVectorType(i64, 3);
  Id vector = newId();
  entryCode.emit(::spv::OpLoad, {vec3, vector, variable});
  it->second = newId();
  entryCode.emit(::spv::OpCompositeExtract,
                 {i64, it->second, vector, component});
  return it->second;
}

InFlightDiagnostic FunctionEmitter::emitUnsupported(const ir::Instruction &inst,
                                                    const llvm::Twine &why) {
  return diags.emitError(inst.getLoc())
         << "cannot emit '" << inst.getName() << "' as SPIR-V for target '"
         << module.core.name << "': " << why.str();
}

//===----------------------------------------------------------------------===//
// Regions and dispatch
//===----------------------------------------------------------------------===//

LogicalResult FunctionEmitter::emitRegion(const ir::Region &region) {
  LogicalResult result = success();
  for (const ir::Instruction &inst : region)
    if (failed(emitInstruction(const_cast<ir::Instruction &>(inst))))
      result = failure();
  return result;
}

LogicalResult FunctionEmitter::emitInstruction(ir::Instruction &inst) {
  using ir::InstTrait;
  if (inst.hasTrait(InstTrait::MemoryAccess))
    return emitMemoryInst(inst);
  if (inst.hasTrait(InstTrait::Builtin) || inst.hasTrait(InstTrait::SubgroupOp))
    return emitBuiltinInst(inst);
  switch (inst.getKind()) {
  case InstKind::Parallel:
    // Every work-item runs the SPMD region; nothing to distribute.
    return emitRegion(ir::ParallelInst(&inst).getBody());
  case InstKind::For:
    return emitFor(ir::ForInst(&inst));
  case InstKind::If:
    return emitIf(ir::IfInst(&inst));
  case InstKind::Yield:
    // Read by the enclosing for/if (getYieldedIds).
    return success();
  case InstKind::LifetimeStop:
    // The place-local-memory pass used the stop to share bytes.
    return success();
  case InstKind::Fma:
  case InstKind::Select:
  case InstKind::VectorSplat:
  case InstKind::VectorExtract:
  case InstKind::VectorInsert:
    return emitPartInst(inst);
  case InstKind::VectorLoad:
  case InstKind::VectorStore:
    return emitVectorAccess(inst);
  default:
    return emitArithmeticInst(inst);
  }
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Whether the lowering passes remove \p inst before emission: BLAS,
/// foreach, and (lower-coopmatrix) every instruction on cooperative
/// matrices.
static bool isLoweredBeforeEmission(const ir::Instruction &inst) {
  auto isCoop = [](const ir::Value *value) {
    return llvm::isa<ir::CoopMatrixType>(value->getType());
  };
  return inst.hasTrait(ir::InstTrait::Blas) ||
         inst.hasTrait(ir::InstTrait::ForeachLoop) ||
         inst.hasTrait(ir::InstTrait::CoopMatrix) ||
         llvm::any_of(inst.getOperands(), isCoop) ||
         llvm::any_of(inst.getResults(), isCoop);
}

LogicalResult FunctionEmitter::checkLowered(const ir::Region &region) {
  for (const ir::Instruction &inst : region) {
    if (isLoweredBeforeEmission(inst))
      return diags.emitError(inst.getLoc())
             << "compiler bug: '" << inst.getName()
             << "' reached SPIR-V emission; the lowering passes must remove "
                "it (was its pass left out of the pipeline?)";
    for (const ir::Region *nested : inst.getRegions())
      if (failed(checkLowered(*nested)))
        return failure();
  }
  return success();
}

LogicalResult FunctionEmitter::emit(KernelInfo &info) {
  // Checked up front: the values of an instruction left unlowered would be
  // missing for its users.
  if (failed(checkLowered(function.getBody())))
    return failure();
  info.name = function.getName().str();
  info.subgroupSize = shape.subgroupSize;
  info.workGroupSize = shape.workGroupSize;

  Id voidType = builder.getVoidType();
  Id functionId = newId();
  llvm::SmallVector<Id, 8> paramTypes;
  InstructionStream header;
  code = &header;
  emitParameters(paramTypes, info.args);

  InstructionStream body;
  code = &body;
  Id entryLabel = newId();
  currentBlock = entryLabel;
  LogicalResult result = emitRegion(function.getBody());
  code->emit(::spv::OpReturn, {});
  if (failed(result))
    return failure();

  InstructionStream &out = builder.getFunctions();
  Id functionType = builder.getFunctionType(voidType, paramTypes);
  out.emit(::spv::OpFunction, {voidType, functionId,
                               ::spv::FunctionControlMaskNone, functionType});
  out.append(header);
  out.emit(::spv::OpLabel, {entryLabel});
  out.append(variables);
  out.append(entryCode);
  out.append(body);
  out.emit(::spv::OpFunctionEnd, {});

  builder.addEntryPoint(::spv::ExecutionModelKernel, functionId,
                        function.getName(), interface);
  builder.addExecutionMode(functionId, ::spv::ExecutionModeLocalSize,
                           {shape.workGroupSize[0], shape.workGroupSize[1], 1});
  if (shape.subgroupSize > 1 && !module.core.spirv.openCL12Shaped) {
    builder.addCapability(::spv::CapabilitySubgroupDispatch);
    builder.addExecutionMode(functionId, ::spv::ExecutionModeSubgroupSize,
                             {shape.subgroupSize});
  }
  info.localMemoryBytes = localMemoryBytes;
  return success();
}

std::optional<CompiledProgram> comprehend::backend::spv::emitModule(
    const ir::Program &program, const CoreInfo &core, DiagnosticEngine &diags) {
  // OpenCL 1.2-shaped modules stay at SPIR-V 1.0 (what LLVMSPIRVLib reads
  // back for SPIR 1.2); other cores get 1.2 for SubgroupSize.
  uint32_t version = core.spirv.openCL12Shaped ? 0x00010000 : 0x00010200;
  ModuleBuilder builder(std::min(version, core.spirv.maxVersion));
  builder.addCapability(::spv::CapabilityAddresses);
  builder.addCapability(::spv::CapabilityLinkage);
  builder.addCapability(::spv::CapabilityKernel);
  builder.addCapability(::spv::CapabilityInt64);
  builder.setMemoryModel(::spv::AddressingModelPhysical64,
                         ::spv::MemoryModelOpenCL);
  ModuleState state(builder, core);
  if (!core.dedicatedLocalMemory) {
    state.sharedArena.emplace();
    for (const ir::Function &function : program)
      measureLocalArena(function, state.sharedArena->bytes,
                        state.sharedArena->alignment);
  }
  CompiledProgram compiled;
  LogicalResult result = success();
  for (const ir::Function &function : program) {
    std::optional<KernelShape> shape = selectKernelShape(function, core, diags);
    if (!shape) {
      result = failure();
      continue;
    }
    KernelInfo info;
    FunctionEmitter emitter(state, function, *shape, diags);
    if (failed(emitter.emit(info))) {
      result = failure();
      continue;
    }
    compiled.kernels.push_back(std::move(info));
  }
  if (failed(result))
    return std::nullopt;
  compiled.spirv = builder.finalize();
  return compiled;
}
