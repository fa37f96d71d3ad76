//===- LoweringRunTest.cpp - Lowered TC kernels run against the evaluator -===//
//
// Lowers a TC def with concrete sizes, compiles it with the backend for the
// default OpenCL device (PoCL), runs it through the runtime's C++ API on
// random inputs with poisoned outputs and compares every output with the
// reference evaluator. Odd sizes so no tile divides evenly.
//
//===----------------------------------------------------------------------===//
#include "DeviceTest.h"
#include "TcTestUtil.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::readExample;
using comprehend::tc::test::TcSource;

namespace {

class LoweringRunTest : public test::DeviceTest {
protected:
  /// Runs def \p entry of \p text with \p sizes on the device and on the
  /// evaluator; returns the largest relative error over all outputs (or a
  /// huge value after a failure, which has been reported).
  double runAndCompare(llvm::StringRef text, llvm::StringRef entry,
                       const llvm::StringMap<int64_t> &sizes,
                       LoweringOptions options = {});
};

double LoweringRunTest::runAndCompare(llvm::StringRef text,
                                      llvm::StringRef entry,
                                      const llvm::StringMap<int64_t> &sizes,
                                      LoweringOptions options) {
  constexpr double kFailed = 1e30;
  TcSource source(text);
  Program *program = source.load();
  EXPECT_NE(program, nullptr) << testing::PrintToString(source.messages);
  if (!program)
    return kFailed;
  const Def *def = findEntry(*program, entry);
  EXPECT_NE(def, nullptr);
  if (!def)
    return kFailed;

  ir::Context ctx;
  ir::Program lowered(ctx);
  std::optional<LoweredDef> result =
      lowerDef(*program, *def, sizes, lowered, source.diags, options);
  EXPECT_TRUE(result.has_value()) << testing::PrintToString(source.messages);
  if (!result)
    return kFailed;
  EXPECT_TRUE(succeeded(ir::verify(lowered, source.diags)))
      << testing::PrintToString(source.messages);
  std::string irText;
  llvm::raw_string_ostream irStream(irText);
  ir::print(lowered, irStream);

  auto exe = runtime::Executable::compile(*rt, lowered, source.diags);
  EXPECT_TRUE(bool(exe)) << llvm::toString(exe.takeError()) << "\n"
                         << irText << testing::PrintToString(source.messages);
  if (!exe)
    return kFailed;

  // Random inputs; outputs and temporaries poisoned with NaN bytes.
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  llvm::StringMap<Tensor> args;
  std::vector<runtime::Buffer> buffers;
  buffers.reserve(result->tensors.size());
  std::vector<runtime::ArgValue> values;
  for (const LoweredTensor &tensor : result->tensors) {
    int64_t count = 1;
    for (int64_t extent : tensor.shape)
      count *= extent;
    // float and int32 tensors only (4-byte elements); integer inputs are
    // small non-negative values so that they can index other tensors.
    bool isInt = tensor.type == ScalarType::Int32;
    EXPECT_TRUE(isInt || tensor.type == ScalarType::Float);
    std::vector<float> host(count);
    std::vector<int32_t> hostInt(count);
    if (tensor.role == TensorInfo::Role::Input) {
      Tensor arg(tensor.type, tensor.shape);
      arg.data.resize(count);
      for (int64_t i = 0; i < count; ++i) {
        arg.data[i] = isInt ? std::floor(1.5 * (dist(rng) + 1))
                            : convertTo(dist(rng), tensor.type);
        host[i] = static_cast<float>(arg.data[i]);
        hostInt[i] = static_cast<int32_t>(arg.data[i]);
      }
      args[tensor.name] = std::move(arg);
    }
    auto buffer = isInt ? rt->upload(hostInt.data(), count * sizeof(int32_t))
                        : rt->upload(host.data(), count * sizeof(float));
    EXPECT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    if (!buffer)
      return kFailed;
    if (tensor.role != TensorInfo::Role::Input) {
      EXPECT_FALSE(bool(rt->fill(*buffer, 0xff)));
    }
    buffers.push_back(std::move(*buffer));
    // Row-major TC data is the column-major memref with reversed modes.
    runtime::TensorArg arg;
    arg.buffer = &buffers.back();
    arg.dtype = isInt ? runtime::DType::I32 : runtime::DType::F32;
    arg.shape.assign(tensor.shape.rbegin(), tensor.shape.rend());
    values.push_back(arg);
  }

  // The kernels in order, each with the tensors it takes.
  for (const LoweredKernel &kernel : result->kernels) {
    std::array<size_t, 3> grid;
    for (unsigned d = 0; d < 3; ++d)
      grid[d] = kernel.grid[d];
    std::vector<runtime::ArgValue> kernelArgs;
    for (unsigned index : kernel.tensorIndices)
      kernelArgs.push_back(values[index]);
    auto timing = (*exe)->run(kernel.function->getName(), grid, kernelArgs);
    EXPECT_TRUE(bool(timing)) << llvm::toString(timing.takeError()) << "\n"
                              << irText;
    if (!timing)
      return kFailed;
  }

  std::optional<llvm::StringMap<Tensor>> expected =
      evaluate(*program, *def, args, source.diags, sizes);
  EXPECT_TRUE(expected.has_value()) << testing::PrintToString(source.messages);
  if (!expected)
    return kFailed;

  double maxError = 0;
  for (size_t index = 0; index < result->tensors.size(); ++index) {
    const LoweredTensor &tensor = result->tensors[index];
    if (tensor.role != TensorInfo::Role::Output)
      continue;
    const Tensor &want = expected->find(tensor.name)->second;
    EXPECT_EQ(tensor.type, ScalarType::Float);
    std::vector<float> got(want.data.size());
    EXPECT_FALSE(
        bool(rt->read(buffers[index], got.data(), got.size() * sizeof(float))));
    for (size_t i = 0; i < got.size(); ++i) {
      double error = std::abs(got[i] - want.data[i]) /
                     std::max(1.0, std::abs(want.data[i]));
      if (!(error <= maxError)) // NaN (poison left behind) counts as failure
        maxError = std::isnan(error) ? kFailed : error;
    }
  }
  EXPECT_LT(maxError, 1e-4) << irText;
  return maxError;
}

TEST_F(LoweringRunTest, Matmul) {
  runAndCompare(readExample("matmul.tc"), "matmul",
                {{"M", 7}, {"K", 33}, {"N", 5}});
}

TEST_F(LoweringRunTest, MatmulLoops) {
  runAndCompare(readExample("matmul.tc"), "matmul",
                {{"M", 7}, {"K", 33}, {"N", 5}}, {/*matchBlas=*/false});
}

TEST_F(LoweringRunTest, MatmulTransposes) {
  const char *text = R"TC(
def tn(float(K, M) A, float(K, N) B) -> (C) {
  C(i, j) +=! A(k, i) * B(k, j)
}
def nt(float(M, K) A, float(N, K) B) -> (C) {
  C(i, j) +=! A(i, k) * B(j, k)
}
def tt(float(K, M) A, float(N, K) B) -> (C) {
  C(i, j) +=! 2 * B(j, k) * A(k, i)
}
)TC";
  llvm::StringMap<int64_t> sizes{{"M", 7}, {"K", 9}, {"N", 5}};
  for (const char *entry : {"tn", "nt", "tt"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, sizes);
  }
}

