//===- Device.cpp - Devices of the C API ----------------------------------===//
//
// comprehend_device_t: a runtime::Runtime on the device a spec string
// selects (runtime::selectDevice).
//
//===----------------------------------------------------------------------===//
#include "Handles.h"

using namespace comprehend;

extern "C" comprehend_status
comprehend_device_create(comprehend_device_t *device, const char *spec) {
  return capi::guard([&]() -> llvm::Error {
    if (!device)
      return capi::makeNullError("the device pointer");
    *device = nullptr;
    auto runtime = runtime::Runtime::create(spec ? spec : "");
    if (!runtime)
      return runtime.takeError();
    auto handle = std::make_unique<comprehend_device_impl>();
    handle->runtime = std::move(*runtime);
    handle->name = handle->runtime->getDevice().getInfo().name;
    *device = handle.release();
    return llvm::Error::success();
  });
}

extern "C" comprehend_status comprehend_device_name(comprehend_device_t device,
                                                    const char **name) {
  return capi::guard([&]() -> llvm::Error {
    if (!device)
      return capi::makeNullError("the device");
    if (!name)
      return capi::makeNullError("the name pointer");
    *name = device->name.c_str();
    return llvm::Error::success();
  });
}

extern "C" void comprehend_device_release(comprehend_device_t device) {
  delete device;
}
