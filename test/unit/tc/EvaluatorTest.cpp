//===- EvaluatorTest.cpp - The reference evaluator on hand-computed cases -===//
//
// Every example of examples/ is run on small inputs whose results were
// computed by hand; further cases pin down the `!`/no-`!` semantics,
// shifted outputs, temporaries, calls and the errors.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "comprehend/tc/Evaluator.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

std::string readExample(llvm::StringRef name) {
  std::string path = std::string(COMPREHEND_EXAMPLES_DIR) + "/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "";
  return (*buffer)->getBuffer().str();
}

Tensor makeTensor(llvm::ArrayRef<int64_t> shape, std::vector<double> data,
                  ScalarType type = ScalarType::Float) {
  return Tensor(type, shape, std::move(data));
}

/// Loads \p text, evaluates its def \p entry (default: the last one) and
/// returns its outputs; fails the test on diagnostics.
class EvalFixture {
public:
  explicit EvalFixture(llvm::StringRef text) : source(text) {
    EXPECT_NE(source.load(), nullptr) << joinedMessages();
  }

  std::optional<llvm::StringMap<Tensor>>
  run(const llvm::StringMap<Tensor> &args, llvm::StringRef entry = "") {
    if (!source.program)
      return std::nullopt;
    const Def *def = findEntry(*source.program, entry);
    if (!def)
      return std::nullopt;
    return evaluate(*source.program, *def, args, source.diags);
  }

  std::string joinedMessages() const {
    std::string text;
    for (const std::string &message : source.messages)
      text += message + "\n";
    return text;
  }

  TcSource source;
};

void expectTensor(const Tensor &actual, llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<double> data, double tolerance = 0) {
  EXPECT_EQ(std::vector<int64_t>(actual.shape.begin(), actual.shape.end()),
            std::vector<int64_t>(shape.begin(), shape.end()));
  ASSERT_EQ(actual.data.size(), data.size());
  for (size_t i = 0; i < data.size(); ++i)
    EXPECT_NEAR(actual.data[i], data[i], tolerance) << "element " << i;
}