LoweringOptions blocked(int64_t rows, int64_t cols) {
  LoweringOptions options;
  options.blockRows = rows;
  options.blockCols = cols;
  return options;
}

TEST_F(LoweringRunTest, MatmulBlocks) {
  // Output memref 5 x 7 (N x M): whole blocks, clipped edge blocks, blocks
  // of one row or column, and blocks larger than the shape.
  llvm::StringMap<int64_t> sizes{{"M", 7}, {"K", 33}, {"N", 5}};
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1},
                            {2, 3},
                            {4, 7},
                            {5, 2},
                            {3, 100},
                            {100, 1}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols);
    runAndCompare(readExample("matmul.tc"), "matmul", sizes,
                  blocked(rows, cols));
  }
}

TEST_F(LoweringRunTest, BlockedBlasForms) {
  const char *text = R"TC(
def tn(float(K, M) A, float(K, N) B) -> (C) {
  C(i, j) +=! A(k, i) * B(k, j)
}
def tt(float(K, M) A, float(N, K) B) -> (C) {
  C(i, j) +=! 2 * B(j, k) * A(k, i)
}
def gemv(float(M, K) A, float(K) x) -> (y) {
  y(i) +=! A(i, k) * x(k)
}
def ger(float(M) x, float(N) y) -> (C) {
  C(i, j) = x(i) * y(j)
}
def rowsum(float(M, N) A) -> (s) {
  s(i) +=! A(i, j)
}
def hadamard(float(M, N) A, float(M, N) B) -> (C) {
  C(i, j) = A(i, j) * B(i, j)
}
def transpose(float(M, N) A) -> (B) {
  B(j, i) = 3 * A(i, j)
}
def bmm(float(B, M, K) A, float(B, K, N) X) -> (C) {
  C(b, i, j) +=! A(b, i, k) * X(b, k, j)
}
def bbmm(float(B, B, M, K) A, float(B, B, K, N) X) -> (C) {
  C(a, b, i, j) +=! A(a, b, i, k) * X(a, b, k, j)
}
)TC";
  llvm::StringMap<int64_t> sizes{{"M", 7}, {"K", 9}, {"N", 5}, {"B", 3}};
  for (const char *entry : {"tn", "tt", "gemv", "ger", "rowsum", "hadamard",
                            "transpose", "bmm", "bbmm"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, sizes, blocked(2, 3));
  }
}

