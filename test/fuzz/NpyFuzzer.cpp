//===- NpyFuzzer.cpp - The .npy reader ------------------------------------===//
//
// Any bytes: parseNpy returns a tensor or an input error. A tensor it returns
// writes back to bytes that parse to the same tensor.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "comprehend/runtime/Npy.h"

#include <cstddef>
#include <cstdint>

using namespace comprehend;
using namespace comprehend::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<HostTensor> tensor = parseNpy(bytes, "fuzz.npy");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  if (tensor->data.size() != static_cast<size_t>(tensor->getNumElements()) *
                                 getDTypeSize(tensor->dtype))
    fuzz::fail("the data size does not match the shape", "");
  std::string written = writeNpy(*tensor);
  llvm::Expected<HostTensor> again =
      parseNpy(written, "written.npy", tensor->dtype);
  if (!again)
    fuzz::fail("what writeNpy wrote does not parse",
               llvm::toString(again.takeError()));
  if (again->dtype != tensor->dtype || again->shape != tensor->shape ||
      again->data != tensor->data)
    fuzz::fail("writeNpy(parseNpy(x)) does not parse to the same tensor", "");
  return 0;
}
