//===- Subgroups.cpp - OpenCL subgroup built-ins as warp shuffles ---------===//
//
// libclc has no subgroup built-ins for nvptx. On an NVIDIA core the subgroup
// is the warp: the backend makes subgroups the runs of 32 work-items along x
// of a work-group whose x size is a multiple of 32 (KernelShape.cpp), which
// are exactly CUDA's warps. Reductions are butterflies of
// shfl.sync.bfly, scans Hillis-Steele steps of shfl.sync.up, broadcasts one
// shfl.sync.idx; all 32 lanes take part (full mask), as SPIR-V requires
// subgroup collectives in uniform control flow.
//
//===----------------------------------------------------------------------===//
#include "PtxInternal.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <optional>

using namespace comprehend::backend;
using namespace comprehend::backend::ptx;

namespace {

enum class Collective { Reduce, InclusiveScan, ExclusiveScan, Broadcast };
enum class Combine { Add, Min, Max, None };

/// What one subgroup built-in computes.
struct SubgroupBuiltin {
  Collective collective;
  Combine combine = Combine::None;
  bool isUnsigned = false;
};

/// Reads an OpenCL name such as `sub_group_scan_inclusive_max(unsigned
/// int)` or `sub_group_broadcast(float, unsigned int)`.
std::optional<SubgroupBuiltin> parseOpenCLName(llvm::StringRef demangled) {
  llvm::StringRef name = demangled.take_until([](char c) { return c == '('; });
  llvm::StringRef params = demangled.drop_front(name.size());
  if (!name.consume_front("sub_group_"))
    return std::nullopt;
  SubgroupBuiltin builtin{Collective::Broadcast};
  builtin.isUnsigned = params.startswith("(unsigned");
  if (name == "broadcast")
    return builtin;
  if (name.consume_front("reduce_"))
    builtin.collective = Collective::Reduce;
  else if (name.consume_front("scan_inclusive_"))
    builtin.collective = Collective::InclusiveScan;
  else if (name.consume_front("scan_exclusive_"))
    builtin.collective = Collective::ExclusiveScan;
  else
    return std::nullopt;
  builtin.combine = llvm::StringSwitch<Combine>(name)
                        .Case("add", Combine::Add)
                        .Case("min", Combine::Min)
                        .Case("max", Combine::Max)
                        .Default(Combine::None);
  if (builtin.combine == Combine::None)
    return std::nullopt;
  return builtin;
}

/// Moves \p value's bits to i32 words and back, so that any scalar or
/// vector of up to 64 bits (a complex number) goes through the i32
/// shuffles.
class WarpShuffler {
public:
  WarpShuffler(llvm::IRBuilder<> &builder, llvm::Type *type)
      : builder(builder), type(type),
        bits(type->getPrimitiveSizeInBits().getFixedSize()),
        i32(builder.getInt32Ty()) {}

