//===- Atomics.cpp - OpenCL 64-bit atomics as LLVM atomics ----------------===//
//
// libclc's nvptx bitcode has the 32-bit atom_* / atomic_* built-ins but not
// those of cl_khr_int64_base_atomics / cl_khr_int64_extended_atomics, which
// the backend emits for i64 atomics on cores with int64Atomics (every
// NVIDIA core: PTX has 64-bit atom.* on global and shared memory). They
// are defined here as libclc defines the 32-bit ones: one seq_cst
// atomicrmw or cmpxchg.
//
//===----------------------------------------------------------------------===//
#include "PtxInternal.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <optional>

using namespace comprehend::backend;
using namespace comprehend::backend::ptx;
using BinOp = llvm::AtomicRMWInst::BinOp;

namespace {

/// An atomic built-in: its operation (BAD_BINOP for cmpxchg) and whether
/// it has a value operand.
struct AtomicBuiltin {
  BinOp operation;
  bool isCompareExchange = false;
  bool isIncDec = false;
};

/// Reads `atom_max(unsigned long volatile AS1*, unsigned long)` and the
/// like; nullopt for anything else.
std::optional<AtomicBuiltin> parseAtomic(llvm::StringRef demangled) {
  llvm::StringRef name = demangled.take_until([](char c) { return c == '('; });
  if (!name.consume_front("atom_") && !name.consume_front("atomic_"))
    return std::nullopt;
  bool isUnsigned = demangled.drop_front(name.size()).contains("(unsigned");
  AtomicBuiltin builtin{BinOp::BAD_BINOP};
  builtin.isCompareExchange = name == "cmpxchg";
  builtin.isIncDec = name == "inc" || name == "dec";
  builtin.operation = llvm::StringSwitch<BinOp>(name)
                          .Cases("add", "inc", BinOp::Add)
                          .Cases("sub", "dec", BinOp::Sub)
                          .Case("xchg", BinOp::Xchg)
                          .Case("and", BinOp::And)
                          .Case("or", BinOp::Or)
                          .Case("xor", BinOp::Xor)
                          .Case("min", isUnsigned ? BinOp::UMin : BinOp::Min)
                          .Case("max", isUnsigned ? BinOp::UMax : BinOp::Max)
                          .Default(BinOp::BAD_BINOP);
  if (builtin.operation == BinOp::BAD_BINOP && !builtin.isCompareExchange)
    return std::nullopt;
  return builtin;
}

void define(llvm::Function &function, const AtomicBuiltin &op) {
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(function.getContext(), "entry", &function));
  llvm::Value *pointer = function.getArg(0);
  llvm::Type *type = function.getReturnType();
  auto seqCst = llvm::AtomicOrdering::SequentiallyConsistent;
  llvm::Value *result;
  if (op.isCompareExchange) {
    auto *exchange = builder.CreateAtomicCmpXchg(
        pointer, function.getArg(1), function.getArg(2), llvm::MaybeAlign(8),
        seqCst, seqCst);
    result = builder.CreateExtractValue(exchange, 0);
  } else {
    llvm::Value *value = function.getArg(op.isIncDec ? 0 : 1);
    if (op.isIncDec)
      value = llvm::ConstantInt::get(type, 1);
    result = builder.CreateAtomicRMW(op.operation, pointer, value,
                                     llvm::MaybeAlign(8), seqCst);
  }
  builder.CreateRet(result);
  function.setLinkage(llvm::GlobalValue::InternalLinkage);
}

} // namespace

void ptx::defineInt64Atomics(llvm::Module &module) {
  for (llvm::Function &function : module) {
    llvm::FunctionType *type = function.getFunctionType();
    if (!function.isDeclaration() || function.isIntrinsic() ||
        !type->getReturnType()->isIntegerTy(64) || type->getNumParams() < 1 ||
        !type->getParamType(0)->isPointerTy())
      continue;
    std::optional<AtomicBuiltin> op =
        parseAtomic(llvm::demangle(function.getName().str()));
    unsigned params = !op                     ? 0
                      : op->isCompareExchange ? 3
                      : op->isIncDec          ? 1
                                              : 2;
    if (op && type->getNumParams() == params)
      define(function, *op);
  }
}
