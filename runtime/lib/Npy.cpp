//===- Npy.cpp - NumPy .npy files <-> host tensors ------------------------===//
//
// Format: magic "\x93NUMPY", major and minor version bytes, the header length
// (u16 for 1.0, u32 for 2.0/3.0, little endian), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a newline so that the data starts 64-byte aligned.
//
//===----------------------------------------------------------------------===//
#include "comprehend/runtime/Npy.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

HostTensor::HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape.begin(), shape.end()) {
  data.resize(static_cast<size_t>(getNumElements()) * getDTypeSize(dtype));
}

int64_t HostTensor::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

namespace {
/// The fields of a header dict.
struct Header {
  std::string descr;
  bool fortranOrder = false;
  llvm::SmallVector<int64_t, 4> shape;
};

/// A small scanner for the Python literal NumPy writes. It accepts any key
/// order, single or double quotes and optional trailing commas.
class HeaderParser {
public:
  HeaderParser(StringRef text, StringRef name) : text(text), name(name) {}

  Expected<Header> parse() {
    Header header;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return error("the header is not a dictionary");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      auto key = parseString();
      if (!key)
        return key.takeError();
      skipSpace();
      if (!consume(':'))
        return error("expected ':' after '" + *key + "'");
      skipSpace();
      if (*key == "descr") {
        auto descr = parseString();
        if (!descr)
          return descr.takeError();
        header.descr = *descr;
        haveDescr = true;
      } else if (*key == "fortran_order") {
        if (text.consume_front("True"))
          header.fortranOrder = true;
        else if (text.consume_front("False"))
          header.fortranOrder = false;
        else
          return error("'fortran_order' must be True or False");
        haveOrder = true;
      } else if (*key == "shape") {
        if (llvm::Error err = parseShape(header.shape))
          return err;
        haveShape = true;
      } else {
        return error("unknown header key '" + *key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return error("expected ',' or '}' in the header");
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return error(llvm::Twine("the header has no '") +
                   (!haveDescr   ? "descr"
                    : !haveOrder ? "fortran_order"
                                 : "shape") +
                   "'");
    return header;
  }

private:
  llvm::Error error(const llvm::Twine &message) {
    return makeInputError(name + ": malformed .npy file: " + message);
  }
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(char c) { return text.consume_front(StringRef(&c, 1)); }

  Expected<std::string> parseString() {
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return error("expected a quoted string in the header");
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return error("unterminated string in the header");
    std::string value = text.slice(1, end).str();
    text = text.drop_front(end + 1);
    return value;
  }

  llvm::Error parseShape(llvm::SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return error("'shape' must be a tuple");
    while (true) {
      skipSpace();
      if (consume(')'))
        return llvm::Error::success();
      size_t digits = 0;
      while (digits < text.size() && llvm::isDigit(text[digits]))
        ++digits;
      int64_t size = 0;
      if (digits == 0 || text.take_front(digits).getAsInteger(10, size))
        return error("'shape' must hold non-negative integers");
      text = text.drop_front(digits);
      // NumPy 1.x on Windows may write "3L".
      consume('L');
      shape.push_back(size);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return llvm::Error::success();
      return error("expected ',' or ')' in 'shape'");
    }
  }

  StringRef text;
  StringRef name;
};
} // namespace

/// The element type of a descr such as "<f4"; `swap` is set for big-endian
/// data.
static Expected<DType> parseDescr(StringRef descr, StringRef name,
                                  std::optional<DType> expected, bool &swap) {
  StringRef code = descr;
  char order = code.empty() ? '|' : code.front();
  if (order == '<' || order == '>' || order == '|' || order == '=')
    code = code.drop_front();
  else
    order = '=';
  swap = order == '>';
  bool raw2 = code == "V2" || code == "u2";
  if (raw2 && expected && (*expected == DType::BF16 || *expected == DType::F16))
    return *expected;
  std::optional<DType> type;
  if (code == "b1" || code == "?")
    type = DType::Bool;
  else if (code == "i1")
    type = DType::I8;
  else if (code == "i2")
    type = DType::I16;
  else if (code == "i4")
    type = DType::I32;
  else if (code == "i8")
    type = expected == DType::Index ? DType::Index : DType::I64;
  else if (code == "f2")
    type = DType::F16;
  else if (code == "f4")
    type = DType::F32;
  else if (code == "f8")
    type = DType::F64;
  else if (code == "c8")
    type = DType::C32;
  else if (code == "c16")
    type = DType::C64;
  else if (code == "V2")
    type = DType::BF16;
  if (!type)
    return makeInputError(name + ": the .npy dtype '" + descr +
                          "' is not a type of the tensor language (use "
                          "int8..int64, float16/32/64, complex64/128, bool, "
                          "or 2-byte raw data for bf16)");
  return *type;
}

/// Copies row-major `src` to column-major `dst` (elements of `elementSize`
/// bytes).
static void transposeToColumnMajor(const unsigned char *src, unsigned char *dst,
                                   llvm::ArrayRef<int64_t> shape,
                                   size_t elementSize) {
  size_t rank = shape.size();
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  if (count == 0)
    return;
  // Row-major strides of the source.
  llvm::SmallVector<int64_t, 4> srcStrides(rank, 1);
  for (size_t i = rank; i-- > 1;)
    srcStrides[i - 1] = srcStrides[i] * shape[i];
  llvm::SmallVector<int64_t, 4> index(rank, 0);
  int64_t srcOffset = 0;
  for (int64_t dstIndex = 0; dstIndex < count; ++dstIndex) {
    std::memcpy(dst + dstIndex * elementSize, src + srcOffset * elementSize,
                elementSize);
    // Advance the column-major multi-index (first mode fastest).
    for (size_t mode = 0; mode < rank; ++mode) {
      srcOffset += srcStrides[mode];
      if (++index[mode] < shape[mode])
        break;
      srcOffset -= srcStrides[mode] * shape[mode];
      index[mode] = 0;
    }
  }
}

Expected<HostTensor>
comprehend::runtime::parseNpy(StringRef bytes, StringRef name,
                              std::optional<DType> expected) {
  auto malformed = [&](const llvm::Twine &message) {
    return makeInputError(name + ": malformed .npy file: " + message);
  };
  if (bytes.size() < kMagicSize + 4 ||
      bytes.take_front(kMagicSize) != StringRef(kMagic, kMagicSize))
    return malformed("the magic string \\x93NUMPY is missing");
  auto major = static_cast<unsigned char>(bytes[kMagicSize]);
  size_t headerLength = 0, headerStart = 0;
  auto byteAt = [&](size_t i) {
    return static_cast<size_t>(static_cast<unsigned char>(bytes[i]));
  };
  if (major == 1) {
    headerLength = byteAt(8) | byteAt(9) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return malformed("the header is truncated");
    headerLength =
        byteAt(8) | byteAt(9) << 8 | byteAt(10) << 16 | byteAt(11) << 24;
    headerStart = 12;
  } else {
    return malformed("unsupported format version " +
                     llvm::Twine(static_cast<unsigned>(major)));
  }
  if (bytes.size() < headerStart + headerLength)
    return malformed("the header is truncated");
  auto header =
      HeaderParser(bytes.substr(headerStart, headerLength), name).parse();
  if (!header)
    return header.takeError();
  bool swap = false;
  auto dtype = parseDescr(header->descr, name, expected, swap);
  if (!dtype)
    return dtype.takeError();

  HostTensor tensor;
  tensor.dtype = *dtype;
  tensor.shape = header->shape;
  size_t elementSize = getDTypeSize(*dtype);
  uint64_t count = 1;
  for (int64_t size : header->shape) {
    if (size != 0 && count > (uint64_t(1) << 48) / uint64_t(size))
      return malformed("the shape is too large");
    count *= static_cast<uint64_t>(size);
  }
  StringRef payload = bytes.drop_front(headerStart + headerLength);
  if (payload.size() != count * elementSize)
    return malformed("the data has " + llvm::Twine(payload.size()) +
                     " bytes, but the header promises " +
                     llvm::Twine(count * elementSize));
  tensor.data.resize(payload.size());
  const auto *src = reinterpret_cast<const unsigned char *>(payload.data());
  // An empty tensor (a 0 in the shape) has no data pointer to copy to.
  bool contiguous = header->fortranOrder || header->shape.size() <= 1;
  if (contiguous && !payload.empty())
    std::memcpy(tensor.data.data(), src, payload.size());
  else if (!contiguous)
    transposeToColumnMajor(src, tensor.data.data(), header->shape, elementSize);
  if (swap && elementSize > 1) {
    // Complex numbers swap each component separately.
    size_t unit = isComplexDType(*dtype) ? elementSize / 2 : elementSize;
    for (size_t i = 0; i < tensor.data.size(); i += unit)
      std::reverse(tensor.data.begin() + i, tensor.data.begin() + i + unit);
  }
  return tensor;
}

Expected<HostTensor>
comprehend::runtime::readNpyFile(StringRef path,
                                 std::optional<DType> expected) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return makeInputError("cannot read '" + path +
                          "': " + file.getError().message());
  return parseNpy((*file)->getBuffer(), path, expected);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string comprehend::runtime::writeNpy(const HostTensor &tensor) {
  std::string header;
  llvm::raw_string_ostream os(header);
  char order = getDTypeSize(tensor.dtype) == 1 ? '|' : '<';
  os << "{'descr': '" << order << getNpyTypeCode(tensor.dtype)
     << "', 'fortran_order': True, 'shape': (";
  for (int64_t size : tensor.shape)
    os << size << (tensor.shape.size() == 1 ? "," : ", ");
  if (!tensor.shape.empty() && tensor.shape.size() != 1)
    header.resize(header.size() - 2);
  os << "), }";
  os.flush();
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of 64.
  size_t total = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string bytes(kMagic, kMagicSize);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char *>(tensor.data.data()),
               tensor.data.size());
  return bytes;
}

llvm::Error comprehend::runtime::writeNpyFile(StringRef path,
                                              const HostTensor &tensor) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeInputError("cannot write '" + path + "': " + ec.message());
  os << writeNpy(tensor);
  os.close();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    return makeInputError("cannot write '" + path + "': " + message);
  }
  return llvm::Error::success();
}
