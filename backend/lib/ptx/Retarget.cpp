//===- Retarget.cpp - SPIR 1.2 IR to NVPTX IR -----------------------------===//
#include "PtxInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace comprehend::backend;
using namespace comprehend::backend::ptx;

char PtxError::ID = 0;

void PtxError::log(llvm::raw_ostream &os) const { os << text; }

std::error_code PtxError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error ptx::makePtxError(PtxError::Kind kind, const llvm::Twine &message,
                              llvm::StringRef function) {
  return llvm::make_error<PtxError>(kind, message.str(), function.str());
}

namespace {
// SPIR's address spaces that NVPTX numbers differently (NVPTX: 0 generic,
// 1 global, 3 shared, 4 const, 5 local).
enum : unsigned { kSpirConstant = 2, kSpirGeneric = 4 };
} // namespace

/// The first pointer type of \p type or its elements in SPIR's constant or
/// generic address space, as that address space; 0 when there is none.
static unsigned findForeignAddressSpace(llvm::Type *type) {
  if (auto *pointer = llvm::dyn_cast<llvm::PointerType>(type)) {
    unsigned space = pointer->getAddressSpace();
    return space == kSpirConstant || space == kSpirGeneric ? space : 0;
  }
  for (llvm::Type *element : type->subtypes())
    if (unsigned space = findForeignAddressSpace(element))
      return space;
  return 0;
}

/// Our SPIR-V modules are OpenCL 1.2-shaped: private (Function), global
/// (CrossWorkgroup) and local (Workgroup) memory only, whose SPIR numbers
/// NVPTX reads as generic (where allocas live until NVPTX moves them to
/// .local), global and shared. Constant and generic pointers would need a
/// renumbering no emitter path asks for; they are refused, not miscompiled.
static llvm::Error checkAddressSpaces(const llvm::Module &module) {
  auto refuse = [](unsigned space, llvm::StringRef where) {
    return makePtxError(PtxError::Kind::Unsupported,
                        "address space " + llvm::Twine(space) + " (SPIR " +
                            (space == kSpirConstant ? "constant" : "generic") +
                            ") in '" + where +
                            "' has no NVPTX counterpart in this translation");
  };
  for (const llvm::GlobalVariable &global : module.globals())
    if (unsigned space = findForeignAddressSpace(global.getType()))
      return refuse(space, global.getName());
  for (const llvm::Function &function : module) {
    if (unsigned space = findForeignAddressSpace(function.getFunctionType()))
      return refuse(space, function.getName());
    for (const llvm::Instruction &inst : llvm::instructions(function)) {
      unsigned space = findForeignAddressSpace(inst.getType());
      for (const llvm::Use &operand : inst.operands())
        if (!space)
          space = findForeignAddressSpace(operand->getType());
      if (space)
        return refuse(space, function.getName());
    }
  }
  return llvm::Error::success();
}

/// Adds `!{ptr @kernel, !"<key>", i32 value}` to !nvvm.annotations.
static void annotate(llvm::Function &kernel, llvm::StringRef key,
                     unsigned value) {
  llvm::LLVMContext &context = kernel.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Metadata *operands[] = {
      llvm::ValueAsMetadata::get(&kernel), llvm::MDString::get(context, key),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, value))};
  kernel.getParent()
      ->getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(context, operands));
}

/// The work-group size LLVMSPIRVLib read from the kernel's LocalSize
/// execution mode, if any.
static std::optional<std::array<unsigned, 3>>
getRequiredWorkGroupSize(const llvm::Function &kernel) {
  llvm::MDNode *node = kernel.getMetadata("reqd_work_group_size");
  if (!node || node->getNumOperands() != 3)
    return std::nullopt;
  std::array<unsigned, 3> size;
  for (unsigned i = 0; i < 3; ++i) {
    auto *value =
        llvm::mdconst::dyn_extract<llvm::ConstantInt>(node->getOperand(i));
    if (!value)
      return std::nullopt;
    size[i] = static_cast<unsigned>(value->getZExtValue());
  }
  return size;
}

