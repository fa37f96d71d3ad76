//===- Program.cpp - Programs and kernels of a platform -------------------===//
#include "comprehend/runtime/Program.h"
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

Kernel::~Kernel() = default;

Program::~Program() = default;

Expected<Kernel &> Program::getKernel(StringRef name) {
  auto it = kernels.find(name);
  if (it != kernels.end())
    return *it->second;
  auto kernel = createKernel(name);
  if (!kernel)
    return kernel.takeError();
  Kernel &result = **kernel;
  kernels[name] = std::move(*kernel);
  return result;
}

llvm::Error Program::getMissingKernelError(StringRef name) const {
  auto names = getKernelNames();
  if (!names)
    return names.takeError();
  std::string list = "none";
  if (!names->empty()) {
    list = "'";
    list += llvm::join(*names, "', '");
    list += "'";
  }
  return makeInputError("no kernel '" + name + "' in the module; it has " +
                        list);
}

std::string
comprehend::runtime::getProgramCacheKey(llvm::ArrayRef<uint32_t> spirv,
                                        const Device &device) {
  const DeviceInfo &info = device.getInfo();
  uint64_t moduleHash = llvm::xxHash64(llvm::StringRef(
      reinterpret_cast<const char *>(spirv.data()), spirv.size() * 4));
  uint64_t deviceHash =
      llvm::xxHash64(info.platformName + "\n" + info.name + "\n" +
                     info.driverVersion + "\n" + info.deviceVersion);
  return llvm::utohexstr(moduleHash, /*LowerCase=*/true) + "-" +
         llvm::utohexstr(deviceHash, /*LowerCase=*/true);
}
