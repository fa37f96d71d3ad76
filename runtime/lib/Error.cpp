//===- Error.cpp - Runtime errors as llvm::Error --------------------------===//
#include "comprehend/runtime/Error.h"

#include "llvm/Support/raw_ostream.h"

using namespace comprehend::runtime;
using llvm::StringRef;

char RuntimeError::ID = 0;

llvm::Error comprehend::runtime::makeInputError(const llvm::Twine &message,
                                                InputSubject subject,
                                                StringRef subjectName) {
  return llvm::make_error<RuntimeError>(ErrorKind::Input, message.str(), 0,
                                        subject, subjectName.str());
}

llvm::Error comprehend::runtime::makeDeviceError(const llvm::Twine &message) {
  return llvm::make_error<RuntimeError>(ErrorKind::Device, message.str());
}

namespace {
struct CLErrorEntry {
  int32_t code;
  StringRef name;
  StringRef hint;
};
} // namespace

// Only the codes a user can meet through this runtime get a specific hint;
// the rest share the generic one.
static const CLErrorEntry clErrors[] = {
    {-1, "CL_DEVICE_NOT_FOUND",
     "install an OpenCL driver (e.g. Debian 'pocl-opencl-icd') or check "
     "OCL_ICD_VENDORS"},
    {-2, "CL_DEVICE_NOT_AVAILABLE", "the device is busy or disabled"},
    {-3, "CL_COMPILER_NOT_AVAILABLE",
     "the driver has no online compiler; use a device that builds programs"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE",
     "the tensors do not fit into device memory; use smaller sizes"},
    {-5, "CL_OUT_OF_RESOURCES",
     "the kernel needs more registers, local memory or work-items than the "
     "device has; try a smaller work-group size"},
    {-6, "CL_OUT_OF_HOST_MEMORY", "the host ran out of memory"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE",
     "the queue was created without profiling"},
    {-8, "CL_MEM_COPY_OVERLAP", ""},
    {-9, "CL_IMAGE_FORMAT_MISMATCH", ""},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED", ""},
    {-11, "CL_BUILD_PROGRAM_FAILURE",
     "the driver could not build the module; see the build log"},
    {-12, "CL_MAP_FAILURE", ""},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET",
     "sub-buffer offsets must be multiples of the device's base address "
     "alignment"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
     "an earlier command failed"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE", "see the build log"},
    {-16, "CL_LINKER_NOT_AVAILABLE", ""},
    {-17, "CL_LINK_PROGRAM_FAILURE", "see the build log"},
    {-18, "CL_DEVICE_PARTITION_FAILED", ""},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", ""},
    {-30, "CL_INVALID_VALUE", "an argument of the call is out of range"},
    {-31, "CL_INVALID_DEVICE_TYPE", ""},
    {-32, "CL_INVALID_PLATFORM", ""},
    {-33, "CL_INVALID_DEVICE", "the device does not belong to the context"},
    {-34, "CL_INVALID_CONTEXT", "objects from different contexts were mixed"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES", ""},
    {-36, "CL_INVALID_COMMAND_QUEUE", ""},
    {-37, "CL_INVALID_HOST_PTR", ""},
    {-38, "CL_INVALID_MEM_OBJECT",
     "a tensor argument is not a valid device buffer"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", ""},
    {-40, "CL_INVALID_IMAGE_SIZE", ""},
    {-41, "CL_INVALID_SAMPLER", ""},
    {-42, "CL_INVALID_BINARY",
     "the device rejects the module; check that it takes SPIR-V or SPIR 1.2, "
     "and clear the program cache"},
    {-43, "CL_INVALID_BUILD_OPTIONS", "check the build options"},
    {-44, "CL_INVALID_PROGRAM", ""},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE",
     "the program was not built for this device"},
    {-46, "CL_INVALID_KERNEL_NAME", "no kernel of that name is in the module"},
    {-47, "CL_INVALID_KERNEL_DEFINITION", ""},
    {-48, "CL_INVALID_KERNEL", ""},
    {-49, "CL_INVALID_ARG_INDEX",
     "more arguments were given than the kernel has; check the calling "
     "convention"},
    {-50, "CL_INVALID_ARG_VALUE", "an argument value is invalid"},
    {-51, "CL_INVALID_ARG_SIZE",
     "an argument's size does not match the kernel parameter; check the "
     "scalar types"},
    {-52, "CL_INVALID_KERNEL_ARGS",
     "some kernel arguments were not set; pass every parameter"},
    {-53, "CL_INVALID_WORK_DIMENSION", ""},
    {-54, "CL_INVALID_WORK_GROUP_SIZE",
     "the work-group size exceeds the device limit or does not divide the "
     "global size"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE",
     "a work-group dimension exceeds the device limit"},
    {-56, "CL_INVALID_GLOBAL_OFFSET", ""},
    {-57, "CL_INVALID_EVENT_WAIT_LIST", ""},
    {-58, "CL_INVALID_EVENT", ""},
    {-59, "CL_INVALID_OPERATION", ""},
    {-60, "CL_INVALID_GL_OBJECT", ""},
    {-61, "CL_INVALID_BUFFER_SIZE",
     "a tensor is empty or larger than the device's maximum allocation"},
    {-62, "CL_INVALID_MIP_LEVEL", ""},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE", "the grid is empty or too large"},
    {-64, "CL_INVALID_PROPERTY", ""},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR", ""},
    {-66, "CL_INVALID_COMPILER_OPTIONS", ""},
    {-67, "CL_INVALID_LINKER_OPTIONS", ""},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT", ""},
    {-69, "CL_INVALID_PIPE_SIZE", ""},
    {-70, "CL_INVALID_DEVICE_QUEUE", ""},
    {-71, "CL_INVALID_SPEC_ID", ""},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED", ""},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR",
     "no OpenCL platform is installed; install an ICD (e.g. Debian "
     "'pocl-opencl-icd') or check OCL_ICD_VENDORS"},
};