TEST_F(LoweringRunTest, BatchMatmul) {
  runAndCompare(readExample("batch_matmul.tc"), "batch_matmul",
                {{"B", 3}, {"N", 7}, {"M", 5}, {"K", 9}});
}

TEST_F(LoweringRunTest, OtherBlasForms) {
  const char *text = R"TC(
def gemv(float(M, K) A, float(K) x) -> (y) {
  y(i) +=! A(i, k) * x(k)
}
def ger(float(M) x, float(N) y) -> (C) {
  C(i, j) = x(i) * y(j)
}
def colsum(float(M, N) A) -> (s) {
  s(j) +=! A(i, j)
}
def rowsum(float(M, N) A) -> (s) {
  s(i) +=! A(i, j)
}
def hadamard(float(M, N) A, float(M, N) B) -> (C) {
  C(i, j) = A(i, j) * B(i, j)
}
def transpose(float(M, N) A) -> (B) {
  B(j, i) = 3 * A(i, j)
}
def batch_gemv(float(B, M, K) A, float(B, K) x) -> (y) {
  y(b, i) +=! A(b, i, k) * x(b, k)
}
)TC";
  llvm::StringMap<int64_t> sizes{{"M", 7}, {"K", 9}, {"N", 5}, {"B", 3}};
  for (const char *entry : {"gemv", "ger", "colsum", "rowsum", "hadamard",
                            "transpose", "batch_gemv"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, sizes);
  }
}

TEST_F(LoweringRunTest, Softmax) {
  runAndCompare(readExample("softmax.tc"), "softmax", {{"N", 7}, {"D", 33}});
}

TEST_F(LoweringRunTest, Conv2d) {
  runAndCompare(
      readExample("conv2d.tc"), "conv2d",
      {{"N", 2}, {"C", 3}, {"H", 7}, {"W", 9}, {"M", 5}, {"KH", 3}, {"KW", 2}});
}

TEST_F(LoweringRunTest, SeveralLaunches) {
  // Dependences that cross work-groups (a scalar, a reversed or transposed
  // read) need a new launch; those within a group a barrier or nothing.
  const char *text = R"TC(
def normalize(float(N) A) -> (B) {
  s() +=! A(i)
  B(i) = A(i) / s()
}
def reverse(float(N) A) -> (B, C) {
  B(i) = 2 * A(i)
  C(i) = B(N - 1 - i) + B(i)
}
def transposed(float(M, N) A) -> (C, D) {
  C(i, j) = A(i, j) + 1
  D(j, i) = C(i, j) * C(i, j)
}
def bias(float(B, M, K) A, float(B, K, N) X) -> (C) {
  C(b, i, j) +=! A(b, i, k) * X(b, k, j)
  C(b, i, j) = C(b, i, j) + 1
}
def elementwise(float(L) A) -> (B, C) {
  T(i) = A(i) + 1
  B(i) = 2 * A(i)
  C(i) = T(i) + B(i)
  T(i) = A(i) * A(i)
  C(i) = C(i) - T(i)
}
def chain(float(B, M, N) A) -> (R) {
  T(b, i, j) = exp(A(b, i, j))
  U(b, i) max=! T(b, i, j)
  V(b, i, j) = T(b, i, j) - U(b, i)
  R(b, i) +=! V(b, i, j) * V(b, i, j)
  R(b, i) = R(b, i) + U(b, 0)
}
)TC";
  // L spans two tiles of 64 elements, the second one clipped.
  llvm::StringMap<int64_t> sizes{
      {"M", 7}, {"K", 9}, {"N", 5}, {"B", 3}, {"L", 100}};
  for (const char *entry :
       {"normalize", "reverse", "transposed", "bias", "elementwise", "chain"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, sizes);
    runAndCompare(text, entry, sizes, {/*matchBlas=*/false});
  }
}

