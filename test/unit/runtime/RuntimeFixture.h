//===- RuntimeFixture.h - One runtime + test module per test binary -*- C++
//-*-===//
#ifndef COMPREHEND_TEST_UNIT_RUNTIME_RUNTIMEFIXTURE_H
#define COMPREHEND_TEST_UNIT_RUNTIME_RUNTIMEFIXTURE_H

#include "TestKernels.h"

#include "comprehend/runtime/Runtime.h"

#include "gtest/gtest.h"

namespace comprehend::runtime::test {

/// Shares one Runtime and the built test module between all tests of the
/// binary: PoCL builds the module once and JITs each kernel once.
class RuntimeTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (runtime)
      return;
    auto created = Runtime::create();
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    runtime = std::move(*created);
    auto words = assembleSpirv(getTestModuleText());
    ASSERT_TRUE(bool(words)) << llvm::toString(words.takeError());
    moduleWords = *words;
    auto built = runtime->loadProgram(moduleWords);
    ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
    program = *built;
  }

  Kernel &getKernel(llvm::StringRef name) {
    auto kernel = program->getKernel(name);
    EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    return *kernel;
  }

  template <typename T> Buffer upload(const std::vector<T> &data) {
    auto buffer = runtime->upload(data.data(), data.size() * sizeof(T));
    EXPECT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    return std::move(*buffer);
  }

  template <typename T> std::vector<T> download(const Buffer &buffer) {
    std::vector<T> data(buffer.getSize() / sizeof(T));
    llvm::Error err =
        runtime->read(buffer, data.data(), data.size() * sizeof(T));
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return data;
  }

  static inline std::unique_ptr<Runtime> runtime;
  static inline std::vector<uint32_t> moduleWords;
  static inline Program *program = nullptr;
};

/// Fails the test with the error's message.
#define ASSERT_OK(EXPR)                                                        \
  do {                                                                         \
    llvm::Error assertOkError = (EXPR);                                        \
    ASSERT_FALSE(bool(assertOkError))                                          \
        << llvm::toString(std::move(assertOkError));                           \
  } while (false)

} // namespace comprehend::runtime::test

#endif