static const CLErrorEntry *lookup(int32_t code) {
  for (const CLErrorEntry &entry : clErrors)
    if (entry.code == code)
      return &entry;
  return nullptr;
}

StringRef comprehend::runtime::getCLErrorName(int32_t code) {
  if (const CLErrorEntry *entry = lookup(code))
    return entry->name;
  return "unknown OpenCL error";
}

StringRef comprehend::runtime::getCLErrorHint(int32_t code) {
  const CLErrorEntry *entry = lookup(code);
  if (entry && !entry->hint.empty())
    return entry->hint;
  return "check the arguments and the device; run with a debug driver "
         "(e.g. POCL_DEBUG=all) for details";
}

/// The input to check for the status codes that a caller's input causes.
static InputSubject subjectOfCLCode(int32_t code) {
  switch (code) {
  case -46: // CL_INVALID_KERNEL_NAME
    return InputSubject::Entry;
  case -63: // CL_INVALID_GLOBAL_WORK_SIZE
    return InputSubject::Grid;
  default:
    return InputSubject::None;
  }
}

llvm::Error comprehend::runtime::makeCLError(StringRef call, int32_t code,
                                             const llvm::Twine &detail) {
  std::string message;
  llvm::raw_string_ostream os(message);
  os << call << " failed with " << getCLErrorName(code) << " (" << code
     << "): " << getCLErrorHint(code);
  std::string extra = detail.str();
  if (!extra.empty())
    os << "\n" << StringRef(extra).rtrim();
  return llvm::make_error<RuntimeError>(ErrorKind::Device, std::move(message),
                                        code, subjectOfCLCode(code));
}

ErrorKind comprehend::runtime::reportError(llvm::Error error,
                                           llvm::raw_ostream &os,
                                           StringRef prefix, SubjectHint hint) {
  ErrorKind worst = ErrorKind::Input;
  bool any = false;
  llvm::handleAllErrors(
      std::move(error),
      [&](const RuntimeError &e) {
        any = true;
        if (e.getKind() == ErrorKind::Device)
          worst = ErrorKind::Device;
        os << prefix << ": error: " << e.getMessage();
        std::string words = hint ? hint(e) : std::string();
        if (!words.empty())
          os << " (" << words << ")";
        os << "\n";
      },
      [&](const llvm::ErrorInfoBase &e) {
        any = true;
        worst = ErrorKind::Device;
        os << prefix << ": error: " << e.message() << "\n";
      });
  return any ? worst : ErrorKind::Device;
}
