//===- Arguments.cpp - Host-side descriptors of kernel arguments ----------===//
#include "comprehend/runtime/Arguments.h"
#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

SmallVector<int64_t, 4> runtime::getPackedStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides;
  int64_t stride = 1;
  for (int64_t size : shape) {
    strides.push_back(stride);
    stride =
        (stride == kDynamic || size == kDynamic) ? kDynamic : stride * size;
  }
  return strides;
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

static bool parseDouble(StringRef text, double &value) {
  text = text.trim();
  if (text.empty())
    return false;
  std::string copy = text.str();
  char *end = nullptr;
  value = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size();
}

/// "re", "re+imi", "re-imi", "imi", "(re,im)".
static bool parseComplex(StringRef text, double &re, double &im) {
  text = text.trim();
  if (text.consume_front("(") && text.consume_back(")")) {
    auto [reText, imText] = text.split(',');
    return parseDouble(reText, re) && parseDouble(imText, im);
  }
  im = 0;
  if (!text.consume_back("i") && !text.consume_back("j"))
    return parseDouble(text, re);
  // The imaginary part starts at the last sign that is not an exponent's.
  size_t split = StringRef::npos;
  for (size_t i = text.size(); i-- > 1;)
    if ((text[i] == '+' || text[i] == '-') &&
        !(text[i - 1] == 'e' || text[i - 1] == 'E')) {
      split = i;
      break;
    }
  if (split == StringRef::npos) {
    re = 0;
    return parseDouble(text, im);
  }
  return parseDouble(text.take_front(split), re) &&
         parseDouble(text.drop_front(split), im);
}

llvm::Expected<ScalarArg> ScalarArg::parse(DType dtype, StringRef text) {
  auto bad = [&]() {
    return makeInputError("'" + text + "' is not a valid " +
                          getDTypeName(dtype) + " value");
  };
  if (isComplexDType(dtype)) {
    double re = 0, im = 0;
    if (!parseComplex(text, re, im))
      return bad();
    if (dtype == DType::C32)
      return c32({static_cast<float>(re), static_cast<float>(im)});
    return c64({re, im});
  }
  if (dtype == DType::Bool) {
    StringRef t = text.trim();
    if (t == "true" || t == "1")
      return make(DType::Bool, static_cast<uint8_t>(1));
    if (t == "false" || t == "0")
      return make(DType::Bool, static_cast<uint8_t>(0));
    return bad();
  }
  if (isIntegerDType(dtype)) {
    int64_t value = 0;
    if (text.trim().getAsInteger(0, value))
      return bad();
    unsigned bits = getDTypeSize(dtype) * 8;
    if (bits < 64 && (value < -(int64_t(1) << (bits - 1)) ||
                      value >= (int64_t(1) << (bits - 1))))
      return makeInputError("'" + text + "' does not fit into " +
                            getDTypeName(dtype));
    switch (dtype) {
    case DType::I8:
      return i8(static_cast<int8_t>(value));
    case DType::I16:
      return i16(static_cast<int16_t>(value));
    case DType::I32:
      return i32(static_cast<int32_t>(value));
    case DType::Index:
      return index(value);
    default:
      return i64(value);
    }
  }
  double value = 0;
  if (!parseDouble(text, value))
    return bad();
  switch (dtype) {
  case DType::F16:
    return f16Bits(floatToHalfBits(static_cast<float>(value)));
  case DType::BF16:
    return bf16Bits(floatToBF16Bits(static_cast<float>(value)));
  case DType::F32:
    return f32(static_cast<float>(value));
  default:
    return f64(value);
  }
}

//===----------------------------------------------------------------------===//
// Tensors and groups
//===----------------------------------------------------------------------===//

SmallVector<int64_t, 4> TensorArg::getStrides() const {
  return strides.empty() ? getPackedStrides(shape) : strides;
}

static int64_t getExtentOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  int64_t last = 0;
  for (auto [size, stride] : llvm::zip(shape, strides)) {
    if (size == 0)
      return 0;
    last += (size - 1) * stride;
  }
  return last + 1;
}

int64_t TensorArg::getExtent() const {
  return getExtentOf(shape, getStrides());
}

SmallVector<int64_t, 4> GroupArg::getStrides() const {
  return strides.empty() ? getPackedStrides(shape) : strides;
}

