//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
#include "comprehend/runtime/Npy.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include "gtest/gtest.h"

#include <complex>
#include <cstring>

using namespace comprehend::runtime;

namespace {

/// A .npy file with `header` (padded as NumPy does) and raw `payload`.
std::string makeNpy(llvm::StringRef header, llvm::StringRef payload,
                    unsigned major = 1) {
  std::string text = header.str();
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = prefix + text.size() + 1;
  text.append((64 - total % 64) % 64, ' ');
  text += '\n';
  std::string bytes("\x93NUMPY", 6);
  bytes += static_cast<char>(major);
  bytes += '\0';
  bytes += static_cast<char>(text.size() & 0xff);
  bytes += static_cast<char>((text.size() >> 8) & 0xff);
  if (major != 1) {
    bytes += '\0';
    bytes += '\0';
  }
  return bytes + text + payload.str();
}

template <typename T> std::string rawBytes(std::initializer_list<T> values) {
  std::string bytes;
  for (T value : values)
    bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
  return bytes;
}

std::string errorOf(llvm::Expected<HostTensor> result) {
  EXPECT_FALSE(bool(result));
  if (result)
    return "";
  std::string message;
  llvm::handleAllErrors(result.takeError(), [&](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Input);
    message = e.getMessage().str();
  });
  return message;
}

TEST(NpyTest, ReadsCOrderAsColumnMajor) {
  // NumPy: np.arange(6, dtype='<i4').reshape(2, 3) -> rows [0 1 2], [3 4 5]
  std::string file =
      makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
              rawBytes<int32_t>({0, 1, 2, 3, 4, 5}));
  auto tensor = parseNpy(file, "a.npy");
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->dtype, DType::I32);
  ASSERT_EQ(tensor->shape.size(), 2u);
  EXPECT_EQ(tensor->shape[0], 2);
  EXPECT_EQ(tensor->shape[1], 3);
  // Column-major: element [i, j] at i + 2 * j holds array[i, j] = 3 i + j.
  const int32_t *data = tensor->getData<int32_t>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(data[i + 2 * j], 3 * i + j);
}

TEST(NpyTest, ReadsFortranOrderUnchanged) {
  std::string file =
      makeNpy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
              rawBytes<double>({1.0, 2.0, 3.0, 4.0}));
  auto tensor = parseNpy(file);
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->dtype, DType::F64);
  EXPECT_EQ(tensor->getData<double>()[1], 2.0);
  EXPECT_EQ(tensor->getData<double>()[2], 3.0);
}

TEST(NpyTest, ThreeDimensionalCOrder) {
  // shape (2, 3, 4), array[i, j, k] = 100 i + 10 j + k.
  std::string payload;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        payload += rawBytes<int16_t>({int16_t(100 * i + 10 * j + k)});
  auto tensor = parseNpy(makeNpy("{\"shape\": (2, 3, 4), \"fortran_order\": "
                                 "False, \"descr\": \"<i2\"}",
                                 payload));
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  const int16_t *data = tensor->getData<int16_t>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(data[i + 2 * j + 6 * k], 100 * i + 10 * j + k);
}

TEST(NpyTest, ScalarAndEmptyShapes) {
  auto scalar = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
              rawBytes<float>({2.5f})));
  ASSERT_TRUE(bool(scalar)) << llvm::toString(scalar.takeError());
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->getNumElements(), 1);
  auto empty = parseNpy(makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""));
  ASSERT_TRUE(bool(empty)) << llvm::toString(empty.takeError());
  EXPECT_EQ(empty->getNumElements(), 0);
  // Empty tensors of every layout path (found by the Npy fuzz target: a
  // memcpy to the null data pointer, reported by UBSan in
  // scripts/sanitize.sh and scripts/fuzz.sh builds).
  for (const char *header :
       {"{'descr': '|i1', 'fortran_order': False, 'shape': (2, 0, 3), }",
        "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 0, 3), }",
        "{'descr': '<c8', 'fortran_order': False, 'shape': (0,), }"}) {
    auto tensor = parseNpy(makeNpy(header, ""));
    ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
    EXPECT_EQ(tensor->getNumElements(), 0);
    EXPECT_TRUE(tensor->data.empty());
  }
}

TEST(NpyTest, EveryDTypeRoundTrips) {
  for (DType dtype :
       {DType::Bool, DType::I8, DType::I16, DType::I32, DType::I64, DType::BF16,
        DType::F16, DType::F32, DType::F64, DType::C32, DType::C64}) {
    HostTensor tensor(dtype, {3, 2});
    for (size_t i = 0; i < tensor.data.size(); ++i)
      tensor.data[i] = static_cast<unsigned char>(
          dtype == DType::Bool ? i % 2 : i * 37 + 11);
    std::string bytes = writeNpy(tensor);
    // The data starts 64-byte aligned.
    EXPECT_EQ((bytes.size() - tensor.data.size()) % 64, 0u);
    auto back = parseNpy(bytes, "round-trip", dtype);
    ASSERT_TRUE(bool(back)) << getDTypeName(dtype).str() << ": "
                            << llvm::toString(back.takeError());
    EXPECT_EQ(back->dtype, dtype) << getDTypeName(dtype).str();
    EXPECT_EQ(back->shape, tensor.shape);
    EXPECT_EQ(back->data, tensor.data) << getDTypeName(dtype).str();
  }
}