TEST(TcEvaluatorTest, Matmul) {
  EvalFixture fixture(readExample("matmul.tc"));
  auto out = fixture.run({{"A", makeTensor({2, 3}, {1, 2, 3, 4, 5, 6})},
                          {"B", makeTensor({3, 2}, {7, 8, 9, 10, 11, 12})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["C"], {2, 2}, {58, 64, 139, 154});
}

TEST(TcEvaluatorTest, BatchMatmul) {
  EvalFixture fixture(readExample("batch_matmul.tc"));
  auto out = fixture.run({{"X", makeTensor({2, 1, 2}, {1, 2, 5, 6})},
                          {"Y", makeTensor({2, 2, 1}, {3, 4, 7, 8})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["Z"], {2, 1, 1}, {11, 83});
}

TEST(TcEvaluatorTest, Conv1d) {
  EvalFixture fixture(readExample("conv1d.tc"));
  auto out = fixture.run({{"I", makeTensor({5}, {1, 2, 3, 4, 5})},
                          {"W", makeTensor({3}, {1, 0, -1})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {3}, {-2, -2, -2});
}

TEST(TcEvaluatorTest, Conv2dWithBias) {
  EvalFixture fixture(readExample("conv2d.tc"));
  auto out =
      fixture.run({{"I", makeTensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                   {"W1", makeTensor({1, 1, 2, 2}, {1, 0, 0, 1})},
                   {"B", makeTensor({1}, {10})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // O(h, w) = I(h, w) + I(h + 1, w + 1) + 10.
  expectTensor((*out)["O"], {1, 1, 2, 2}, {16, 18, 22, 24});
}

TEST(TcEvaluatorTest, StridedConv) {
  EvalFixture fixture(readExample("strided_conv.tc"));
  std::vector<double> image(25);
  for (int i = 0; i < 25; ++i)
    image[i] = i; // I(r, c) = 5r + c
  auto out = fixture.run({{"I", makeTensor({1, 1, 5, 5}, image)},
                          {"W1", makeTensor({1, 1, 1, 1}, {2})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // floor((5 - 1) / 2) + 1 = 3 outputs per dimension; O = 2 * I(2h, 2w).
  expectTensor((*out)["O"], {1, 1, 3, 3}, {0, 4, 8, 20, 24, 28, 40, 44, 48});
}

TEST(TcEvaluatorTest, GroupedConv) {
  EvalFixture fixture(readExample("grouped_conv.tc"));
  auto out =
      fixture.run({{"I", makeTensor({1, 2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                   {"W1", makeTensor({2, 1, 1, 1, 1}, {2, 3})},
                   {"B", makeTensor({2, 1}, {1, -1})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {1, 2, 1, 2, 2}, {3, 5, 7, 9, 14, 17, 20, 23});
}

TEST(TcEvaluatorTest, MaxPool) {
  EvalFixture fixture(readExample("max_pool.tc"));
  auto out =
      fixture.run({{"I", makeTensor({1, 1, 4, 4}, {1, 5, 2, 0, 3, 4, 8, 1, //
                                                   0, 0, 1, 1, 9, 2, 1, 7})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {1, 1, 2, 2}, {5, 8, 9, 7});
}

TEST(TcEvaluatorTest, Softmax) {
  EvalFixture fixture(readExample("softmax.tc"));
  auto out = fixture.run({{"X", makeTensor({2, 2}, {0, std::log(3.0), 5, 5})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["Y"], {2, 2}, {0.25, 0.75, 0.5, 0.5}, 1e-7);
  // Temporaries are not outputs.
  EXPECT_EQ(out->size(), 1u);
}

TEST(TcEvaluatorTest, LayerNorm) {
  EvalFixture fixture(readExample("layer_norm.tc"));
  auto out = fixture.run({{"X", makeTensor({1, 2}, {1, 3})},
                          {"gamma", makeTensor({2}, {1, 2})},
                          {"beta", makeTensor({2}, {0, 1})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // mean 2, variance 1: Y = gamma * (X - 2) / sqrt(1 + 1e-5) + beta.
  double r = 1 / std::sqrt(1 + 1e-5);
  expectTensor((*out)["Y"], {1, 2}, {-r, 2 * r + 1}, 1e-6);
}

TEST(TcEvaluatorTest, Moments) {
  EvalFixture fixture(readExample("moments.tc"));
  auto out = fixture.run({{"I", makeTensor({2, 3}, {1, 2, 3, 4, 4, 4})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["mean"], {2}, {2, 4});
  expectTensor((*out)["var"], {2}, {2.0 / 3.0, 0}, 1e-7);
}

TEST(TcEvaluatorTest, Kronecker) {
  EvalFixture fixture(readExample("kronecker.tc"));
  auto out = fixture.run({{"A", makeTensor({1, 2}, {1, 2})},
                          {"B", makeTensor({2, 2}, {0, 1, 1, 0})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // Row-major, this is kron(A, B) = [[0, 1, 0, 2], [1, 0, 2, 0]].
  expectTensor((*out)["C"], {1, 2, 2, 2}, {0, 1, 0, 2, 1, 0, 2, 0});
}

TEST(TcEvaluatorTest, MlpThroughCalls) {
  EvalFixture fixture(readExample("mlp.tc"));
  auto out = fixture.run({{"I", makeTensor({1, 2}, {1, -1})},
                          {"W1", makeTensor({2, 2}, {1, 0, 0, 1})},
                          {"B1", makeTensor({2}, {0, 0})},
                          {"W2", makeTensor({1, 2}, {2, 3})},
                          {"B2", makeTensor({1}, {-0.5})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // Layer 1: relu([1, -1]) = [1, 0]; layer 2: 2 * 1 + 3 * 0 - 0.5.
  expectTensor((*out)["O2"], {1, 1}, {1.5});
  // The callee alone.
  auto layer = fixture.run({{"I", makeTensor({1, 2}, {1, -1})},
                            {"W", makeTensor({2, 2}, {1, 1, 1, -1})},
                            {"bias", makeTensor({2}, {0.5, 0})}},
                           "fcrelu");
  ASSERT_TRUE(layer) << fixture.joinedMessages();
  expectTensor((*layer)["O"], {1, 2}, {0.5, 2});
}

TEST(TcEvaluatorTest, Gather) {
  EvalFixture fixture(readExample("gather.tc"));
  auto out = fixture.run({{"table", makeTensor({3, 2}, {1, 2, 3, 4, 5, 6})},
                          {"idx", makeTensor({2}, {2, 0}, ScalarType::Int32)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {2, 2}, {5, 6, 1, 2});
}

TEST(TcEvaluatorTest, GatherOutOfBoundsIsAnError) {
  EvalFixture fixture(readExample("gather.tc"));
  auto out = fixture.run({{"table", makeTensor({3, 2}, {1, 2, 3, 4, 5, 6})},
                          {"idx", makeTensor({2}, {1, 3}, ScalarType::Int32)}});
  EXPECT_FALSE(out);
  ASSERT_FALSE(fixture.source.messages.empty());
  EXPECT_EQ(fixture.source.messages.back(),
            "4:13: read of 'table' at (3, 0) is out of bounds");
}

TEST(TcEvaluatorTest, Transpose) {
  EvalFixture fixture(readExample("transpose.tc"));
  auto out = fixture.run({{"A", makeTensor({2, 3}, {1, 2, 3, 4, 5, 6})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["B"], {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(TcEvaluatorTest, ReductionWithoutBangAccumulatesIntoInitialOutput) {
  EvalFixture fixture("def f(float(N, K) A) -> (O) {\n  O(i) += A(i, k)\n}\n");
  auto out = fixture.run({{"A", makeTensor({2, 2}, {1, 2, 3, 4})},
                          {"O", makeTensor({2}, {100, 200})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {2}, {103, 207});
  // Without an initial value the output starts from zero.
  auto fresh = fixture.run({{"A", makeTensor({2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(fresh);
  expectTensor((*fresh)["O"], {2}, {3, 7});
}

TEST(TcEvaluatorTest, BangReinitialisesAnAlreadyDefinedTensor) {
  // TC keeps the first definition here (notes, section 7); the spec and we
  // initialise with the identity at every `!`.
  EvalFixture fixture("def f(float(N) A) -> (O) {\n"
                      "  O(i) = A(i) + 100\n"
                      "  O(i) max=! A(i) * 2\n"
                      "}\n");
  auto out = fixture.run({{"A", makeTensor({2}, {-1, 3})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {2}, {-2, 6});
}

TEST(TcEvaluatorTest, BangAssignsTheIdentityToEveryElementOfTheTensor) {
  // The spec: `!` first assigns the identity to all elements of the tensor,
  // also those the statement's ranges do not reach (O has N = 4 elements,
  // the product runs over i in [0, 2)).
  EvalFixture fixture("def f(float(N) A, float(M) B) -> (O) {\n"
                      "  O(i) *=! B(k) where i in 0:2\n"
                      "  O(i) += A(i)\n"
                      "}\n");
  auto out = fixture.run({{"A", makeTensor({4}, {1, 2, 3, 4})},
                          {"B", makeTensor({2}, {5, 6})},
                          {"O", makeTensor({4}, {100, 100, 100, 100})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {4}, {31, 32, 4, 5});
}

TEST(TcEvaluatorTest, ReductionIdentities) {
  EvalFixture fixture("def f(float(N, K) A, int32(N, K) B) -> (P, lo, hi) {\n"
                      "  P(i) *=! A(i, k)\n"
                      "  lo(i) min=! B(i, k)\n"
                      "  hi(i) max=! A(i, k)\n"
                      "}\n");
  auto out = fixture.run(
      {{"A", makeTensor({2, 3}, {1, 2, 3, -1, -2, -3})},
       {"B", makeTensor({2, 3}, {5, -7, 2, 0, 9, 1}, ScalarType::Int32)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["P"], {2}, {6, -6});
  expectTensor((*out)["lo"], {2}, {-7, 0});
  expectTensor((*out)["hi"], {2}, {3, -1});
}

TEST(TcEvaluatorTest, ShiftedOutputIsStoredFromItsLowerBound) {
  // O(i) = I(i - 1) infers i in [1, N + 1): element k of O is O(1 + k).
  EvalFixture fixture("def shift(float(N) I) -> (O) {\n"
                      "  O(i) = I(i - 1)\n"
                      "  P(i) = O(i) * 10\n"
                      "}\n");
  auto out = fixture.run({{"I", makeTensor({3}, {4, 5, 6})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {3}, {4, 5, 6});
}

TEST(TcEvaluatorTest, IntegerSemantics) {
  EvalFixture fixture("def f(int32(N) A) -> (Q, R, C) {\n"
                      "  Q(i) = A(i) / 2\n"
                      "  R(i) = A(i) % 3\n"
                      "  C(i) = int8(A(i) * 100)\n"
                      "}\n");
  auto out =
      fixture.run({{"A", makeTensor({3}, {-3, 7, 2}, ScalarType::Int32)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // Floor division and modulo, as range inference assumes.
  expectTensor((*out)["Q"], {3}, {-2, 3, 1});
  expectTensor((*out)["R"], {3}, {0, 1, 2});
  // int8 wraps: 700 = 2 * 256 + 188 -> -68; -300 -> -44.
  expectTensor((*out)["C"], {3}, {-44, -68, -56});
}

TEST(TcEvaluatorTest, WhereLetAndTernary) {
  EvalFixture fixture("def f(float(N) A) -> (O) {\n"
                      "  O(i) = i > 0 ? A(i - 1) + x : x where x = A(i) * 2, "
                      "i in 0:N\n"
                      "}\n");
  auto out = fixture.run({{"A", makeTensor({3}, {1, 2, 3})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {3}, {2, 5, 8});
}

TEST(TcEvaluatorTest, FloatStoresRoundAccumulationIsDouble) {
  EvalFixture fixture("def f(float(K) A) -> (S) {\n  S +=! A(k)\n}\n");
  auto out = fixture.run({{"A", makeTensor({3}, {16777216, 1, 1})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  // Double accumulation gives 16777218 exactly (float step by step would
  // stay at 16777216).
  expectTensor((*out)["S"], {}, {16777218});
}

TEST(TcEvaluatorTest, InputErrors) {
  EvalFixture fixture(readExample("matmul.tc"));
  EXPECT_FALSE(
      fixture.run({{"A", makeTensor({2, 3}, std::vector<double>(6))}}));
  EXPECT_FALSE(
      fixture.run({{"A", makeTensor({2, 3}, std::vector<double>(6))},
                   {"B", makeTensor({2, 2}, std::vector<double>(4))}}));
  EXPECT_FALSE(
      fixture.run({{"A", makeTensor({6}, std::vector<double>(6))},
                   {"B", makeTensor({3, 2}, std::vector<double>(6))}}));
  EXPECT_EQ(fixture.source.messages,
            (std::vector<std::string>{
                "2:39: no value given for input 'B' of 'matmul'",
                "2:33: mismatched sizes for size variable 'K': 3 elsewhere "
                "but 2 for input 'B'",
                "2:24: input 'A' expects 2 dimensions but the value has 1"}));
}

TEST(TcEvaluatorTest, ConvertTo) {
  EXPECT_EQ(convertTo(1.5, ScalarType::Int32), 1);
  EXPECT_EQ(convertTo(-1.5, ScalarType::Int32), -1);
  EXPECT_EQ(convertTo(300, ScalarType::UInt8), 44);
  EXPECT_EQ(convertTo(-1, ScalarType::UInt16), 65535);
  EXPECT_EQ(convertTo(128, ScalarType::Int8), -128);
  EXPECT_EQ(convertTo(0.5, ScalarType::Bool), 1);
  EXPECT_EQ(convertTo(0.1, ScalarType::Float), static_cast<double>(0.1f));
  EXPECT_EQ(convertTo(0.1, ScalarType::Double), 0.1);
  EXPECT_EQ(convertTo(2049, ScalarType::Half), 2048);
}

//===----------------------------------------------------------------------===//
// Batches, row walks and loop reordering (EvalExpr.h): sizes beyond one
// batch of 256 points and rows of at least 32, checked against plain loops.
//===----------------------------------------------------------------------===//

std::vector<double> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> values(count);
  for (double &v : values)
    v = dist(rng);
  return values;
}

TEST(TcEvaluatorTest, ContractionMatchesScalarLoopsBitForBit) {
  // n runs innermost here (contiguous reads of B and of C's accumulators);
  // every accumulator must still sum over k in order, in double precision.
  EvalFixture fixture("def f(double(M, K) A, double(K, N) B) -> (C) {\n"
                      "  C(m, n) +=! A(m, k) * B(k, n)\n"
                      "}\n");
  const int64_t m = 3, k = 70, n = 300;
  std::vector<double> a = randomValues(m * k, 1), b = randomValues(k * n, 2);
  auto out = fixture.run({{"A", makeTensor({m, k}, a, ScalarType::Double)},
                          {"B", makeTensor({k, n}, b, ScalarType::Double)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  const Tensor &c = (*out)["C"];
  ASSERT_EQ(c.data.size(), static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < k; ++r)
        sum += a[i * k + r] * b[r * n + j];
      ASSERT_EQ(c.data[i * n + j], sum) << "C(" << i << ", " << j << ")";
    }
}

TEST(TcEvaluatorTest, ReductionsOverLongAndShortRowsMatchScalarLoops) {
  // A row-major max over the long d, a sum over the short n (batches that
  // span rows), and a product of a strided read.
  EvalFixture fixture("def f(double(N, D) X) -> (mx, s, p) {\n"
                      "  mx(n) max=! X(n, d)\n"
                      "  s(d) +=! X(n, d)\n"
                      "  p(n) *=! 1 + X(n, d) / 8\n"
                      "}\n");
  const int64_t rows = 5, cols = 333;
  std::vector<double> x = randomValues(rows * cols, 3);
  auto out =
      fixture.run({{"X", makeTensor({rows, cols}, x, ScalarType::Double)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  for (int64_t i = 0; i < rows; ++i) {
    double max = -INFINITY, product = 1;
    for (int64_t j = 0; j < cols; ++j) {
      max = std::max(max, x[i * cols + j]);
      product *= 1 + x[i * cols + j] / 8;
    }
    EXPECT_EQ((*out)["mx"].data[i], max);
    EXPECT_EQ((*out)["p"].data[i], product);
  }
  for (int64_t j = 0; j < cols; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < rows; ++i)
      sum += x[i * cols + j];
    EXPECT_EQ((*out)["s"].data[j], sum);
  }
}

TEST(TcEvaluatorTest, ShiftedOutputOverSeveralBatches) {
  EvalFixture fixture("def shift(float(N) I) -> (O) {\n"
                      "  O(i) = I(i - 1)\n"
                      "}\n");
  std::vector<double> input(600);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<double>(i);
  auto out = fixture.run({{"I", makeTensor({600}, input)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  expectTensor((*out)["O"], {600}, input);
}

TEST(TcEvaluatorTest, MixedBatchesEvaluateOnlyTheSelectedBranch) {
  // Within one batch some points take each branch: the untaken read
  // A(i - 1) at i = 0 and the untaken 10 / B(i) at B(i) = 0 are not errors.
  EvalFixture fixture("def f(float(N) A, int32(N) B) -> (O, P) {\n"
                      "  O(i) = i > 0 ? A(i - 1) : -1 where i in 0:N\n"
                      "  P(i) = B(i) != 0 && 10 / B(i) > 2 || B(i) == 0 && "
                      "i > 5 ? 1 : 0\n"
                      "}\n");
  const int64_t n = 300;
  std::vector<double> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<double>(i) / 2;
    b[i] = static_cast<double>(i % 5); // 0 1 2 3 4 0 1 ...
  }
  auto out = fixture.run({{"A", makeTensor({n}, a)},
                          {"B", makeTensor({n}, b, ScalarType::Int32)}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ((*out)["O"].data[i], i > 0 ? a[i - 1] : -1) << i;
    double expected =
        (b[i] != 0 && 10 / static_cast<int>(b[i]) > 2) || (b[i] == 0 && i > 5);
    EXPECT_EQ((*out)["P"].data[i], expected) << i;
  }
}

TEST(TcEvaluatorTest, TheFirstErrorInIterationOrderIsReported) {
  // Both reads are contiguous in i, so the walk runs i innermost; the
  // error reported is still the scalar loop's first (i outer, j inner):
  // (i, j) = (0, 1) before (5, 0).
  EvalFixture fixture("def f(float(M, N) B, int32(M, N) idx) -> (O) {\n"
                      "  O(i, j) = B(j, i) + B(idx(j, i), i)\n"
                      "}\n");
  const int64_t m = 2, n = 40;
  std::vector<double> idx(m * n, 0);
  idx[0 * n + 5] = 77; // idx(0, 5): reached at (i, j) = (5, 0)
  idx[1 * n + 0] = 99; // idx(1, 0): reached at (i, j) = (0, 1)
  auto out = fixture.run({{"B", makeTensor({m, n}, randomValues(m * n, 4))},
                          {"idx", makeTensor({m, n}, idx, ScalarType::Int32)}});
  EXPECT_FALSE(out);
  ASSERT_FALSE(fixture.source.messages.empty());
  EXPECT_EQ(fixture.source.messages.back(),
            "2:23: read of 'B' at (99, 0) is out of bounds");
}

TEST(TcEvaluatorTest, IntegerDivisionByZeroIsReportedAtTheFirstPoint) {
  EvalFixture fixture("def f(int32(N) B) -> (O) {\n"
                      "  O(i) = 100 / B(i) + 100 % B(i)\n"
                      "}\n");
  std::vector<double> b(300, 1);
  b[270] = 0;
  auto out = fixture.run({{"B", makeTensor({300}, b, ScalarType::Int32)}});
  EXPECT_FALSE(out);
  EXPECT_EQ(fixture.source.messages,
            std::vector<std::string>{"2:10: integer division by zero"});
}

TEST(TcEvaluatorTest, IndexArithmeticThatWrapsIsNotTakenForAffine) {
  // uint8(i + 250) wraps to 0 at i = 6: the read is then A(-250), out of
  // bounds, although the index would be i without the wrap.
  EvalFixture fixture("def f(float(N) A) -> (O) {\n"
                      "  O(i) = A(uint8(i + 250) - 250) where i in 0:N\n"
                      "}\n");
  auto out = fixture.run({{"A", makeTensor({10}, randomValues(10, 5))}});
  EXPECT_FALSE(out);
  EXPECT_EQ(
      fixture.source.messages,
      std::vector<std::string>{"2:10: read of 'A' at (-250) is out of bounds"});
}

TEST(TcEvaluatorTest, IntegerConversionsOfNegativeZeroGivePositiveZero) {
  EvalFixture fixture("def f(float(N) A) -> (O, P) {\n"
                      "  O(i) = int32(A(i))\n"
                      "  P(i) = int32(A(i)) * -1.0\n"
                      "}\n");
  auto out = fixture.run({{"A", makeTensor({2}, {-0.25, 0.5})}});
  ASSERT_TRUE(out) << fixture.joinedMessages();
  for (double v : (*out)["O"].data)
    EXPECT_FALSE(std::signbit(v));
  // 0 * -1.0 is -0 in IEEE arithmetic: the float product keeps it.
  for (double v : (*out)["P"].data)
    EXPECT_TRUE(std::signbit(v));
}

} // namespace
