//===- ArgumentsTest.cpp - Calling convention and argument checks ---------===//
#include "comprehend/runtime/Arguments.h"
#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/Error.h"

#include "gtest/gtest.h"

#include <complex>

using namespace comprehend::runtime;
using Kind = comprehend::backend::KernelArg::Kind;

namespace {

std::string kinds(const std::vector<comprehend::backend::KernelArg> &layout) {
  std::string text;
  for (const auto &arg : layout) {
    switch (arg.kind) {
    case Kind::Scalar:
      text += "s";
      break;
    case Kind::Pointer:
      text += "p";
      break;
    case Kind::GroupPointer:
      text += "P";
      break;
    case Kind::DynamicShape:
      text += "h";
      break;
    case Kind::DynamicStride:
      text += "t";
      break;
    case Kind::GroupShape:
      text += "H";
      break;
    case Kind::GroupStride:
      text += "T";
      break;
    case Kind::GroupSize:
      text += "n";
      break;
    case Kind::GroupOffset:
      text += "o";
      break;
    }
    text += std::to_string(arg.paramIndex) + std::to_string(arg.mode) +
            std::to_string(arg.sizeInBytes) + " ";
  }
  return text;
}

TEST(ArgumentsTest, PackedStridesPropagateDynamicSizes) {
  EXPECT_EQ(getPackedStrides({4, 5, 6}),
            (llvm::SmallVector<int64_t, 4>{1, 4, 20}));
  EXPECT_EQ(getPackedStrides({4, kDynamic, 6}),
            (llvm::SmallVector<int64_t, 4>{1, 4, kDynamic}));
  EXPECT_EQ(getPackedStrides({kDynamic, 5}),
            (llvm::SmallVector<int64_t, 4>{1, kDynamic}));
}

TEST(ArgumentsTest, LayoutFollowsTheCallingConvention) {
  std::vector<ParamType> params = {
      ParamType::scalar("alpha", DType::F64),
      ParamType::memref("A", DType::F32, {kDynamic, 8}),
      ParamType::memref("B", DType::F32, {4, kDynamic}, {1, kDynamic}),
      ParamType::group("G", DType::F32, {kDynamic, kDynamic}, kDynamic, {},
                       kDynamic),
      ParamType::group("H", DType::C32, {4}, 10),
      ParamType::scalar("z", DType::C64)};
  // A: pointer, shape 0, stride 1 (after a '?'); B: pointer, shape 1,
  // stride 1; G: pointers, shapes 0 and 1, stride 1, size, offset.
  EXPECT_EQ(kinds(computeArgLayout(params)),
            "s008 p108 h108 t118 p208 h218 t218 P308 H308 H318 T318 n308 "
            "o308 P408 s5016 ");
}

TEST(ArgumentsTest, ParamTypeSpelling) {
  EXPECT_EQ(ParamType::memref("A", DType::F32, {kDynamic, 8}).str(),
            "memref<f32x?x8>");
  EXPECT_EQ(ParamType::memref("A", DType::F16, {4, 8}).str(),
            "memref<f16x4x8>");
  EXPECT_EQ(ParamType::memref("A", DType::F32, {4, 8}, {1, 16}).str(),
            "memref<f32x4x8,strided<1,16>>");
  EXPECT_EQ(ParamType::group("G", DType::I32, {4}, kDynamic).str(),
            "group<memref<i32x4>x?>");
  EXPECT_EQ(ParamType::scalar("x", DType::C32).str(), "c32");
}

TEST(ArgumentsTest, ChecksDTypeShapeAndStrides) {
  Buffer fake(nullptr, 0, 1 << 20); // never dereferenced by the checks
  std::vector<ParamType> params = {
      ParamType::memref("A", DType::F32, {kDynamic, 8})};
  auto check = [&](ArgValue value) {
    llvm::Error err = checkArguments(params, {value});
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  EXPECT_EQ(check(TensorArg{&fake, DType::F32, {3, 8}, {}}), "");
  EXPECT_EQ(check(TensorArg{&fake, DType::F64, {3, 8}, {}}),
            "argument 'A' has the wrong element type: expected "
            "memref<f32x?x8>, but got memref<f64x3x8>");
  EXPECT_EQ(check(TensorArg{&fake, DType::F32, {3, 7}, {}}),
            "argument 'A' has the wrong shape: expected "
            "memref<f32x?x8>, but got memref<f32x3x7>");
  EXPECT_EQ(check(TensorArg{&fake, DType::F32, {3}, {}}),
            "argument 'A' has the wrong order: expected "
            "memref<f32x?x8>, but got memref<f32x3>");
  EXPECT_EQ(check(ScalarArg::f32(1)),
            "argument 'A' must be a memref<f32x?x8>, but got "
            "f32");
  // A stride the type fixes.
  std::vector<ParamType> fixed = {
      ParamType::memref("B", DType::F32, {4, 4}, {1, 8})};
  llvm::Error err =
      checkArguments(fixed, {TensorArg{&fake, DType::F32, {4, 4}, {}}});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "argument 'B' has the wrong strides: expected "
            "memref<f32x4x4,strided<1,8>>, but got memref<f32x4x4>");
}

TEST(ArgumentsTest, ChecksBufferSizeAndCounts) {
  Buffer small(nullptr, 0, 15);
  std::vector<ParamType> params = {ParamType::memref("A", DType::F32, {4})};
  llvm::Error err =
      checkArguments(params, {TensorArg{&small, DType::F32, {4}, {}}});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "argument 'A' needs 16 bytes, but its buffer is smaller");
  err = checkArguments(params, {});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "the kernel takes 1 arguments, but 0 were given");
}

