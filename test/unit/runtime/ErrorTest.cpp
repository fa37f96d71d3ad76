//===- ErrorTest.cpp - OpenCL status codes as llvm::Error -----------------===//
#include "comprehend/runtime/Error.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace comprehend::runtime;

namespace {

TEST(ErrorTest, NamesOfStatusCodes) {
  EXPECT_EQ(getCLErrorName(-52), "CL_INVALID_KERNEL_ARGS");
  EXPECT_EQ(getCLErrorName(-11), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_EQ(getCLErrorName(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(getCLErrorName(-9999), "unknown OpenCL error");
}

TEST(ErrorTest, MessageNamesCallCodeAndRemedy) {
  std::string message = llvm::toString(makeCLError("clSetKernelArg", -51));
  EXPECT_EQ(message, "clSetKernelArg failed with CL_INVALID_ARG_SIZE (-51): "
                     "an argument's size does not match the kernel "
                     "parameter; check the scalar types");
}

TEST(ErrorTest, UnknownCodesGetAGenericHint) {
  std::string message = llvm::toString(makeCLError("clFoo", -9999));
  EXPECT_NE(message.find("unknown OpenCL error (-9999): check the arguments"),
            std::string::npos)
      << message;
}

TEST(ErrorTest, DetailFollowsOnItsOwnLine) {
  std::string message =
      llvm::toString(makeCLError("clBuildProgram", -11, "build log:\nbad\n"));
  EXPECT_NE(message.find("see the build log\nbuild log:\nbad"),
            std::string::npos)
      << message;
}

TEST(ErrorTest, CheckCLPassesSuccess) {
  EXPECT_FALSE(bool(checkCL(0, "clFinish")));
  llvm::Error err = checkCL(-36, "clFinish");
  ASSERT_TRUE(bool(err));
  llvm::handleAllErrors(std::move(err), [](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Device);
    EXPECT_EQ(e.getCLCode(), -36);
  });
}

TEST(ErrorTest, ReportPicksTheMostSevereKind) {
  std::string text;
  llvm::raw_string_ostream os(text);
  EXPECT_EQ(reportError(makeInputError("bad file"), os, "comprehend run"),
            ErrorKind::Input);
  EXPECT_EQ(
      reportError(llvm::joinErrors(makeInputError("a"), makeDeviceError("b")),
                  os, "x"),
      ErrorKind::Device);
  EXPECT_EQ(reportError(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                "other"),
                        os, "y"),
            ErrorKind::Device);
  EXPECT_EQ(os.str(), "comprehend run: error: bad file\nx: error: a\n"
                      "x: error: b\ny: error: other\n");
}

TEST(ErrorTest, StatusCodesOfTheCallersInputNameTheirSubject) {
  llvm::handleAllErrors(
      makeCLError("clCreateKernel", -46), [](const RuntimeError &e) {
        EXPECT_EQ(e.getSubject(), InputSubject::Entry);
        EXPECT_EQ(e.getMessage().find("--"), llvm::StringRef::npos);
      });
  llvm::handleAllErrors(
      makeCLError("clEnqueueNDRangeKernel", -63), [](const RuntimeError &e) {
        EXPECT_EQ(e.getSubject(), InputSubject::Grid);
        EXPECT_EQ(e.getMessage().find("--"), llvm::StringRef::npos);
      });
  llvm::handleAllErrors(makeCLError("clFinish", -36),
                        [](const RuntimeError &e) {
                          EXPECT_EQ(e.getSubject(), InputSubject::None);
                        });
}

TEST(ErrorTest, ReportAppendsTheFrontEndsHint) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto hint = [](const RuntimeError &e) -> std::string {
    if (e.getSubject() != InputSubject::MissingScalar)
      return "";
    return ("give " + e.getSubjectName() + " a value").str();
  };
  llvm::Error errors = llvm::joinErrors(
      makeInputError("missing n", InputSubject::MissingScalar, "n"),
      makeInputError("bad file"));
  EXPECT_EQ(reportError(std::move(errors), os, "x", hint), ErrorKind::Input);
  EXPECT_EQ(os.str(), "x: error: missing n (give n a value)\n"
                      "x: error: bad file\n");
}

} // namespace