TEST_F(LoweringRunTest, MaxPool) {
  runAndCompare(readExample("max_pool.tc"), "max_pool",
                {{"N", 2}, {"C", 3}, {"H", 7}, {"W", 9}});
}

TEST_F(LoweringRunTest, LayerNormAndMoments) {
  runAndCompare(readExample("layer_norm.tc"), "layer_norm",
                {{"N", 7}, {"D", 33}});
  runAndCompare(readExample("moments.tc"), "moments", {{"N", 7}, {"K", 33}});
}

TEST_F(LoweringRunTest, OtherExamples) {
  runAndCompare(readExample("conv1d.tc"), "conv1d", {{"N", 33}, {"K", 5}});
  runAndCompare(
      readExample("strided_conv.tc"), "strided_conv",
      {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 7}, {"M", 5}, {"KH", 3}, {"KW", 3}});
  runAndCompare(readExample("grouped_conv.tc"), "grouped_conv",
                {{"N", 1},
                 {"G", 2},
                 {"C", 3},
                 {"F", 2},
                 {"H", 5},
                 {"W", 6},
                 {"KH", 2},
                 {"KW", 3}});
  runAndCompare(readExample("kronecker.tc"), "kronecker",
                {{"M", 3}, {"N", 2}, {"P", 5}, {"Q", 7}});
  runAndCompare(readExample("transpose.tc"), "transpose",
                {{"M", 7}, {"N", 33}});
  runAndCompare(readExample("gather.tc"), "gather",
                {{"N", 3}, {"D", 7}, {"L", 9}});
}

TEST_F(LoweringRunTest, ColumnReductions) {
  // Reductions down the columns take runs of columns whose loop sinks below
  // the loop over the rows (polyhedral/lib/Mapping.cpp,
  // mapRunsAcrossInnerLoops) on vector cores; batch norm's rsqrt(var(c) + eps)
  // and `exp(w(k))` become temporaries (HoistToTemporaries.cpp). Runs of 5 and
  // 16 leave remainders at 37 columns, tiles of 7 runs that do not divide.
  const char *text = R"TC(
def colsum(float(N, K) A) -> (s) {
  s(k) +=! A(i, k)
}
def colmax(float(N, K) A) -> (s) {
  s(k) max=! A(i, k)
}
def weighted(float(N, K) A, float(K) w) -> (s, m) {
  s(k) +=! A(i, k) * exp(w(k))
  m(k) = s(k) / N
}
def colsoftmax(float(N, K) X) -> (Y) {
  mx(k) max=! X(i, k)
  e(i, k) = exp(X(i, k) - mx(k))
  sm(k) +=! e(i, k)
  Y(i, k) = e(i, k) / sm(k)
}
def planes(float(N, J, K) A) -> (s) {
  s(j, k) +=! A(i, j, k)
}
def accumulate(float(N, K) A, float(K) s0) -> (s) {
  s(k) = s0(k)
  s(k) += A(i, k)
}
)TC";
  const llvm::StringMap<int64_t> sizes = {{"N", 9}, {"J", 3}, {"K", 37}};
  for (int64_t run : {0, 5, 16, 64})
    for (int64_t tile : {0, 7}) {
      SCOPED_TRACE("vectorRun " + std::to_string(run) + ", tile " +
                   std::to_string(tile));
      LoweringOptions options;
      options.vectorRows = 4;
      options.vectorRun = run;
      if (tile)
        options.tileSizes = {tile};
      for (const char *entry : {"colsum", "colmax", "weighted", "colsoftmax",
                                "planes", "accumulate"}) {
        SCOPED_TRACE(entry);
        runAndCompare(text, entry, sizes, options);
      }
      runAndCompare(readExample("batch_norm.tc"), "batch_norm",
                    {{"N", 9}, {"C", 37}}, options);
    }
}

TEST_F(LoweringRunTest, LoopGroupTiles) {
  // The first LHS index of a loop statement goes on the groups in tiles of
  // about 64 points, the last tile clipped: 150 = 2 * 64 + 22 for a vector,
  // 70 = 3 * 21 + 7 rows of 3 for a matrix.
  const char *text = R"TC(
def act(float(M) A) -> (R) {
  R(i) = tanh(A(i)) + float(i)
}
def shifted(float(M) A) -> (O) {
  O(i) = A(i - 3) where i in 3:M
}
def rows(float(M, N) A) -> (R) {
  R(i, j) = A(i, N - 1 - j) * 2
}
)TC";
  for (const char *entry : {"act", "shifted"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, {{"M", 150}});
  }
  runAndCompare(text, "rows", {{"M", 70}, {"N", 3}});
}

