//===- ModuleFixture.h - One compiled module per e2e test suite -*- C++ -*-===//
//
// PoCL JIT-compiles each kernel at its first launch, so a suite keeps all its
// kernels in one module, compiled once when the suite starts. A test fails
// (rather than skips) when the device or the module is unavailable.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TEST_E2E_MODULEFIXTURE_H
#define COMPREHEND_TEST_E2E_MODULEFIXTURE_H

#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace comprehend::test {

/// \p Derived provides `static std::string getModuleText()` and
/// `static const char *getModuleName()`.
template <class Derived> class ModuleFixture : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto created = runtime::Runtime::create();
    if (!created) {
      setupError = llvm::toString(created.takeError());
      return;
    }
    device = std::move(*created);
    auto compiled = runtime::Executable::compileText(
        *device, Derived::getModuleText(), Derived::getModuleName());
    if (!compiled) {
      setupError = llvm::toString(compiled.takeError());
      return;
    }
    executable = std::move(*compiled);
  }
  static void TearDownTestSuite() {
    executable.reset();
    device.reset();
  }
  void SetUp() override { ASSERT_TRUE(setupError.empty()) << setupError; }

  static inline std::unique_ptr<runtime::Runtime> device;
  static inline std::unique_ptr<runtime::Executable> executable;
  static inline std::string setupError;
};

} // namespace comprehend::test

#endif // COMPREHEND_TEST_E2E_MODULEFIXTURE_H
