//===- HostArguments.cpp - Host tensors as kernel arguments ---------------===//
#include "comprehend/runtime/HostArguments.h"
#include "comprehend/runtime/MemoryLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <complex>
#include <cstring>

using namespace comprehend::runtime;
using llvm::ArrayRef;
using llvm::Expected;
using llvm::SmallVector;

llvm::SmallVector<int64_t, 4>
comprehend::runtime::getHostShape(const ParamType &param) {
  SmallVector<int64_t, 4> shape;
  if (param.kind == ParamType::Kind::Group)
    shape.push_back(param.groupSize);
  shape.append(param.shape.begin(), param.shape.end());
  return shape;
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += shape[i] == kDynamic ? "?" : std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

namespace {
/// Where the elements of one memref (or of each group member) live in the
/// device buffer.
struct DeviceLayout {
  SmallVector<int64_t, 4> shape;   ///< of one memref
  SmallVector<int64_t, 4> strides; ///< of one memref
  int64_t count = 1;               ///< group members (1 for a memref)
  int64_t memberElements = 0;      ///< buffer elements per member (extent)
};
} // namespace

static DeviceLayout getLayout(const ParamType &param,
                              ArrayRef<int64_t> hostShape) {
  DeviceLayout layout;
  bool isGroup = param.kind == ParamType::Kind::Group;
  layout.count = isGroup ? hostShape.front() : 1;
  layout.shape.assign(hostShape.begin() + (isGroup ? 1 : 0), hostShape.end());
  // Strides the type leaves open are packed over the actual shape.
  SmallVector<int64_t, 4> packed = getPackedStrides(layout.shape);
  for (auto [stride, fallback] : llvm::zip(param.strides, packed))
    layout.strides.push_back(stride == kDynamic ? fallback : stride);
  TensorArg probe{nullptr, param.dtype, layout.shape, layout.strides};
  layout.memberElements = probe.getExtent();
  return layout;
}

/// Calls `fn(hostIndex, deviceIndex)` for every element: the host tensor is
/// column-major over (count, shape...) for groups, (shape...) for memrefs.
template <typename Fn>
static void forEachElement(const DeviceLayout &layout, Fn fn) {
  int64_t elements = 1;
  for (int64_t size : layout.shape)
    elements *= size;
  SmallVector<int64_t, 4> index(layout.shape.size(), 0);
  for (int64_t j = 0; j < elements; ++j) {
    int64_t offset = 0;
    for (auto [i, stride] : llvm::zip(index, layout.strides))
      offset += i * stride;
    for (int64_t b = 0; b < layout.count; ++b)
      fn(b + layout.count * j, b * layout.memberElements + offset);
    for (size_t mode = 0; mode < index.size(); ++mode) {
      if (++index[mode] < layout.shape[mode])
        break;
      index[mode] = 0;
    }
  }
}

std::optional<uint64_t>
comprehend::runtime::getArgumentBytes(const ParamType &param,
                                      ArrayRef<int64_t> hostShape) {
  bool isGroup = param.kind == ParamType::Kind::Group;
  ArrayRef<int64_t> shape = hostShape.drop_front(isGroup ? 1 : 0);
  int64_t count = isGroup ? hostShape.front() : 1, stride = 1, extent = 1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size() && !overflow; ++i) {
    if (shape[i] == 0)
      return 0;
    // Strides the type leaves open are packed over the actual shape.
    int64_t own = i < param.strides.size() && param.strides[i] != kDynamic
                      ? param.strides[i]
                      : stride;
    int64_t last = 0;
    overflow = llvm::MulOverflow(shape[i] - 1, own, last) ||
               llvm::AddOverflow(extent, last, extent) ||
               llvm::MulOverflow(stride, shape[i], stride);
  }
  int64_t elements = 0;
  if (overflow || count < 0 || llvm::MulOverflow(count, extent, elements))
    return std::nullopt;
  return multiplyBytes(elements, getDTypeSize(param.dtype));
}

