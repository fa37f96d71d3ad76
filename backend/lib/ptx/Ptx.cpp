//===- Ptx.cpp - From SPIR-V to PTX for NVIDIA GPUs -----------------------===//
#include "comprehend/backend/Ptx.h"
#include "comprehend/backend/SpirBridge.h"

#include "PtxInternal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

using namespace comprehend::backend;
using namespace comprehend::backend::ptx;

std::string comprehend::backend::getLibclcNvptxPath(const PtxOptions &options) {
  if (!options.libclcPath.empty())
    return options.libclcPath;
  if (const char *path = std::getenv("COMPREHEND_LIBCLC_NVPTX"); path && *path)
    return path;
  return "/usr/lib/clc/nvptx64--nvidiacl.bc";
}

PtxTarget comprehend::backend::getPtxTarget(unsigned computeCapability) {
  // The sm_XY LLVM 15's NVPTX target knows, ascending.
  static const unsigned known[] = {35, 37, 50, 52, 53, 60, 61,
                                   62, 70, 72, 75, 80, 86};
  PtxTarget target{known[0], 70};
  for (unsigned sm : known)
    if (sm <= computeCapability)
      target.sm = sm;
  // PTX 7.0 introduced sm_80, 7.1 sm_86; 7.0 has everything else we use.
  target.ptxVersion = target.sm >= 86 ? 71 : 70;
  return target;
}

static const llvm::Target *getNvptxTarget(std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  return llvm::TargetRegistry::lookupTarget(kNvptxTriple, error);
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CoreInfo &core) {
  std::string error;
  const llvm::Target *target = getNvptxTarget(error);
  if (!target)
    return makePtxError(PtxError::Kind::Internal,
                        "LLVM has no NVPTX target: " + error);
  PtxTarget ptx = getPtxTarget(core.cudaComputeCapability);
  std::string cpu = "sm_" + std::to_string(ptx.sm);
  std::string features = "+ptx" + std::to_string(ptx.ptxVersion);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      kNvptxTriple, cpu, features, llvm::TargetOptions(), llvm::None,
      llvm::None, llvm::CodeGenOpt::Aggressive));
  if (!machine)
    return makePtxError(PtxError::Kind::Internal,
                        "LLVM cannot create an NVPTX target for " + cpu);
  return machine;
}

/// Reads the SPIR-V back as LLVM IR in \p context. The translation makes
/// typed-pointer bitcode (PoCL's format); reading it here upgrades it to
/// the opaque pointers libclc 15's bitcode has, so that the two link.
static llvm::Expected<std::unique_ptr<llvm::Module>>
readSpirv(llvm::LLVMContext &context, llvm::ArrayRef<uint32_t> spirv) {
  llvm::Expected<std::string> bitcode = translateSpirvToSpir12(spirv);
  if (!bitcode)
    return makePtxError(PtxError::Kind::Internal,
                        llvm::toString(bitcode.takeError()));
  auto module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(*bitcode, "spirv"), context);
  if (!module)
    return makePtxError(PtxError::Kind::Internal,
                        "cannot read the translated module back: " +
                            llvm::toString(module.takeError()));
  return std::move(*module);
}

static llvm::Error linkLibclc(llvm::Module &module, const PtxOptions &options) {
  std::string path = getLibclcNvptxPath(options);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makePtxError(PtxError::Kind::MissingLibclc,
                        "cannot read libclc's bitcode for nvptx64 '" + path +
                            "': " + buffer.getError().message() +
                            " (Debian package libclc-15)");
  // Lazily: linking only what the kernels need then reads only those of
  // libclc's ~10000 functions.
  auto libclc =
      llvm::getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
  if (!libclc)
    return makePtxError(PtxError::Kind::MissingLibclc,
                        "'" + path + "' cannot be read as LLVM 15 bitcode: " +
                            llvm::toString(libclc.takeError()));
  (*libclc)->setTargetTriple(module.getTargetTriple());
  (*libclc)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*libclc),
                                llvm::Linker::LinkOnlyNeeded))
    return makePtxError(PtxError::Kind::Internal,
                        "cannot link libclc's bitcode '" + path + "'");
  return llvm::Error::success();
}

static llvm::Error verify(const llvm::Module &module, llvm::StringRef stage) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(module, &os))
    return makePtxError(PtxError::Kind::Internal,
                        "the NVPTX module is invalid " + stage + ": " +
                            os.str());
  return llvm::Error::success();
}

static void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, modules);
}

static llvm::Expected<std::string> print(llvm::Module &module,
                                         llvm::TargetMachine &machine) {
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, llvm::CGFT_AssemblyFile))
    return makePtxError(PtxError::Kind::Internal,
                        "LLVM's NVPTX target cannot emit PTX");
  passes.run(module);
  return std::string(ptx.str());
}

llvm::Expected<std::string>
comprehend::backend::emitPtx(llvm::ArrayRef<uint32_t> spirv,
                             const CoreInfo &core, const PtxOptions &options) {
  if (!core.isNvidia())
    return makePtxError(PtxError::Kind::Unsupported,
                        "core '" + core.name + "' is not an NVIDIA GPU");
  auto machine = createTargetMachine(core);
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  // Fixed before the typed-pointer bitcode is read, which would otherwise
  // put the context in typed-pointer mode.
  context.setOpaquePointers(true);
  auto module = readSpirv(context, spirv);
  if (!module)
    return module.takeError();
  llvm::Module &ir = **module;
  if (llvm::Error error = retargetToNvptx(ir, (*machine)->createDataLayout(),
                                          core.maxWorkGroupSize))
    return error;
  if (llvm::Error error = defineSubgroupBuiltins(ir))
    return error;
  defineInt64Atomics(ir);
  if (llvm::Error error = linkLibclc(ir, options))
    return error;
  finishLinkedModule(ir);
  if (llvm::Error error = verify(ir, "after linking libclc"))
    return error;
  optimize(ir, **machine);
  if (llvm::Error error = checkResolved(ir))
    return error;
  if (llvm::Error error = verify(ir, "after optimization"))
    return error;
  auto ptx = print(ir, **machine);
  if (!ptx)
    return ptx.takeError();
  if (llvm::Error error = checkResolvedPtx(*ptx))
    return error;
  return ptx;
}