GroupArg GroupArg::stacked(const Buffer &buffer, DType dtype,
                           ArrayRef<int64_t> shape, int64_t count) {
  GroupArg group;
  group.dtype = dtype;
  group.shape.assign(shape.begin(), shape.end());
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  for (int64_t i = 0; i < count; ++i) {
    group.buffers.push_back(&buffer);
    group.byteOffsets.push_back(
        static_cast<uint64_t>(i * elements * getDTypeSize(dtype)));
  }
  return group;
}

//===----------------------------------------------------------------------===//
// Parameter types
//===----------------------------------------------------------------------===//

ParamType ParamType::scalar(StringRef name, DType dtype) {
  ParamType type;
  type.kind = Kind::Scalar;
  type.name = name.str();
  type.dtype = dtype;
  return type;
}

ParamType ParamType::memref(StringRef name, DType dtype,
                            ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> strides) {
  ParamType type;
  type.kind = Kind::MemRef;
  type.name = name.str();
  type.dtype = dtype;
  type.shape.assign(shape.begin(), shape.end());
  if (strides.empty())
    type.strides = getPackedStrides(shape);
  else
    type.strides.assign(strides.begin(), strides.end());
  return type;
}

ParamType ParamType::group(StringRef name, DType dtype, ArrayRef<int64_t> shape,
                           int64_t size, ArrayRef<int64_t> strides,
                           int64_t offset) {
  ParamType type = memref(name, dtype, shape, strides);
  type.kind = Kind::Group;
  type.groupSize = size;
  type.groupOffset = offset;
  return type;
}

static std::string sizeText(int64_t size) {
  return size == kDynamic ? "?" : std::to_string(size);
}

std::string ParamType::str() const {
  if (kind == Kind::Scalar)
    return getDTypeName(dtype).str();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (kind == Kind::Group)
    os << "group<";
  os << "memref<" << getDTypeName(dtype);
  for (int64_t size : shape)
    os << 'x' << sizeText(size);
  if (strides != getPackedStrides(shape)) {
    os << ",strided<";
    llvm::interleave(
        strides, os, [&](int64_t s) { os << sizeText(s); }, ",");
    os << '>';
  }
  os << '>';
  if (kind == Kind::Group) {
    os << 'x' << sizeText(groupSize);
    if (groupOffset != 0)
      os << ", offset: " << sizeText(groupOffset);
    os << '>';
  }
  return os.str();
}

static backend::KernelArg makeArg(backend::KernelArg::Kind kind,
                                  unsigned paramIndex, unsigned mode = 0,
                                  unsigned sizeInBytes = 8) {
  backend::KernelArg arg;
  arg.kind = kind;
  arg.paramIndex = paramIndex;
  arg.mode = mode;
  arg.sizeInBytes = sizeInBytes;
  return arg;
}

std::vector<backend::KernelArg>
runtime::computeArgLayout(ArrayRef<ParamType> params) {
  using Kind = backend::KernelArg::Kind;
  std::vector<backend::KernelArg> layout;
  for (unsigned paramIndex = 0; paramIndex < params.size(); ++paramIndex) {
    const ParamType &param = params[paramIndex];
    if (param.kind == ParamType::Kind::Scalar) {
      layout.push_back(
          makeArg(Kind::Scalar, paramIndex, 0, getDTypeSize(param.dtype)));
      continue;
    }
    bool isGroup = param.kind == ParamType::Kind::Group;
    layout.push_back(
        makeArg(isGroup ? Kind::GroupPointer : Kind::Pointer, paramIndex));
    for (unsigned mode = 0; mode < param.shape.size(); ++mode)
      if (param.shape[mode] == kDynamic)
        layout.push_back(makeArg(
            isGroup ? Kind::GroupShape : Kind::DynamicShape, paramIndex, mode));
    for (unsigned mode = 0; mode < param.strides.size(); ++mode)
      if (param.strides[mode] == kDynamic)
        layout.push_back(
            makeArg(isGroup ? Kind::GroupStride : Kind::DynamicStride,
                    paramIndex, mode));
    if (isGroup && param.groupSize == kDynamic)
      layout.push_back(makeArg(Kind::GroupSize, paramIndex));
    if (isGroup && param.groupOffset == kDynamic)
      layout.push_back(makeArg(Kind::GroupOffset, paramIndex));
  }
  return layout;
}