Expected<DeviceArgument>
comprehend::runtime::uploadArgument(Runtime &runtime, const ParamType &param,
                                    const HostTensor &tensor) {
  if (param.kind == ParamType::Kind::Scalar)
    return makeInputError("argument '" + param.name +
                          "' is a scalar; give a value, not an array");
  SmallVector<int64_t, 4> expected = getHostShape(param);
  auto mismatch = [&](const llvm::Twine &what) {
    return makeInputError(
        "argument '" + param.name + "' of type " + param.str() + " " + what +
        ": expected an array of " + getDTypeName(param.dtype) + " with shape " +
        shapeText(expected) + ", but got " + getDTypeName(tensor.dtype) +
        " with shape " + shapeText(tensor.shape));
  };
  if (tensor.dtype != param.dtype &&
      !(param.dtype == DType::Index && tensor.dtype == DType::I64))
    return mismatch("has the wrong dtype");
  if (tensor.shape.size() != expected.size())
    return mismatch("has the wrong number of dimensions");
  for (auto [want, have] : llvm::zip(expected, tensor.shape))
    if (want != kDynamic && want != have)
      return mismatch("has the wrong shape");

  // Before staging: the array may fit the host but not the device.
  if (llvm::Error error =
          checkTensorsFit({{param.name, getArgumentBytes(param, tensor.shape)}},
                          MemoryLimits::of(runtime.getDevice().getInfo())))
    return error;
  DeviceLayout layout = getLayout(param, tensor.shape);
  size_t elementSize = getDTypeSize(param.dtype);
  size_t bytes =
      static_cast<size_t>(layout.count * layout.memberElements) * elementSize;
  std::vector<unsigned char> staging(bytes, 0);
  forEachElement(layout, [&](int64_t host, int64_t device) {
    std::memcpy(staging.data() + device * elementSize,
                tensor.data.data() + host * elementSize, elementSize);
  });
  auto buffer = runtime.upload(staging.data(), staging.size());
  if (!buffer)
    return buffer.takeError();

  DeviceArgument argument;
  argument.type = param;
  argument.buffer = std::make_unique<Buffer>(std::move(*buffer));
  if (param.kind == ParamType::Kind::MemRef) {
    argument.value = TensorArg{argument.buffer.get(), param.dtype, layout.shape,
                               layout.strides};
  } else {
    GroupArg group;
    group.dtype = param.dtype;
    group.shape = layout.shape;
    group.strides = layout.strides;
    group.offset = param.groupOffset == kDynamic ? 0 : param.groupOffset;
    for (int64_t b = 0; b < layout.count; ++b) {
      group.buffers.push_back(argument.buffer.get());
      group.byteOffsets.push_back(
          static_cast<uint64_t>(b * layout.memberElements) * elementSize);
    }
    argument.value = std::move(group);
  }
  return argument;
}

Expected<HostTensor>
comprehend::runtime::downloadArgument(Runtime &runtime,
                                      const DeviceArgument &argument) {
  const ParamType &param = argument.type;
  SmallVector<int64_t, 4> hostShape;
  if (const auto *tensor = std::get_if<TensorArg>(&argument.value)) {
    hostShape = tensor->shape;
  } else if (const auto *group = std::get_if<GroupArg>(&argument.value)) {
    hostShape.push_back(group->getSize());
    hostShape.append(group->shape.begin(), group->shape.end());
  } else {
    return makeInputError("argument '" + param.name + "' is a scalar");
  }
  std::vector<unsigned char> staging(argument.buffer->getSize());
  if (llvm::Error err =
          runtime.read(*argument.buffer, staging.data(), staging.size()))
    return err;
  HostTensor tensor(param.dtype, hostShape);
  DeviceLayout layout = getLayout(param, hostShape);
  size_t elementSize = getDTypeSize(param.dtype);
  forEachElement(layout, [&](int64_t host, int64_t device) {
    std::memcpy(tensor.data.data() + host * elementSize,
                staging.data() + device * elementSize, elementSize);
  });
  return tensor;
}

//===----------------------------------------------------------------------===//
// Random values
//===----------------------------------------------------------------------===//

/// Writes one random element of `dtype` to `out`.
static void randomElement(DType dtype, std::mt19937_64 &rng,
                          unsigned char *out) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(-8, 8);
  auto store = [&](auto value) { std::memcpy(out, &value, sizeof(value)); };
  switch (dtype) {
  case DType::Bool:
    store(static_cast<uint8_t>(rng() & 1));
    return;
  case DType::I8:
    store(static_cast<int8_t>(integer(rng)));
    return;
  case DType::I16:
    store(static_cast<int16_t>(integer(rng)));
    return;
  case DType::I32:
    store(static_cast<int32_t>(integer(rng)));
    return;
  case DType::I64:
  case DType::Index:
    store(static_cast<int64_t>(integer(rng)));
    return;
  case DType::BF16:
    store(floatToBF16Bits(static_cast<float>(real(rng))));
    return;
  case DType::F16:
    store(floatToHalfBits(static_cast<float>(real(rng))));
    return;
  case DType::F32:
    store(static_cast<float>(real(rng)));
    return;
  case DType::F64:
    store(real(rng));
    return;
  case DType::C32: {
    float re = static_cast<float>(real(rng));
    store(std::complex<float>(re, static_cast<float>(real(rng))));
    return;
  }
  case DType::C64: {
    double re = real(rng);
    store(std::complex<double>(re, real(rng)));
    return;
  }
  }
}

HostTensor comprehend::runtime::makeRandomTensor(DType dtype,
                                                 ArrayRef<int64_t> shape,
                                                 std::mt19937_64 &rng) {
  HostTensor tensor(dtype, shape);
  size_t size = getDTypeSize(dtype);
  for (size_t offset = 0; offset < tensor.data.size(); offset += size)
    randomElement(dtype, rng, tensor.data.data() + offset);
  return tensor;
}

ScalarArg comprehend::runtime::makeRandomScalar(DType dtype,
                                                std::mt19937_64 &rng) {
  ScalarArg arg;
  arg.dtype = dtype;
  randomElement(dtype, rng, arg.bytes.data());
  return arg;
}

ScalarArg comprehend::runtime::getScalarAt(const HostTensor &tensor,
                                           int64_t index) {
  ScalarArg arg;
  arg.dtype = tensor.dtype;
  size_t size = getDTypeSize(tensor.dtype);
  std::memcpy(arg.bytes.data(), tensor.data.data() + index * size, size);
  return arg;
}
