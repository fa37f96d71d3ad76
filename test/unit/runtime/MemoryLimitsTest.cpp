//===- MemoryLimitsTest.cpp - Tensors checked against fixed limits --------===//
#include "comprehend/runtime/MemoryLimits.h"
#include "comprehend/runtime/Arguments.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/HostArguments.h"

#include "gtest/gtest.h"

using namespace comprehend::runtime;

namespace {

/// The message and kind of \p error ("" and Input for success).
std::pair<std::string, ErrorKind> describe(llvm::Error error) {
  std::pair<std::string, ErrorKind> result{"", ErrorKind::Input};
  llvm::handleAllErrors(std::move(error), [&](const RuntimeError &e) {
    result = {e.getMessage().str(), e.getKind()};
  });
  return result;
}

const MemoryLimits kLimits{/*maxAllocationBytes=*/100,
                           /*globalMemoryBytes=*/250,
                           /*hostMemoryBytes=*/400};

TEST(MemoryLimitsTest, TensorsThatFitPass) {
  EXPECT_EQ(
      describe(checkTensorsFit({{"a", 100}, {"b", 100}, {"c", 50}}, kLimits))
          .first,
      "");
  // Unknown limits (0) are not checked.
  EXPECT_EQ(describe(checkTensorsFit({{"a", uint64_t(1) << 62}}, {})).first,
            "");
}

TEST(MemoryLimitsTest, OneTensorAboveTheMaximumAllocation) {
  auto [message, kind] =
      describe(checkTensorsFit({{"a", 10}, {"b", 101}}, kLimits));
  EXPECT_EQ(kind, ErrorKind::Device);
  EXPECT_EQ(message, "tensor 'b' needs 101 bytes, more than the device's "
                     "maximum allocation of 100 bytes");
}

TEST(MemoryLimitsTest, TensorsTogetherAboveGlobalThenHostMemory) {
  EXPECT_EQ(
      describe(checkTensorsFit({{"a", 100}, {"b", 100}, {"c", 60}}, kLimits))
          .first,
      "tensor 'c' needs 60 bytes; the tensors up to it need 260 bytes, "
      "more than the device's global memory of 250 bytes");
  MemoryLimits bigDevice = kLimits;
  bigDevice.globalMemoryBytes = 1000;
  EXPECT_EQ(
      describe(checkTensorsFit(
                   {{"a", 100}, {"b", 100}, {"c", 100}, {"d", 100}, {"e", 1}},
                   bigDevice))
          .first,
      "tensor 'e' needs 1 bytes; the tensors up to it need 401 bytes, more "
      "than the host's memory of 400 bytes, through which it is staged");
}

TEST(MemoryLimitsTest, BytesPast64Bits) {
  EXPECT_EQ(describe(checkTensorsFit({{"a", std::nullopt}}, kLimits)).first,
            "tensor 'a' needs more than 2^64 bytes");
  uint64_t half = uint64_t(1) << 63;
  EXPECT_EQ(describe(checkTensorsFit({{"a", half}, {"b", half}}, {})).first,
            "");
  MemoryLimits global{0, 1, 0};
  EXPECT_EQ(
      describe(checkTensorsFit({{"a", 0}, {"b", half}, {"c", half}}, global))
          .first.substr(0, 60),
      "tensor 'b' needs 9223372036854775808 bytes; the tensors up t");
  EXPECT_EQ(multiplyBytes(uint64_t(1) << 32, uint64_t(1) << 32), std::nullopt);
  EXPECT_EQ(multiplyBytes(3, 5), 15u);
}

TEST(MemoryLimitsTest, ArgumentBytesFollowTheLayout) {
  ParamType memref;
  memref.kind = ParamType::Kind::MemRef;
  memref.dtype = DType::F32;
  memref.shape = {kDynamic, 2};
  memref.strides = {1, 100000000000};
  // A 1 x 2 array spread 10^11 elements apart.
  EXPECT_EQ(getArgumentBytes(memref, {1, 2}), 400000000004u);
  EXPECT_EQ(getArgumentBytes(memref, {0, 2}), 0u);
  memref.strides = {1, kDynamic}; // packed over the actual shape
  EXPECT_EQ(getArgumentBytes(memref, {3, 5}), 60u);
  memref.strides = {1, int64_t(1) << 62};
  EXPECT_EQ(getArgumentBytes(memref, {1, 3}), std::nullopt);
  ParamType group = memref;
  group.kind = ParamType::Kind::Group;
  group.strides = {};
  EXPECT_EQ(getArgumentBytes(group, {7, 3, 5}), 7u * 60u);
}

} // namespace
