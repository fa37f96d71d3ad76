//===- CoreInfo.cpp - Target core presets ---------------------------------===//
#include "comprehend/backend/CoreInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>

using namespace comprehend::backend;

bool CoreInfo::supportsSubgroupSize(unsigned size) const {
  return llvm::is_contained(subgroupSizes, size);
}

unsigned CoreInfo::defaultSubgroupSize() const {
  // The largest size up to 16 keeps register pressure moderate on GPUs.
  unsigned best = subgroupSizes.front();
  for (unsigned size : subgroupSizes)
    if (size <= 16)
      best = size;
  return best;
}

unsigned CoreInfo::getCpuRegisterBudget(unsigned nativeVectorWidth) {
  unsigned width = std::max(nativeVectorWidth, 1u);
  return (width >= 16 ? 32 : 16) * width;
}

static CoreInfo makeGeneric(llvm::StringRef name, unsigned subgroupSize) {
  CoreInfo info;
  info.name = name.str();
  info.subgroupSizes = {subgroupSize};
  info.maxWorkGroupSize = 1024;
  info.localMemoryBytes = 64 * 1024;
  info.registerBudget = 128;
  info.features.fp64 = true;
  info.features.fp16 = true;
  info.features.int64Atomics = true;
  info.features.floatAtomics = true;
  info.features.subgroups = true;
  info.spirv.maxVersion = 0x00010400;
  info.spirv.openCL12Shaped = false;
  return info;
}

CoreInfo comprehend::backend::makeNvidiaCoreInfo(unsigned computeCapability,
                                                 uint64_t sharedMemoryBytes,
                                                 unsigned maxThreadsPerBlock,
                                                 unsigned registersPerBlock,
                                                 unsigned multiprocessors) {
  CoreInfo info;
  info.name = "nvidia-sm" + std::to_string(computeCapability);
  info.cudaComputeCapability = computeCapability;
  info.subgroupSizes = {32};
  info.maxWorkGroupSize = maxThreadsPerBlock;
  info.localMemoryBytes = sharedMemoryBytes;
  info.dedicatedLocalMemory = true;
  // Half the registers of a block for 256 threads keeps two such blocks per
  // multiprocessor; PTX caps a thread at 255 registers.
  info.registerBudget = std::clamp(registersPerBlock / 512, 32u, 255u);
  info.nativeVectorWidth = 1;
  info.computeUnits = multiprocessors;
  info.features.fp64 = true;
  info.features.fp16 = computeCapability >= 53;
  info.features.int64Atomics = true;
  // The SPIR-V reaches PTX through the OpenCL 1.2 reverse translation, which
  // has no floating-point atomics.
  info.features.floatAtomics = false;
  info.features.subgroups = true;
  info.spirv.maxVersion = 0x00010400;
  info.spirv.openCL12Shaped = true;
  return info;
}

std::optional<CoreInfo> CoreInfo::getPreset(llvm::StringRef name) {
  if (name == "pocl-cpu") {
    // PoCL 3.1 on a CPU: no sub-groups, SPIR 1.2 input only, 4096 work-items.
    CoreInfo info;
    info.name = "pocl-cpu";
    info.subgroupSizes = {1};
    info.maxWorkGroupSize = 4096;
    info.localMemoryBytes = 256 * 1024;
    info.dedicatedLocalMemory = false;
    // Measured on an AVX-512 core (PoCL's pthread-skylake-avx512); the
    // runtime takes these from the device it runs on.
    info.nativeVectorWidth = 16;
    info.registerBudget = getCpuRegisterBudget(info.nativeVectorWidth);
    info.dataCacheBytes = 32 * 1024;
    info.features.fp64 = true;
    info.features.fp16 = false;
    info.features.int64Atomics = true;
    info.features.floatAtomics = false;
    info.features.subgroups = false;
    info.spirv.maxVersion = 0x00010400;
    info.spirv.openCL12Shaped = true;
    return info;
  }
  if (name == "generic-sg8")
    return makeGeneric(name, 8);
  if (name == "generic-sg16")
    return makeGeneric(name, 16);
  if (name == "generic-sg32")
    return makeGeneric(name, 32);
  if (name == "nvidia-sm80")
    // An A100: 48 KiB of static shared memory per block (227 KiB only with
    // the dynamic opt-in), 64K registers per block, 108 multiprocessors.
    return makeNvidiaCoreInfo(80, 48 * 1024, 1024, 64 * 1024, 108);
  return std::nullopt;
}

llvm::ArrayRef<llvm::StringRef> CoreInfo::getPresetNames() {
  static const llvm::StringRef names[] = {
      "pocl-cpu", "generic-sg8", "generic-sg16", "generic-sg32", "nvidia-sm80"};
  return names;
}

void CoreInfo::print(llvm::raw_ostream &os) const {
  os << name << ": subgroup sizes";
  for (unsigned size : subgroupSizes)
    os << ' ' << size;
  os << ", max work-group size " << maxWorkGroupSize << ", local memory "
     << localMemoryBytes << " B ("
     << (dedicatedLocalMemory ? "dedicated" : "in global memory")
     << "), vector width " << nativeVectorWidth << ", register budget "
     << registerBudget << ", data cache " << dataCacheBytes << " B, fp64 "
     << features.fp64 << ", fp16 " << features.fp16;
  if (isNvidia())
    os << ", compute capability " << cudaComputeCapability / 10 << '.'
       << cudaComputeCapability % 10 << ", " << computeUnits
       << " multiprocessors";
  os << "\n";
}