static std::string describeValue(const ArgValue &value) {
  if (const auto *scalar = std::get_if<ScalarArg>(&value))
    return getDTypeName(scalar->dtype).str();
  ParamType type;
  if (const auto *tensor = std::get_if<TensorArg>(&value)) {
    type = ParamType::memref("", tensor->dtype, tensor->shape,
                             tensor->getStrides());
  } else {
    const auto &group = std::get<GroupArg>(value);
    type = ParamType::group("", group.dtype, group.shape, group.getSize(),
                            group.getStrides(), group.offset);
  }
  return type.str();
}

static llvm::Error checkShape(const ParamType &param, const ArgValue &value,
                              DType dtype, ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> strides) {
  auto mismatch = [&](const llvm::Twine &what) {
    return makeInputError("argument '" + param.name + "' " + what +
                          ": expected " + param.str() + ", but got " +
                          describeValue(value));
  };
  if (dtype != param.dtype)
    return mismatch("has the wrong element type");
  if (shape.size() != param.shape.size())
    return mismatch("has the wrong order");
  for (auto [expected, actual] : llvm::zip(param.shape, shape)) {
    if (actual < 0)
      return mismatch("has a negative size");
    if (expected != kDynamic && expected != actual)
      return mismatch("has the wrong shape");
  }
  for (auto [expected, actual] : llvm::zip(param.strides, strides))
    if (expected != kDynamic && expected != actual)
      return mismatch("has the wrong strides");
  return llvm::Error::success();
}

llvm::Error runtime::checkArguments(ArrayRef<ParamType> params,
                                    ArrayRef<ArgValue> values) {
  if (params.size() != values.size())
    return makeInputError("the kernel takes " + llvm::Twine(params.size()) +
                          " arguments, but " + llvm::Twine(values.size()) +
                          " were given");
  for (auto [param, value] : llvm::zip(params, values)) {
    switch (param.kind) {
    case ParamType::Kind::Scalar: {
      const auto *scalar = std::get_if<ScalarArg>(&value);
      if (!scalar || scalar->dtype != param.dtype)
        return makeInputError("argument '" + param.name + "' must be a " +
                              param.str() + " scalar, but got " +
                              describeValue(value));
      break;
    }
    case ParamType::Kind::MemRef: {
      const auto *tensor = std::get_if<TensorArg>(&value);
      if (!tensor)
        return makeInputError("argument '" + param.name + "' must be a " +
                              param.str() + ", but got " +
                              describeValue(value));
      if (llvm::Error err = checkShape(param, value, tensor->dtype,
                                       tensor->shape, tensor->getStrides()))
        return err;
      uint64_t bytes = static_cast<uint64_t>(tensor->getExtent()) *
                       getDTypeSize(tensor->dtype);
      if (!tensor->buffer || tensor->buffer->getSize() < bytes)
        return makeInputError("argument '" + param.name + "' needs " +
                              llvm::Twine(bytes) +
                              " bytes, but its buffer is smaller");
      break;
    }
    case ParamType::Kind::Group: {
      const auto *group = std::get_if<GroupArg>(&value);
      if (!group)
        return makeInputError("argument '" + param.name + "' must be a " +
                              param.str() + ", but got " +
                              describeValue(value));
      if (llvm::Error err = checkShape(param, value, group->dtype, group->shape,
                                       group->getStrides()))
        return err;
      if (param.groupSize != kDynamic && param.groupSize != group->getSize())
        return makeInputError("argument '" + param.name + "' must have " +
                              llvm::Twine(param.groupSize) +
                              " members, but has " +
                              llvm::Twine(group->getSize()));
      if (group->byteOffsets.size() != group->buffers.size())
        return makeInputError("argument '" + param.name +
                              "' needs one byte offset per member");
      uint64_t bytes = static_cast<uint64_t>(
                           getExtentOf(group->shape, group->getStrides())) *
                       getDTypeSize(group->dtype);
      for (auto [buffer, offset] :
           llvm::zip(group->buffers, group->byteOffsets))
        if (!buffer || buffer->getSize() < offset + bytes)
          return makeInputError("a member of argument '" + param.name +
                                "' lies outside its buffer");
      break;
    }
    }
  }
  return llvm::Error::success();
}
