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
/// are skipped, with the reason, on a machine without an OpenCL device.
class DeviceTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto created = runtime::Runtime::create();
    if (!created) {
      skipReason = llvm::toString(created.takeError());
      return;
    }
    rt = std::move(*created);
  }
  static void TearDownTestSuite() { rt.reset(); }

  void SetUp() override {
    if (!rt)
      GTEST_SKIP() << "no OpenCL device: " << skipReason;
  }

  static inline std::unique_ptr<runtime::Runtime> rt;
  static inline std::string skipReason;
};

} // namespace comprehend::tc::test

#endif // COMPREHEND_TEST_UNIT_TC_DEVICETEST_H
