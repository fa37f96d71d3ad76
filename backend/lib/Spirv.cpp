//===- Spirv.cpp - Validating and printing SPIR-V modules -----------------===//
#include "comprehend/backend/Spirv.h"
#include "comprehend/backend/CoreInfo.h"

#include "llvm/Support/raw_ostream.h"

#include <spirv-tools/libspirv.hpp>

using namespace comprehend::backend;

static spv_target_env getTargetEnv(const CoreInfo &core) {
  return core.spirv.openCL12Shaped ? SPV_ENV_OPENCL_1_2 : SPV_ENV_OPENCL_2_2;
}

llvm::StringRef comprehend::backend::getSpirvTargetEnvName(
    const CoreInfo &core) {
  return core.spirv.openCL12Shaped ? "opencl1.2" : "opencl2.2";
}

llvm::Error comprehend::backend::validateSpirv(llvm::ArrayRef<uint32_t> words,
                                               const CoreInfo &core) {
  spvtools::SpirvTools tools(getTargetEnv(core));
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
                               const spv_position_t &, const char *message) {
    messages += message;
  });
  std::string text;
  if (!tools.Disassemble(words.data(), words.size(), &text,
                         SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot disassemble SPIR-V: " + messages);
  return text;
}