TEST_F(LoweringRunTest, LocalTemporaries) {
  // Temporaries used within one launch, each group on its own slice, are
  // allocas in local memory: a row (rows), a plane of two group dimensions
  // (planes), a tile of the group dimension, shifted or not, with the last
  // tile clipped (tiles, shifted), a budget that fits some slices only.
  const char *text = R"TC(
def rows(float(N, D) X) -> (Y) {
  s(n) +=! X(n, d) * X(n, d)
  t(n, d) = X(n, d) / s(n)
  Y(n, d) = t(n, d) + t(n, 0) - t(n, D - 1)
}
def planes(float(N, C, H, W) X) -> (O) {
  T(n, c, h, w) = X(n, c, h, w) * 2 + 1
  O(n, c, h, w) = T(n, c, h, w) - T(n, c, 0, W - 1)
}
def tiles(float(N) A) -> (O) {
  T(i) = A(i) * 2
  U(i) = exp(T(i))
  O(i) = U(i) - T(i)
}
def shifted(float(N) A) -> (O) {
  T(i) = A(i - 1) * 2 where i in 1:N
  O(i) = T(i) + 1 where i in 1:N
}
)TC";
  runAndCompare(text, "rows", {{"N", 7}, {"D", 13}});
  runAndCompare(text, "planes", {{"N", 2}, {"C", 3}, {"H", 4}, {"W", 5}});
  for (int64_t groupWork : {0, 1, 5, 64}) {
    SCOPED_TRACE(groupWork);
    LoweringOptions options;
    options.groupWork = groupWork;
    runAndCompare(text, "tiles", {{"N", 150}}, options);
    runAndCompare(text, "shifted", {{"N", 150}}, options);
  }
  for (int64_t bytes : {0, 8, 32 * 1024}) {
    SCOPED_TRACE(bytes);
    LoweringOptions options;
    options.matchBlas = false;
    options.localMemoryBytes = bytes;
    runAndCompare(readExample("softmax.tc"), "softmax", {{"N", 7}, {"D", 33}},
                  options);
    runAndCompare(readExample("layer_norm.tc"), "layer_norm",
                  {{"N", 5}, {"D", 17}}, options);
    runAndCompare(text, "rows", {{"N", 3}, {"D", 2000}}, options);
  }
}

TEST_F(LoweringRunTest, Calls) {
  runAndCompare(readExample("mlp.tc"), "mlp",
                {{"B", 3}, {"M", 7}, {"N", 5}, {"P", 9}});
  const char *text = R"TC(
def square(float(M) A) -> (B) {
  T(i) = A(i) * A(i)
  B(i) = T(i) - 0.5
}
def norm(float(M) A) -> (n) {
  s() +=! A(i) * A(i)
  n(i) = A(i) / s()
}
def twice(float(M) A, float(K) X) -> (C, Y) {
  B = square(A)
  C = square(B)
  Z = norm(X)
  Y(k) = Z(k) + C(0)
}
)TC";
  runAndCompare(text, "twice", {{"M", 3}, {"K", 100}});
}

TEST_F(LoweringRunTest, LoopForms) {
  const char *text = R"TC(
def prod(float(M, N) A) -> (P) {
  P(i) *=! A(i, j)
}
def minimum(float(M, N) A) -> (P) {
  P(i) min=! A(i, j)
}
def accumulate(float(M, N) A, float(M) P0) -> (P) {
  P(i) = P0(i)
  P(i) max= A(i, j)
}
def leaky(float(M) A) -> (R) {
  R(i) = A(i) > 0 ? A(i) : 0.1 * A(i)
}
def act(float(M) A) -> (R) {
  R(i) = tanh(4 * A(i)) + sqrt(fabs(A(i))) + float(i) - exp(A(i)) * log(2 + A(i))
}
def shifted(float(N) A) -> (O) {
  O(i) = A(i - 1) where i in 1:N
}
def dot(float(N) A, float(N) B) -> (s) {
  s() +=! t * t where t = A(i) - B(i)
}
def rowmax(float(B, M, N) A) -> (R) {
  R(b, i, j) max=! A(b, i, k) * A(b, k, j) where k in 0:M
}
)TC";
  llvm::StringMap<int64_t> sizes{{"M", 7}, {"N", 9}, {"B", 3}};
  for (const char *entry : {"prod", "minimum", "accumulate", "leaky", "act",
                            "shifted", "dot", "rowmax"}) {
    SCOPED_TRACE(entry);
    runAndCompare(text, entry, sizes);
  }
}

} // namespace