static void annotateKernel(llvm::Function &kernel, unsigned maxThreads) {
  annotate(kernel, "kernel", 1);
  static const char *const reqntid[] = {"reqntidx", "reqntidy", "reqntidz"};
  if (auto size = getRequiredWorkGroupSize(kernel)) {
    for (unsigned i = 0; i < 3; ++i)
      annotate(kernel, reqntid[i], (*size)[i]);
    return;
  }
  annotate(kernel, "maxntidx", maxThreads);
  annotate(kernel, "maxntidy", 1);
  annotate(kernel, "maxntidz", 1);
}

llvm::Error ptx::retargetToNvptx(llvm::Module &module,
                                 const llvm::DataLayout &layout,
                                 unsigned maxThreads) {
  if (llvm::Error error = checkAddressSpaces(module))
    return error;
  module.setTargetTriple(kNvptxTriple);
  module.setDataLayout(layout);
  for (llvm::Function &function : module) {
    bool isKernel = function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL;
    // libclc's built-ins and the kernels' callees alike use the C
    // convention on NVPTX; a call whose convention differs from its
    // callee's is undefined behaviour that InstCombine turns into a trap.
    function.setCallingConv(llvm::CallingConv::C);
    for (llvm::Instruction &inst : llvm::instructions(function))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        call->setCallingConv(llvm::CallingConv::C);
    if (isKernel)
      annotateKernel(function, maxThreads);
  }
  return llvm::Error::success();
}

/// One entry of !nvvm.annotations, read by name. An entry is the tuple
/// `!{ptr @function, !"<key>", i32 value}` (see annotate above): operand 0
/// the annotated function, operand 1 the key, operand 2 the value.
struct NvvmAnnotation {
  enum Operand : unsigned { FunctionOperand, KeyOperand, ValueOperand };

  explicit NvvmAnnotation(const llvm::MDNode &node) : node(node) {}

  /// The annotated function, or null if the entry names none.
  const llvm::Function *getFunction() const {
    if (node.getNumOperands() <= FunctionOperand)
      return nullptr;
    return llvm::mdconst::dyn_extract_or_null<llvm::Function>(
        node.getOperand(FunctionOperand));
  }
  /// The key (`kernel`, `reqntidx`, ...), or empty if the entry has none.
  llvm::StringRef getKey() const {
    if (node.getNumOperands() <= KeyOperand)
      return {};
    auto *key = llvm::dyn_cast_or_null<llvm::MDString>(
        node.getOperand(KeyOperand).get());
    return key ? key->getString() : llvm::StringRef();
  }

  const llvm::MDNode &node;
};

/// Whether \p function is one of the module's kernels.
static bool isKernel(const llvm::Function &function) {
  llvm::NamedMDNode *annotations =
      function.getParent()->getNamedMetadata("nvvm.annotations");
  if (!annotations)
    return false;
  return llvm::any_of(annotations->operands(), [&](llvm::MDNode *node) {
    NvvmAnnotation annotation(*node);
    return annotation.getKey() == "kernel" &&
           annotation.getFunction() == &function;
  });
}

void ptx::finishLinkedModule(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    function.removeFnAttr("target-cpu");
    function.removeFnAttr("target-features");
    if (!isKernel(function))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  for (llvm::GlobalVariable &global : module.globals())
    if (!global.isDeclaration())
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
}

static llvm::Error makeUnresolvedError(llvm::StringRef name) {
  std::string demangled = llvm::demangle(name.str());
  return makePtxError(PtxError::Kind::UnresolvedFunction,
                      "the kernels call '" + demangled +
                          "', which neither the module nor libclc defines",
                      demangled);
}

llvm::Error ptx::checkResolved(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    if (function.isDeclaration() && !function.isIntrinsic() &&
        !function.use_empty())
      return makeUnresolvedError(function.getName());
  return llvm::Error::success();
}

llvm::Error ptx::checkResolvedPtx(llvm::StringRef ptx) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  ptx.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front(".extern .func"))
      continue;
    // `.extern .func (.param .b32 retval) name(...)`: the name is the last
    // word before the parameter list.
    llvm::StringRef head = line.take_until([](char c) { return c == '('; });
    if (head.trim().empty()) {
      head = line.drop_until([](char c) { return c == ')'; }).drop_front();
      head = head.take_until([](char c) { return c == '('; });
    }
    return makeUnresolvedError(head.trim());
  }
  return llvm::Error::success();
}
