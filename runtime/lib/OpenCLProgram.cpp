//===- OpenCLProgram.cpp - OpenCL programs built from SPIR-V --------------===//
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/OpenCLPlatform.h"
#include "comprehend/runtime/SpirBridge.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CL/cl_ext.h>

using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

OpenCLKernel::~OpenCLKernel() {
  if (kernel)
    clReleaseKernel(kernel);
}

OpenCLProgram::~OpenCLProgram() {
  clearKernels(); // kernels before their program
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
  return std::make_unique<OpenCLKernel>(kernel, nameText, numArgs);
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
createFromBinary(cl_context context, const Device &device, StringRef binary) {
  cl_device_id id = device.getCLDevice();
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

static std::string getCachePath(const ProgramOptions &options, StringRef key) {
  llvm::SmallString<256> path(options.cacheDir);
  llvm::sys::path::append(path, key + ".clbin");
  return std::string(path);
}

/// Loads a cached binary; any failure just means "not cached".
static std::unique_ptr<OpenCLProgram> loadCached(cl_context context,
                                                 const Device &device,
                                                 const ProgramOptions &options,
                                                 StringRef key) {
  auto file = llvm::MemoryBuffer::getFile(getCachePath(options, key));
  if (!file)
    return nullptr;
  auto program = createFromBinary(context, device, (*file)->getBuffer());
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

/// Stores the program's binary; the cache is best effort, so failures are
/// ignored. Written to a temporary file and renamed, so concurrent runs never
/// see half a file.
static void storeCached(cl_program program, const ProgramOptions &options,
                        StringRef key) {
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
  if (llvm::sys::fs::create_directories(options.cacheDir))
    return;
  std::string path = getCachePath(options, key);
  llvm::SmallString<256> temp;
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << binary;
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}

Expected<std::unique_ptr<OpenCLProgram>>
comprehend::runtime::buildOpenCLProgram(cl_context context,
                                        const Device &device,
                                        llvm::ArrayRef<uint32_t> spirv,
                                        const ProgramOptions &options) {
  const DeviceInfo &info = device.getInfo();
  std::string key;
  if (!options.cacheDir.empty()) {
    key = getProgramCacheKey(spirv, device);
    if (auto cached = loadCached(context, device, options, key))
      return cached;
  }

  cl_program program = nullptr;
  std::string buildOptions = options.buildOptions;
  switch (info.format) {
  case ModuleFormat::Spirv: {
    auto created = createFromIL(context, device, spirv);
    if (!created)
      return created.takeError();
    program = *created;
    break;
  }
  case ModuleFormat::Spir12: {
    auto bitcode = translateSpirvToSpir12(spirv);
    if (!bitcode)
      return bitcode.takeError();
    auto created = createFromBinary(context, device, *bitcode);
    if (!created)
      return created.takeError();
    program = *created;
    buildOptions = std::string(kSpir12BuildOptions) +
                   (buildOptions.empty() ? "" : " " + buildOptions);
    break;
  }
  case ModuleFormat::Ptx:
  case ModuleFormat::None:
    return makeDeviceError("device '" + info.getFullName() +
                           "' takes neither SPIR-V nor SPIR 1.2");
  }
  if (llvm::Error err = build(program, device.getCLDevice(), buildOptions)) {
    clReleaseProgram(program);
    return err;
  }
  if (!key.empty())
    storeCached(program, options, key);
  return std::make_unique<OpenCLProgram>(program, ProgramOrigin::Built);
}
