//===- SpirBridge.cpp - SPIR-V to SPIR 1.2 bitcode ------------------------===//
#include "comprehend/runtime/SpirBridge.h"
#include "comprehend/runtime/Error.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

#include <memory>
#include <sstream>

using namespace comprehend::runtime;

llvm::Expected<std::string>
comprehend::runtime::translateSpirvToSpir12(llvm::ArrayRef<uint32_t> words) {
  if (words.size() < 5 || words[0] != 0x07230203)
    return makeDeviceError("not a SPIR-V module: the magic number is missing");

  llvm::LLVMContext context;
  // PoCL 3.1 (LLVM 15) links typed-pointer bitcode; opaque pointers would
  // need LLVM 16's SPIR consumers.
  context.setOpaquePointers(false);
  SPIRV::TranslatorOpts opts;
  opts.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL12);

  std::istringstream stream(std::string(
      reinterpret_cast<const char *>(words.data()), words.size() * 4));
  llvm::Module *rawModule = nullptr;
  std::string message;
  bool ok = llvm::readSpirv(context, opts, stream, rawModule, message);
  std::unique_ptr<llvm::Module> module(rawModule);
  if (!ok || !module)
    return makeDeviceError("cannot translate SPIR-V to SPIR 1.2: " +
                           (message.empty() ? "unknown reason" : message));

  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(*module, &verifierStream))
    return makeDeviceError(
        "the SPIR 1.2 translation of the module is invalid LLVM IR: " +
        verifierStream.str());

  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*module, os);
  os.flush();
  return bitcode;
}