TEST(NpyTest, HeaderOfWrittenFiles) {
  HostTensor tensor(DType::C32, {4});
  std::string bytes = writeNpy(tensor);
  EXPECT_NE(bytes.find("{'descr': '<c8', 'fortran_order': True, 'shape': "
                       "(4,), }"),
            std::string::npos)
      << bytes.substr(0, 80);
  HostTensor matrix(DType::I8, {2, 5});
  bytes = writeNpy(matrix);
  EXPECT_NE(bytes.find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (2, 5)"), std::string::npos);
}

TEST(NpyTest, RawTwoByteDataIsBF16OrF16AsExpected) {
  std::string file =
      makeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
              rawBytes<uint16_t>({0x3f80, 0x4000}));
  auto bf16 = parseNpy(file, "x.npy", DType::BF16);
  ASSERT_TRUE(bool(bf16)) << llvm::toString(bf16.takeError());
  EXPECT_EQ(bf16->dtype, DType::BF16);
  EXPECT_EQ(bf16->getData<uint16_t>()[0], 0x3f80);
  // Without an expectation unsigned data is not a language type.
  EXPECT_NE(errorOf(parseNpy(file, "x.npy")).find("'<u2' is not a type"),
            std::string::npos);
}

TEST(NpyTest, BigEndianIsSwapped) {
  std::string payload = {0x00, 0x00, 0x01, 0x02};
  auto tensor = parseNpy(makeNpy(
      "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", payload));
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->getData<int32_t>()[0], 0x0102);
  // complex64: each float swapped separately.
  float re = 1.5f, im = -2.0f;
  std::string swapped;
  for (float value : {re, im}) {
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    swapped.append({bytes[3], bytes[2], bytes[1], bytes[0]});
  }
  auto complex = parseNpy(makeNpy(
      "{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", swapped));
  ASSERT_TRUE(bool(complex)) << llvm::toString(complex.takeError());
  EXPECT_EQ(complex->getData<std::complex<float>>()[0],
            std::complex<float>(re, im));
}

TEST(NpyTest, Version2Header) {
  auto tensor = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              rawBytes<float>({7.0f}), 2));
  ASSERT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->getData<float>()[0], 7.0f);
}

TEST(NpyTest, MalformedFiles) {
  EXPECT_EQ(errorOf(parseNpy("hello", "a.npy")),
            "a.npy: malformed .npy file: the magic string \\x93NUMPY is "
            "missing");
  std::string truncated =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
              rawBytes<float>({1, 2}));
  EXPECT_EQ(errorOf(parseNpy(truncated, "a.npy")),
            "a.npy: malformed .npy file: the data has 8 bytes, but the "
            "header promises 12");
  EXPECT_EQ(errorOf(parseNpy(makeNpy("{'descr': '<f4', 'shape': (3,), }", ""),
                             "a.npy")),
            "a.npy: malformed .npy file: the header has no 'fortran_order'");
  EXPECT_EQ(errorOf(parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': "
                                     "Maybe, 'shape': (), }",
                                     ""),
                             "a.npy")),
            "a.npy: malformed .npy file: 'fortran_order' must be True or "
            "False");
  EXPECT_EQ(errorOf(parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': "
                                     "False, 'shape': (-1,), }",
                                     ""),
                             "a.npy")),
            "a.npy: malformed .npy file: 'shape' must hold non-negative "
            "integers");
  EXPECT_EQ(errorOf(parseNpy(makeNpy("[1, 2]", ""), "a.npy")),
            "a.npy: malformed .npy file: the header is not a dictionary");
  EXPECT_NE(errorOf(parseNpy(makeNpy("{'descr': '<U3', 'fortran_order': "
                                     "False, 'shape': (), }",
                                     "abc"),
                             "s.npy"))
                .find("s.npy: the .npy dtype '<U3' is not a type of the "
                      "tensor language"),
            std::string::npos);
  std::string badVersion = makeNpy("{}", "");
  badVersion[6] = 9;
  EXPECT_EQ(errorOf(parseNpy(badVersion, "v.npy")),
            "v.npy: malformed .npy file: unsupported format version 9");
  std::string shortHeader = makeNpy("{}", "");
  shortHeader.resize(12);
  EXPECT_EQ(errorOf(parseNpy(shortHeader, "h.npy")),
            "h.npy: malformed .npy file: the header is truncated");
}

TEST(NpyTest, Files) {
  llvm::SmallString<128> path;
  int fd = -1;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("npy-test", "npy", fd, path));
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  HostTensor tensor(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    tensor.getData<float>()[i] = i * 0.5f;
  ASSERT_FALSE(bool(writeNpyFile(path, tensor)));
  auto back = readNpyFile(path);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->data, tensor.data);
  llvm::sys::fs::remove(path);
  EXPECT_NE(errorOf(readNpyFile("/nonexistent/x.npy"))
                .find("cannot read '/nonexistent/x.npy'"),
            std::string::npos);
}

} // namespace