TEST(ArgumentsTest, ChecksGroups) {
  Buffer buffer(nullptr, 0, 5 * 4 * sizeof(float));
  std::vector<ParamType> params = {ParamType::group("G", DType::F32, {4}, 6)};
  GroupArg group = GroupArg::stacked(buffer, DType::F32, {4}, 5);
  EXPECT_EQ(group.byteOffsets[4], 4u * 4 * sizeof(float));
  llvm::Error err = checkArguments(params, {group});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "argument 'G' must have 6 members, but has 5");
  GroupArg tooMany = GroupArg::stacked(buffer, DType::F32, {4}, 6);
  params[0].groupSize = kDynamic;
  err = checkArguments(params, {tooMany});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "a member of argument 'G' lies outside its buffer");
}

TEST(ArgumentsTest, StridedExtent) {
  TensorArg view{nullptr, DType::F32, {5, 3}, {1, 7}};
  EXPECT_EQ(view.getExtent(), 4 + 2 * 7 + 1);
  TensorArg empty{nullptr, DType::F32, {0, 3}, {}};
  EXPECT_EQ(empty.getExtent(), 0);
}

template <typename T> T valueOf(const ScalarArg &arg) {
  T value;
  std::memcpy(&value, arg.bytes.data(), sizeof(T));
  return value;
}

TEST(ArgumentsTest, ParsesScalars) {
  auto parse = [](DType dtype, llvm::StringRef text) {
    auto arg = ScalarArg::parse(dtype, text);
    EXPECT_TRUE(bool(arg)) << text.str() << ": "
                           << llvm::toString(arg.takeError());
    return *arg;
  };
  EXPECT_EQ(valueOf<int8_t>(parse(DType::I8, "-128")), -128);
  EXPECT_EQ(valueOf<int64_t>(parse(DType::I64, "0x10")), 16);
  EXPECT_EQ(valueOf<float>(parse(DType::F32, "1.5e2")), 150.0f);
  EXPECT_EQ(valueOf<double>(parse(DType::F64, "-0.25")), -0.25);
  EXPECT_EQ(valueOf<uint16_t>(parse(DType::F16, "1.0")), 0x3c00);
  EXPECT_EQ(valueOf<uint16_t>(parse(DType::F16, "-2")), 0xc000);
  EXPECT_EQ(valueOf<uint16_t>(parse(DType::F16, "65504")), 0x7bff);
  EXPECT_EQ(valueOf<uint16_t>(parse(DType::F16, "1e6")), 0x7c00);
  EXPECT_EQ(valueOf<uint16_t>(parse(DType::BF16, "1.0")), 0x3f80);
  EXPECT_EQ(valueOf<std::complex<float>>(parse(DType::C32, "1.5-2i")),
            std::complex<float>(1.5f, -2.0f));
  EXPECT_EQ(valueOf<std::complex<double>>(parse(DType::C64, "(3,4)")),
            std::complex<double>(3, 4));
  EXPECT_EQ(valueOf<std::complex<double>>(parse(DType::C64, "2e-1+1e+1i")),
            std::complex<double>(0.2, 10));
  EXPECT_EQ(valueOf<std::complex<double>>(parse(DType::C64, "-3i")),
            std::complex<double>(0, -3));
  EXPECT_EQ(valueOf<uint8_t>(parse(DType::Bool, "true")), 1);
  EXPECT_EQ(parse(DType::C64, "1").getSize(), 16u);
}

TEST(ArgumentsTest, RejectsBadScalars) {
  auto error = [](DType dtype, llvm::StringRef text) {
    auto arg = ScalarArg::parse(dtype, text);
    EXPECT_FALSE(bool(arg));
    return arg ? std::string() : llvm::toString(arg.takeError());
  };
  EXPECT_EQ(error(DType::I32, "1.5"), "'1.5' is not a valid i32 value");
  EXPECT_EQ(error(DType::I8, "200"), "'200' does not fit into i8");
  EXPECT_EQ(error(DType::F32, "abc"), "'abc' is not a valid f32 value");
  EXPECT_EQ(error(DType::C32, "1+"), "'1+' is not a valid c32 value");
  EXPECT_EQ(error(DType::Bool, "2"), "'2' is not a valid bool value");
}

} // namespace
