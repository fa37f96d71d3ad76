//===- OpenCLProgram.cpp - OpenCL programs built from SPIR-V --------------===//
#include "ProgramDiskCache.h"

#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/OpenCLPlatform.h"
#include "comprehend/runtime/SpirBridge.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <CL/cl_ext.h>

using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

OpenCLKernel::~OpenCLKernel() {
  if (callerThreadKernel)
    clReleaseKernel(callerThreadKernel);
  if (kernel)
    clReleaseKernel(kernel);
}

Expected<cl_kernel> OpenCLKernel::getCallerThreadKernel() {
  if (callerThreadKernel)
    return callerThreadKernel;
  if (!program)
    return makeDeviceError("kernel '" + getName() +
                           "' was not made from a program of the runtime: "
                           "it cannot run on the calling thread");
  auto built = program->getCallerThreadProgram();
  if (!built)
    return built.takeError();
  cl_int err = CL_SUCCESS;
  std::string name = getName().str();
  callerThreadKernel = clCreateKernel(*built, name.c_str(), &err);
  if (err) {
    callerThreadKernel = nullptr;
    return makeCLError("clCreateKernel('" + name + "')", err);
  }
  return callerThreadKernel;
}

OpenCLProgram::~OpenCLProgram() {
  clearKernels(); // kernels before their programs
  if (callerThreadProgram)
    clReleaseProgram(callerThreadProgram);
  if (program)
    clReleaseProgram(program);
}

Expected<std::vector<std::string>> OpenCLProgram::getKernelNames() const {
  size_t size = 0;
  if (cl_int err =
          clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size))
    return makeCLError("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)", err);
  std::string text(size, '\0');
  if (cl_int err = clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size,
                                    text.data(), nullptr))
    return makeCLError("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)", err);
  llvm::SmallVector<StringRef, 8> parts;
  StringRef(text.c_str()).split(parts, ';', -1, /*KeepEmpty=*/false);
  std::vector<std::string> names;
  for (StringRef part : parts)
    names.push_back(part.trim().str());
  return names;
}

Expected<std::unique_ptr<Kernel>> OpenCLProgram::createKernel(StringRef name) {
  llvm::TimeTraceScope scope("clCreateKernel");
  cl_int err = CL_SUCCESS;
  std::string nameText = name.str();
  cl_kernel kernel = clCreateKernel(program, nameText.c_str(), &err);
  if (err == CL_INVALID_KERNEL_NAME)
    return getMissingKernelError(name);
  if (err)
    return makeCLError("clCreateKernel('" + nameText + "')", err);
  cl_uint numArgs = 0;
  if ((err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(numArgs),
                             &numArgs, nullptr))) {
    clReleaseKernel(kernel);
    return makeCLError("clGetKernelInfo(CL_KERNEL_NUM_ARGS)", err);
  }
  return std::make_unique<OpenCLKernel>(kernel, nameText, numArgs, this);
}

//===----------------------------------------------------------------------===//
// Building
//===----------------------------------------------------------------------===//

static std::string getBuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                            &size) != CL_SUCCESS)
    return "";
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size,
                            log.data(), nullptr) != CL_SUCCESS)
    return "";
  return StringRef(log.c_str()).trim().str();
}

/// clBuildProgram with the build log in the error.
static llvm::Error build(cl_program program, cl_device_id device,
                         const std::string &options) {
  llvm::TimeTraceScope scope("clBuildProgram");
  cl_int err =
      clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (err == CL_SUCCESS)
    return llvm::Error::success();
  std::string log = getBuildLog(program, device);
  return makeCLError("clBuildProgram", err,
                     log.empty() ? llvm::Twine("(the build log is empty)")
                                 : llvm::Twine("build log:\n") + log);
}

static Expected<cl_program> createFromIL(cl_context context,
                                         const Device &device,
                                         llvm::ArrayRef<uint32_t> spirv) {
  llvm::TimeTraceScope scope("clCreateProgramWithIL");
  cl_int err = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithIL(context, spirv.data(), spirv.size() * 4, &err);
  if (err == CL_INVALID_OPERATION &&
      device.getInfo().hasExtension("cl_khr_il_program")) {
    // OpenCL 2.0 drivers offer IL only through the extension entry point.
    auto *createKHR = reinterpret_cast<clCreateProgramWithILKHR_fn>(
        clGetExtensionFunctionAddressForPlatform(device.getCLPlatform(),
                                                 "clCreateProgramWithILKHR"));
    if (createKHR)
      program = createKHR(context, spirv.data(), spirv.size() * 4, &err);
  }
  if (err)
    return makeCLError("clCreateProgramWithIL", err);
  return program;
}

