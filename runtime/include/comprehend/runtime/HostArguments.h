//===- HostArguments.h - Host tensors as kernel arguments -------*- C++ -*-===//
//
// Moves HostTensors (e.g. read from .npy files) to the device as the value of
// a memref or group parameter and back, handling non-packed strides and
// stacked groups, and makes random inputs.
//
// A group parameter group<memref<T x s1 x ... x sn> x N> takes an array of
// shape (N, s1, ..., sn) — what np.stack of the N members gives: member b is
// array[b, ...].
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_HOSTARGUMENTS_H
#define COMPREHEND_RUNTIME_HOSTARGUMENTS_H

#include "comprehend/runtime/Npy.h"
#include "comprehend/runtime/Runtime.h"

#include <memory>
#include <random>

namespace comprehend::runtime {

/// A memref or group argument living on the device. Keeps its buffer, so
/// the ArgValue stays valid as long as this object.
struct DeviceArgument {
  ParamType type;
  std::unique_ptr<Buffer> buffer;
  ArgValue value;
};

/// The host shape a parameter expects (group: (N, s1, ..., sn)), with
/// kDynamic where the type leaves a size open.
llvm::SmallVector<int64_t, 4> getHostShape(const ParamType &param);

/// The bytes `param` takes on the device for an array of `hostShape` (the
/// extent of its layout, times the group members); none past 64 bits.
std::optional<uint64_t> getArgumentBytes(const ParamType &param,
                                         llvm::ArrayRef<int64_t> hostShape);

/// Checks `tensor` against `param` (dtype, order, static sizes) and that it
/// fits the device (checkTensorsFit), and uploads it. Input errors name the
/// parameter.
llvm::Expected<DeviceArgument> uploadArgument(Runtime &runtime,
                                              const ParamType &param,
                                              const HostTensor &tensor);

/// Reads an uploaded argument back into a tensor of its host shape.
llvm::Expected<HostTensor> downloadArgument(Runtime &runtime,
                                            const DeviceArgument &argument);

/// Uniform random values: floats and complex parts in [-1, 1), integers in
/// [-8, 8], booleans 0/1; f16/bf16 as their bit patterns.
HostTensor makeRandomTensor(DType dtype, llvm::ArrayRef<int64_t> shape,
                            std::mt19937_64 &rng);
ScalarArg makeRandomScalar(DType dtype, std::mt19937_64 &rng);

/// Reads a scalar from an element of `tensor` (used for 0-d .npy files).
ScalarArg getScalarAt(const HostTensor &tensor, int64_t index);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_HOSTARGUMENTS_H