  /// shfl.sync.<mode> of \p value with operand \p laneOrDelta.
  llvm::Value *shuffle(llvm::Intrinsic::ID id, llvm::Value *value,
                       llvm::Value *laneOrDelta, unsigned clamp) {
    llvm::Value *asInt = builder.CreateBitCast(
        value, builder.getIntNTy(static_cast<unsigned>(bits)));
    llvm::Type *wide = builder.getIntNTy(bits > 32 ? 64 : 32);
    asInt = builder.CreateZExt(asInt, wide);
    llvm::Value *result = llvm::ConstantInt::get(wide, 0);
    for (unsigned word = 0; word * 32 < bits; ++word) {
      llvm::Value *part =
          builder.CreateTrunc(builder.CreateLShr(asInt, word * 32), i32);
      llvm::Value *moved = builder.CreateIntrinsic(
          id, {},
          {builder.getInt32(~0u), part, laneOrDelta, builder.getInt32(clamp)});
      result = builder.CreateOr(
          result,
          builder.CreateShl(builder.CreateZExt(moved, wide), word * 32));
    }
    result = builder.CreateTrunc(
        result, builder.getIntNTy(static_cast<unsigned>(bits)));
    return builder.CreateBitCast(result, type);
  }

private:
  llvm::IRBuilder<> &builder;
  llvm::Type *type;
  uint64_t bits;
  llvm::Type *i32;
};

llvm::Value *combine(llvm::IRBuilder<> &builder, const SubgroupBuiltin &op,
                     llvm::Value *a, llvm::Value *b) {
  bool isFloat = a->getType()->isFPOrFPVectorTy();
  switch (op.combine) {
  case Combine::Add:
    return isFloat ? builder.CreateFAdd(a, b) : builder.CreateAdd(a, b);
  case Combine::Min:
    return builder.CreateBinaryIntrinsic(isFloat ? llvm::Intrinsic::minnum
                                         : op.isUnsigned
                                             ? llvm::Intrinsic::umin
                                             : llvm::Intrinsic::smin,
                                         a, b);
  case Combine::Max:
    return builder.CreateBinaryIntrinsic(isFloat ? llvm::Intrinsic::maxnum
                                         : op.isUnsigned
                                             ? llvm::Intrinsic::umax
                                             : llvm::Intrinsic::smax,
                                         a, b);
  case Combine::None:
    break;
  }
  return a;
}

/// The value an exclusive scan gives lane 0.
llvm::Constant *getIdentity(const SubgroupBuiltin &op, llvm::Type *type) {
  if (op.combine == Combine::Add)
    return llvm::Constant::getNullValue(type);
  bool isMax = op.combine == Combine::Max;
  if (type->isFloatingPointTy())
    return llvm::ConstantFP::getInfinity(type, /*Negative=*/isMax);
  unsigned bits = type->getScalarSizeInBits();
  llvm::APInt value = op.isUnsigned
                          ? (isMax ? llvm::APInt::getMinValue(bits)
                                   : llvm::APInt::getMaxValue(bits))
                          : (isMax ? llvm::APInt::getSignedMinValue(bits)
                                   : llvm::APInt::getSignedMaxValue(bits));
  return llvm::ConstantInt::get(type, value);
}

llvm::Value *emitReduce(llvm::IRBuilder<> &builder, const SubgroupBuiltin &op,
                        llvm::Value *value) {
  WarpShuffler shuffler(builder, value->getType());
  for (unsigned mask = kWarpSize / 2; mask >= 1; mask /= 2) {
    llvm::Value *other =
        shuffler.shuffle(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, value,
                         builder.getInt32(mask), kWarpSize - 1);
    value = combine(builder, op, value, other);
  }
  return value;
}

llvm::Value *emitScan(llvm::IRBuilder<> &builder, const SubgroupBuiltin &op,
                      llvm::Value *value) {
  WarpShuffler shuffler(builder, value->getType());
  llvm::Value *lane = builder.CreateIntrinsic(
      llvm::Intrinsic::nvvm_read_ptx_sreg_laneid, {}, {});
  for (unsigned delta = 1; delta < kWarpSize; delta *= 2) {
    llvm::Value *other =
        shuffler.shuffle(llvm::Intrinsic::nvvm_shfl_sync_up_i32, value,
                         builder.getInt32(delta), 0);
    llvm::Value *takes = builder.CreateICmpUGE(lane, builder.getInt32(delta));
    value =
        builder.CreateSelect(takes, combine(builder, op, value, other), value);
  }
  if (op.collective == Collective::InclusiveScan)
    return value;
  llvm::Value *previous = shuffler.shuffle(
      llvm::Intrinsic::nvvm_shfl_sync_up_i32, value, builder.getInt32(1), 0);
  return builder.CreateSelect(builder.CreateICmpEQ(lane, builder.getInt32(0)),
                              getIdentity(op, value->getType()), previous);
}

/// Gives the declaration \p function the body of \p op.
llvm::Error define(llvm::Function &function, const SubgroupBuiltin &op) {
  llvm::FunctionType *type = function.getFunctionType();
  unsigned params = op.collective == Collective::Broadcast ? 2 : 1;
  llvm::Type *valueType = type->getReturnType();
  if (type->getNumParams() != params || type->getParamType(0) != valueType ||
      !(valueType->isIntOrIntVectorTy() || valueType->isFPOrFPVectorTy()) ||
      valueType->getPrimitiveSizeInBits() > 64 ||
      (params == 2 && !type->getParamType(1)->isIntegerTy()))
    return makePtxError(PtxError::Kind::Unsupported,
                        "the subgroup built-in '" +
                            llvm::demangle(function.getName().str()) +
                            "' has a signature the warp lowering does not "
                            "know");
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(function.getContext(), "entry", &function));
  llvm::Value *value = function.getArg(0);
  llvm::Value *result;
  if (op.collective == Collective::Broadcast) {
    llvm::Value *lane =
        builder.CreateZExtOrTrunc(function.getArg(1), builder.getInt32Ty());
    result = WarpShuffler(builder, valueType)
                 .shuffle(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, value, lane,
                          kWarpSize - 1);
  } else if (op.collective == Collective::Reduce) {
    result = emitReduce(builder, op, value);
  } else {
    result = emitScan(builder, op, value);
  }
  builder.CreateRet(result);
  function.setLinkage(llvm::GlobalValue::InternalLinkage);
  function.addFnAttr(llvm::Attribute::Convergent);
  function.addFnAttr(llvm::Attribute::AlwaysInline);
  return llvm::Error::success();
}

} // namespace

llvm::Error ptx::defineSubgroupBuiltins(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (!function.isDeclaration() || function.isIntrinsic())
      continue;
    std::string demangled = llvm::demangle(function.getName().str());
    if (std::optional<SubgroupBuiltin> op = parseOpenCLName(demangled)) {
      if (llvm::Error error = define(function, *op))
        return error;
    } else if (llvm::StringRef(demangled).startswith("sub_group_") ||
               function.getName().startswith("__spirv_Group")) {
      return makePtxError(PtxError::Kind::Unsupported,
                          "the subgroup built-in '" + demangled +
                              "' has no warp lowering",
                          demangled);
    }
  }
  return llvm::Error::success();
}
