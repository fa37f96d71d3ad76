//===- Spirv.cpp - Validating and printing SPIR-V modules -----------------===//
#include "comprehend/backend/Spirv.h"
#include "comprehend/backend/CoreInfo.h"

#include "llvm/Support/raw_ostream.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv/unified1/spirv.hpp>

using namespace comprehend::backend;

/// Whether \p words declares \p capability.
static bool usesCapability(llvm::ArrayRef<uint32_t> words,
                           spv::Capability capability) {
  // Capabilities come first, right after the five header words.
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> spv::WordCountShift;
    if ((words[i] & spv::OpCodeMask) != spv::OpCapability || count == 0)
      return false;
    if (count > 1 && i + 1 < words.size() && words[i + 1] == capability)
      return true;
    i += count;
  }
  return false;
}

static spv_target_env getTargetEnv(llvm::ArrayRef<uint32_t> words,
                                   const CoreInfo &core) {
  // SPIRV-Tools' OpenCL environments reject Int64Atomics (it comes from the
  // OpenCL extension cl_khr_int64_base_atomics, which they cannot be told
  // about); such modules are checked against plain SPIR-V instead. So are
  // OpenCL 1.2-shaped modules with subgroup collectives (Groups, OpenCL
  // 2.0's), which only NVIDIA cores get: they go through LLVMSPIRVLib to
  // PTX, never to an OpenCL 1.2 driver.
  if (usesCapability(words, spv::CapabilityInt64Atomics) ||
      (core.spirv.openCL12Shaped &&
       usesCapability(words, spv::CapabilityGroups)))
    return core.spirv.openCL12Shaped ? SPV_ENV_UNIVERSAL_1_0
                                     : SPV_ENV_UNIVERSAL_1_2;
  return core.spirv.openCL12Shaped ? SPV_ENV_OPENCL_1_2 : SPV_ENV_OPENCL_2_2;
}

llvm::StringRef
comprehend::backend::getSpirvTargetEnvName(llvm::ArrayRef<uint32_t> words,
                                           const CoreInfo &core) {
  switch (getTargetEnv(words, core)) {
  case SPV_ENV_UNIVERSAL_1_0:
    return "spv1.0";
  case SPV_ENV_UNIVERSAL_1_2:
    return "spv1.2";
  case SPV_ENV_OPENCL_1_2:
    return "opencl1.2";
  default:
    return "opencl2.2";
  }
}

llvm::Error comprehend::backend::validateSpirv(llvm::ArrayRef<uint32_t> words,
                                               const CoreInfo &core) {
  spvtools::SpirvTools tools(getTargetEnv(words, core));
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &position,
                               const char *message) {
    llvm::raw_string_ostream os(messages);
    if (!messages.empty())
      os << '\n';
    os << message << " (word " << position.index << ")";
  });
  if (tools.Validate(words.data(), words.size()))
    return llvm::Error::success();
  if (messages.empty())
    messages = "unknown validation failure";
  return llvm::createStringError(llvm::inconvertibleErrorCode(), messages);
}

llvm::Expected<std::string>
comprehend::backend::disassembleSpirv(llvm::ArrayRef<uint32_t> words) {
  // The environment only matters for parsing; the newest universal one
  // accepts every version we emit.
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_4);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &,
                               const char *message) { messages += message; });
  std::string text;
  if (!tools.Disassemble(words.data(), words.size(), &text,
                         SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot disassemble SPIR-V: " + messages);
  return text;
}
