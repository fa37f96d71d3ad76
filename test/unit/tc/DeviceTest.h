//===- DeviceTest.h - A test suite that runs kernels on the device -*- C++
//-*-===//
#ifndef COMPREHEND_TEST_UNIT_TC_DEVICETEST_H
#define COMPREHEND_TEST_UNIT_TC_DEVICETEST_H

#include "comprehend/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace comprehend::tc::test {

/// One runtime on the default device for the whole suite; the suite's tests
/// fail, with the reason, on a machine without a device that runs SPIR-V (as
/// the e2e tests do: a missing device is not a pass).
class DeviceTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto created = runtime::Runtime::create();
    if (!created) {
      setupError = llvm::toString(created.takeError());
      return;
    }
    rt = std::move(*created);
  }
  static void TearDownTestSuite() { rt.reset(); }

  void SetUp() override {
    ASSERT_NE(rt, nullptr) << "no OpenCL device: " << setupError;
  }

  static inline std::unique_ptr<runtime::Runtime> rt;
  static inline std::string setupError;
};

} // namespace comprehend::tc::test

#endif // COMPREHEND_TEST_UNIT_TC_DEVICETEST_H