static Expected<cl_program>
createFromBinary(cl_context context, cl_device_id id, StringRef binary) {
  llvm::TimeTraceScope scope("clCreateProgramWithBinary");
  const size_t length = binary.size();
  const auto *bytes = reinterpret_cast<const unsigned char *>(binary.data());
  cl_int binaryStatus = CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(context, 1, &id, &length,
                                                 &bytes, &binaryStatus, &err);
  if (err == CL_SUCCESS && binaryStatus != CL_SUCCESS)
    err = binaryStatus;
  if (err) {
    if (program)
      clReleaseProgram(program);
    return makeCLError("clCreateProgramWithBinary", err);
  }
  return program;
}

/// A program from a binary the driver returned earlier (CL_PROGRAM_BINARIES);
/// any failure just means "not cached".
static std::unique_ptr<OpenCLProgram>
loadCachedBinary(cl_context context, const Device &device,
                 const ProgramOptions &options, StringRef path) {
  std::optional<std::string> binary = readProgramCacheEntry(path);
  if (!binary)
    return nullptr;
  auto program = createFromBinary(context, device.getCLDevice(), *binary);
  if (!program) {
    llvm::consumeError(program.takeError());
    return nullptr;
  }
  if (llvm::Error err =
          build(*program, device.getCLDevice(), options.buildOptions)) {
    llvm::consumeError(std::move(err));
    clReleaseProgram(*program);
    return nullptr;
  }
  return std::make_unique<OpenCLProgram>(*program, ProgramOrigin::DiskCache);
}

/// Stores the built program's binary (CL_PROGRAM_BINARIES); best effort.
static void storeCachedBinary(cl_program program, StringRef path) {
  llvm::TimeTraceScope scope("CL_PROGRAM_BINARIES");
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size,
                       nullptr) != CL_SUCCESS ||
      size == 0)
    return;
  std::string binary(size, '\0');
  unsigned char *data = reinterpret_cast<unsigned char *>(binary.data());
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data,
                       nullptr) != CL_SUCCESS)
    return;
  writeProgramCacheEntry(path, binary);
}

/// A device that takes SPIR-V: the program from the IL, or from the binary
/// the disk cache kept of it.
static Expected<std::unique_ptr<OpenCLProgram>>
buildFromSpirv(cl_context context, const Device &device,
               llvm::ArrayRef<uint32_t> spirv, const ProgramOptions &options,
               StringRef key) {
  std::string path;
  if (!key.empty()) {
    path = getProgramCachePath(options.cacheDir, key, "clbin");
    if (auto cached = loadCachedBinary(context, device, options, path))
      return cached;
  }
  auto program = createFromIL(context, device, spirv);
  if (!program)
    return program.takeError();
  if (llvm::Error err =
          build(*program, device.getCLDevice(), options.buildOptions)) {
    clReleaseProgram(*program);
    return err;
  }
  if (!path.empty())
    storeCachedBinary(*program, path);
  return std::make_unique<OpenCLProgram>(*program, ProgramOrigin::Built);
}

/// clBuildProgram's options for SPIR 1.2 bitcode.
static std::string getSpir12BuildOptions(const ProgramOptions &options) {
  return std::string(kSpir12BuildOptions) +
         (options.buildOptions.empty() ? "" : " " + options.buildOptions);
}

/// The SPIR 1.2 bitcode built into a program.
static Expected<cl_program> buildSpir12(cl_context context,
                                        const Device &device, StringRef bitcode,
                                        const ProgramOptions &options) {
  auto program = createFromBinary(context, device.getCLDevice(), bitcode);
  if (!program)
    return program.takeError();
  if (llvm::Error err = build(*program, device.getCLDevice(),
                              getSpir12BuildOptions(options))) {
    clReleaseProgram(*program);
    return std::move(err);
  }
  return *program;
}

/// A device that takes SPIR 1.2 (PoCL): the module translated in process,
/// or the translation the disk cache kept. The cache keeps the bitcode, not
/// CL_PROGRAM_BINARIES: PoCL makes that binary by generating machine code
/// for every kernel at a work-group size it will not launch with (a second
/// code generation per kernel, as long as the first), and PoCL's own kernel
/// cache (POCL_CACHE_DIR) already keeps what it builds from this bitcode.
static Expected<std::unique_ptr<OpenCLProgram>>
buildFromSpir12(cl_context context, const Device &device,
                llvm::ArrayRef<uint32_t> spirv, const ProgramOptions &options,
                StringRef key) {
  std::string path =
      key.empty() ? "" : getProgramCachePath(options.cacheDir, key, "spir12");
  auto made = [&](cl_program program, ProgramOrigin origin,
                  std::string bitcode) {
    auto result = std::make_unique<OpenCLProgram>(program, origin);
    if (cl_device_id callerThread = device.getCallerThreadDevice())
      result->setCallerThreadBuild({context, callerThread, /*isSpirv=*/false,
                                    std::move(bitcode),
                                    getSpir12BuildOptions(options)});
    return result;
  };
  if (std::optional<std::string> cached =
          path.empty() ? std::nullopt : readProgramCacheEntry(path)) {
    auto program = buildSpir12(context, device, *cached, options);
    if (program)
      return made(*program, ProgramOrigin::DiskCache, std::move(*cached));
    // Checked but unusable: translate again and replace it.
    llvm::consumeError(program.takeError());
  }
  auto bitcode = translateSpirvToSpir12(spirv);
  if (!bitcode)
    return bitcode.takeError();
  if (!path.empty())
    writeProgramCacheEntry(path, *bitcode);
  auto program = buildSpir12(context, device, *bitcode, options);
  if (!program)
    return program.takeError();
  return made(*program, ProgramOrigin::Built, std::move(*bitcode));
}

/// The program of `recipe`, not built yet.
static Expected<cl_program> createFromRecipe(const CallerThreadBuild &recipe) {
  if (!recipe.isSpirv)
    return createFromBinary(recipe.context, recipe.device, recipe.module);
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithIL(
      recipe.context, recipe.module.data(), recipe.module.size(), &err);
  if (err)
    return makeCLError("clCreateProgramWithIL", err);
  return program;
}

Expected<cl_program> OpenCLProgram::getCallerThreadProgram() {
  if (callerThreadProgram)
    return callerThreadProgram;
  CallerThreadBuild &recipe = callerThreadBuild;
  if (!recipe.device)
    return makeDeviceError("the device has no caller-thread device to build "
                           "the program for");
  llvm::TimeTraceScope scope("build for the caller-thread device");
  Expected<cl_program> created = createFromRecipe(recipe);
  if (!created)
    return created.takeError();
  if (llvm::Error err = build(*created, recipe.device, recipe.buildOptions)) {
    clReleaseProgram(*created);
    return std::move(err);
  }
  callerThreadProgram = *created;
  recipe.module.clear(); // built: nothing to keep
  recipe.module.shrink_to_fit();
  return callerThreadProgram;
}

Expected<std::unique_ptr<OpenCLProgram>>
comprehend::runtime::buildOpenCLProgram(cl_context context,
                                        const Device &device,
                                        llvm::ArrayRef<uint32_t> spirv,
                                        const ProgramOptions &options) {
  const DeviceInfo &info = device.getInfo();
  std::string key;
  if (!options.cacheDir.empty())
    key = getProgramCacheKey(spirv, device);
  switch (info.format) {
  case ModuleFormat::Spirv: {
    auto program = buildFromSpirv(context, device, spirv, options, key);
    if (program && device.getCallerThreadDevice())
      (*program)->setCallerThreadBuild(
          {context, device.getCallerThreadDevice(), /*isSpirv=*/true,
           std::string(reinterpret_cast<const char *>(spirv.data()),
                       spirv.size() * sizeof(uint32_t)),
           options.buildOptions});
    return program;
  }
  case ModuleFormat::Spir12:
    return buildFromSpir12(context, device, spirv, options, key);
  case ModuleFormat::Ptx:
  case ModuleFormat::None:
    break;
  }
  return makeDeviceError("device '" + info.getFullName() +
                         "' takes neither SPIR-V nor SPIR 1.2");
}
