//===- GradTest.cpp - Derived backward defs against finite differences ----===//
//
// deriveBackward on defs in double precision: the backward def, run by the
// reference evaluator on random inputs and a random output adjoint, must
// match central differences of sum(d_O * O) through the forward def. Also
// the interface (names, parameter order) and the located errors.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/Grad.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

using Shapes = llvm::StringMap<llvm::SmallVector<int64_t, 4>>;

Tensor randomTensor(llvm::ArrayRef<int64_t> shape, std::mt19937 &rng,
                    ScalarType type = ScalarType::Double) {
  Tensor tensor(type, shape);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (double &value : tensor.data)
    value = real(rng);
  return tensor;
}

/// Runs def \p entry of \p text (the last def when empty) on \p args.
llvm::StringMap<Tensor> run(llvm::StringRef text,
                            const llvm::StringMap<Tensor> &args) {
  TcSource source(text);
  Program *program = source.load();
  EXPECT_NE(program, nullptr) << text.str();
  if (!program)
    return {};
  auto result =
      evaluate(*program, *findEntry(*program, ""), args, source.diags);
  EXPECT_TRUE(result.has_value()) << text.str();
  return result ? *result : llvm::StringMap<Tensor>();
}

/// sum(dOut * O) over the outputs of \p forward's last def.
double weightedLoss(TcSource &forward, const llvm::StringMap<Tensor> &args,
                    const llvm::StringMap<Tensor> &dOut) {
  auto outputs = evaluate(*forward.program, *findEntry(*forward.program, ""),
                          args, forward.diags);
  EXPECT_TRUE(outputs.has_value());
  double loss = 0;
  for (const auto &output : outputs ? *outputs : llvm::StringMap<Tensor>()) {
    const Tensor &weights = dOut.find(output.first())->second;
    for (size_t i = 0; i < output.second.data.size(); ++i)
      loss += weights.data[i] * output.second.data[i];
  }
  return loss;
}

/// Checks the derived backward of \p forward (inputs in \p shapes, all
/// double) against central differences.
void checkGradient(llvm::StringRef forward, const Shapes &shapes,
                   llvm::StringMap<Tensor> fixed = {}) {
  TcSource source(forward);
  llvm::Expected<BackwardDef> backward =
      deriveBackward(source.getBuffer(), "", GradOptions(), source.diags);
  ASSERT_TRUE(static_cast<bool>(backward))
      << llvm::toString(backward.takeError());
  std::mt19937 rng(42);
  llvm::StringMap<Tensor> args = fixed;
  for (const auto &entry : shapes)
    args[entry.first()] = randomTensor(entry.second, rng);
  llvm::StringMap<Tensor> outputs = run(forward, args);
  llvm::StringMap<Tensor> backwardArgs = args, dOut;
  for (const auto &output : outputs) {
    backwardArgs[output.first()] = output.second;
    dOut[output.first()] = randomTensor(output.second.shape, rng);
    backwardArgs["d_" + output.first().str()] = dOut[output.first()];
  }
  llvm::StringMap<Tensor> grads = run(backward->source, backwardArgs);
  TcSource loaded(forward);
  ASSERT_NE(loaded.load(), nullptr);
  const double eps = 1e-6;
  for (const std::string &name : backward->outputs) {
    std::string input = name.substr(2);
    ASSERT_TRUE(grads.count(name)) << backward->source;
    const Tensor &grad = grads[name];
    ASSERT_EQ(grad.data.size(), args[input].data.size()) << backward->source;
    for (size_t i = 0; i < grad.data.size(); ++i) {
      llvm::StringMap<Tensor> plus = args, minus = args;
      plus[input].data[i] += eps;
      minus[input].data[i] -= eps;
      double numeric = (weightedLoss(loaded, plus, dOut) -
                        weightedLoss(loaded, minus, dOut)) /
                       (2 * eps);
      EXPECT_NEAR(grad.data[i], numeric, 1e-6 + 1e-5 * std::abs(numeric))
          << name << "[" << i << "]\n"
          << backward->source;
    }
  }
}

/// Every def of examples/, in double precision, at small sizes (size
/// variables not listed are 2).
TEST(GradTest, EveryExample) {
  struct Case {
    const char *file;
    std::map<std::string, int64_t> sizes;
    llvm::StringMap<Tensor> fixed;
  };
  llvm::StringMap<Tensor> gatherIndex;
  gatherIndex["idx"] = Tensor(ScalarType::Int32, {3}, {2, 0, 2});
  const Case cases[] = {
      {"batch_matmul.tc", {{"M", 3}}, {}},
      {"batch_norm.tc", {{"N", 3}}, {}},
      {"conv1d.tc", {{"N", 5}, {"K", 2}}, {}},
      {"conv2d.tc", {{"H", 4}, {"W", 3}, {"N", 1}}, {}},
      {"gather.tc", {{"N", 3}, {"L", 3}}, gatherIndex},
      {"grouped_conv.tc", {{"H", 3}, {"W", 3}, {"C", 1}, {"N", 1}}, {}},
      {"kronecker.tc", {}, {}},
      {"layer_norm.tc", {{"D", 3}}, {}},
      {"matmul.tc", {{"K", 3}}, {}},
      {"max_pool.tc", {{"H", 4}, {"W", 4}}, {}},
      {"mlp.tc", {{"M", 3}}, {}},
      {"moments.tc", {{"K", 3}}, {}},
      {"softmax.tc", {{"D", 3}}, {}},
      {"strided_conv.tc", {{"H", 5}, {"W", 4}, {"N", 1}}, {}},
      {"transpose.tc", {{"N", 3}}, {}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.file);
    std::string text = test::readExample(c.file);
    ASSERT_FALSE(text.empty());
    for (size_t at; (at = text.find("float(")) != std::string::npos;)
      text.replace(at, 5, "double");
    TcSource source(text);
    ASSERT_NE(source.load(), nullptr);
    Shapes shapes;
    for (const Param &input : findEntry(*source.program, "")->getInputs()) {
      if (c.fixed.count(input.name.name))
        continue;
      auto &shape = shapes[input.name.name];
      for (const TensorType::Dim &dim : input.type->dims) {
        auto it = c.sizes.find(dim.sizeVar.str());
        shape.push_back(dim.sizeVar.empty()   ? dim.constant
                        : it != c.sizes.end() ? it->second
                                              : 2);
      }
    }
    checkGradient(text, shapes, c.fixed);
  }
}

TEST(GradTest, Matmul) {
  checkGradient("def matmul(double(M, K) A, double(K, N) B) -> (C) {\n"
                "  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
                {{"A", {3, 4}}, {"B", {4, 2}}});
}

TEST(GradTest, StridedDilatedConvolution) {
  checkGradient("def conv(double(N, H) I, double(KH) W1) -> (O) {\n"
                "  O(n, h) +=! I(n, 2 * h + 3 * kh) * W1(kh)\n}\n",
                {{"I", {2, 13}}, {"W1", {3}}});
}

TEST(GradTest, StridedConvolutionByPhases) {
  // Windows wider than their stride: the input gradient splits by phases
  // (GradConvPhases.cpp), whose taps past the window are zero weights and
  // whose last phases may cover fewer input points than the first.
  for (int stride : {2, 3})
    for (int window = stride + 1; window <= stride + 3; ++window)
      for (int extent : {window, window + stride - 1, 2 * window + 1}) {
        SCOPED_TRACE("stride " + std::to_string(stride) + ", window " +
                     std::to_string(window) + ", extent " +
                     std::to_string(extent));
        checkGradient("def conv(double(N, C, H) I, double(F, C, K) W1) -> "
                      "(O) {\n  O(n, f, h) +=! I(n, c, " +
                          std::to_string(stride) +
                          " * h + k) * W1(f, c, k)\n}\n",
                      {{"I", {1, 2, extent}}, {"W1", {2, 2, window}}});
      }
  // Strided along one dimension of two, and strides 2 and 3 at once.
  checkGradient("def conv(double(C, H, W) I, double(M, C, KH, KW) W1) -> (O) "
                "{\n  O(m, h, w) +=! I(c, 2 * h + kh, w + kw) * "
                "W1(m, c, kh, kw)\n}\n",
                {{"I", {2, 7, 5}}, {"W1", {2, 2, 3, 2}}});
  checkGradient("def conv(double(C, H, W) I, double(M, C, KH, KW) W1) -> (O) "
                "{\n  O(m, h, w) +=! I(c, 2 * h + kh, 3 * w + kw) * "
                "W1(m, c, kh, kw)\n}\n",
                {{"I", {2, 8, 11}}, {"W1", {2, 2, 3, 4}}});
}

TEST(GradTest, WindowAsWideAsItsStride) {
  // 3 * h + k with k in 0:3 splits I's index into h = x / 3, k = x % 3;
  // I's last element (index 10) is read by no window. 0:2 with stride 3
  // (a gap) and 0:4 (an overlap) keep the masked reduction.
  for (const char *window : {"0:3", "0:2", "0:4"})
    checkGradient(std::string("def pool(double(N, H) I, double(4) W1) -> "
                              "(O, P) {\n"
                              "  O(n, h) +=! I(n, 3 * h + k) * W1(k) where "
                              "h in 0:3, k in ") +
                      window +
                      "\n"
                      "  P(n, h) max=! I(n, 3 * h + k) where h in 0:2, k in " +
                      window + "\n}\n",
                  {{"I", {2, 11}}, {"W1", {4}}});
}

TEST(GradTest, StrideOneConvolutionsAsConvolutions) {
  // The transposed-convolution form (GradConv.cpp), with the factors in
  // either order, windows on one and on two dimensions.
  checkGradient(
      "def conv(double(N, C, H, W) I, double(M, C, 2, 3) W1, "
      "double(N, L) J, double(K) V) -> (O, P) {\n"
      "  O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, "
      "kw)\n"
      "  P(n, i) +=! V(k) * J(n, i + k)\n}\n",
      {{"I", {2, 2, 5, 5}}, {"W1", {2, 2, 2, 3}}, {"J", {2, 6}}, {"V", {3}}});
}

TEST(GradTest, WindowBoundedByAConstantOutputExtent) {
  // h in 0:3 bounds kh by min(2, H - 2), which isl gives as `H == 3 ? 1 : 2`
  // (H >= 3): printed in parentheses, widened to 0:2 in d_I's where clause
  // and masked there with the exact range. H = 3 drops kh = 1.
  for (int64_t h : {3, 5})
    checkGradient("def conv(double(N, C, H, W) I, double(M, C, 2, 3) W1) -> "
                  "(O) {\n"
                  "  O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, "
                  "kw) where h in 0:3, w in 0:2\n}\n",
                  {{"I", {2, 2, h, 4}}, {"W1", {2, 2, 2, 3}}});
}

TEST(GradTest, Softmax) {
  checkGradient("def softmax(double(N, D) X) -> (Y) {\n"
                "  mx(n) max=! X(n, d)\n"
                "  e(n, d) = exp(X(n, d) - mx(n))\n"
                "  s(n) +=! e(n, d)\n"
                "  Y(n, d) = e(n, d) / s(n)\n}\n",
                {{"X", {3, 5}}});
}

TEST(GradTest, OutputReadByALaterStatement) {
  checkGradient("def moments(double(N, K) I) -> (mean, var) {\n"
                "  mean(n) +=! I(n, k)\n"
                "  mean(n) = mean(n) / K\n"
                "  var(n) +=! (I(n, k) - mean(n)) * (I(n, k) - mean(n))\n"
                "  var(n) = var(n) / K\n}\n",
                {{"I", {2, 5}}});
}

TEST(GradTest, ScalarTensors) {
  checkGradient("def f(double(N) A, double a) -> (s, t) {\n"
                "  s +=! A(i) * a\n"
                "  t(i) = s * A(i) + a\n}\n",
                {{"A", {4}}, {"a", {}}});
}

TEST(GradTest, UpdatesWithoutInit) {
  // `+=` without `!` on a tensor adds to its earlier version, which gets
  // the whole adjoint; recomputing the update starts from a copy.
  checkGradient("def upd(double(N, K) A, double(N) B) -> (O, P) {\n"
                "  O(i) = B(i) * B(i)\n"
                "  O(i) += A(i, k) * B(i)\n"
                "  O(i) = O(i) * O(i)\n"
                "  P(i) = A(i, 0) + B(i)\n}\n",
                {{"A", {3, 2}}, {"B", {3}}});
}

TEST(GradTest, LayerNormWithBuiltins) {
  checkGradient(
      "def ln(double(N, D) X, double(D) g) -> (Y) {\n"
      "  mean(n) +=! X(n, d) / D\n"
      "  var(n) +=! (X(n, d) - mean(n)) * (X(n, d) - mean(n)) / D\n"
      "  Y(n, d) = g(d) * (X(n, d) - mean(n)) * rsqrt(var(n) + 1e-5)"
      " + tanh(X(n, d)) * fmax(X(n, d), 0.1) + log(2.0 + sqrt(X(n, d) * "
      "X(n, d)))\n}\n",
      {{"X", {2, 4}}, {"g", {4}}});
}

TEST(GradTest, MaxPoolAndTransposeAndMasks) {
  checkGradient("def f(double(N, H) I) -> (O, T) {\n"
                "  O(n, h) max=! I(n, 2 * h + kh) where kh in 0:2\n"
                "  T(h, n) = I(n, h) > 0 ? -I(n, h) / 2 : min(I(n, h), 0.5)\n"
                "}\n",
                {{"I", {3, 6}}});
}

TEST(GradTest, GatherIsAScatterAdd) {
  Tensor idx(ScalarType::Int32, {2, 3}, {0, 2, 2, 1, 2, 0});
  checkGradient("def lut(double(R, D) LUT, int32(B, L) I) -> (O) {\n"
                "  O(b, d) +=! LUT(I(b, l), d)\n}\n",
                {{"LUT", {3, 2}}}, {{"I", idx}});
}

TEST(GradTest, CallsUseTheCalleesBackward) {
  checkGradient(
      "def fcrelu(double(B, M) I, double(N, M) W, double(N) bias) -> (O) {\n"
      "  O(b, n) +=! I(b, m) * W(n, m)\n"
      "  O(b, n) = fmax(O(b, n) + bias(n), 0)\n}\n"
      "def mlp(double(B, M) I, double(N, M) W1, double(N) B1, double(P, N) "
      "W2, double(P) B2) -> (O2) {\n"
      "  O1 = fcrelu(I, W1, B1)\n  O2 = fcrelu(O1, W2, B2)\n}\n",
      {{"I", {2, 3}},
       {"W1", {4, 3}},
       {"B1", {4}},
       {"W2", {2, 4}},
       {"B2", {2}}});
}

TEST(GradTest, MaxSplitsTheAdjointAmongTies) {
  // torch.amax's rule: each of the k elements equal to the maximum gets
  // d_O / k.
  TcSource source("def rowmax(double(M, N) A) -> (O) {\n"
                  "  O(m) max=! A(m, n)\n}\n");
  llvm::Expected<BackwardDef> backward =
      deriveBackward(source.getBuffer(), "", GradOptions(), source.diags);
  ASSERT_TRUE(static_cast<bool>(backward))
      << llvm::toString(backward.takeError());
  llvm::StringMap<Tensor> args;
  args["A"] = Tensor(ScalarType::Double, {2, 3}, {1, 3, 3, 2, 2, 2});
  args["O"] = Tensor(ScalarType::Double, {2}, {3, 2});
  args["d_O"] = Tensor(ScalarType::Double, {2}, {1.0, 6.0});
  llvm::StringMap<Tensor> grads = run(backward->source, args);
  ASSERT_TRUE(grads.count("d_A"));
  EXPECT_EQ(grads["d_A"].data, (std::vector<double>{0, 0.5, 0.5, 2, 2, 2}));
}

TEST(GradTest, InterfaceNamesAndOrder) {
  TcSource source("def f(float(N) A, int32(N) J, float(N) B) -> (X, Y) {\n"
                  "  X(i) = A(i) * B(i)\n  Y(i) = A(i) + 1.0\n}\n");
  GradOptions options;
  options.wrt = {"B"};
  llvm::Expected<BackwardDef> backward =
      deriveBackward(source.getBuffer(), "f", options, source.diags);
  ASSERT_TRUE(static_cast<bool>(backward))
      << llvm::toString(backward.takeError());
  EXPECT_EQ(backward->name, "f_grad");
  EXPECT_EQ(backward->inputs,
            (std::vector<std::string>{"A", "J", "B", "X", "Y", "d_X", "d_Y"}));
  EXPECT_EQ(backward->outputs, std::vector<std::string>{"d_B"});
  EXPECT_NE(backward->source.find("d_B(i) = d_X(i) * A(i)"), std::string::npos)
      << backward->source;
}

TEST(GradTest, LocatedErrors) {
  TcSource source("def f(float(N) A, int32(N) J) -> (X) {\n"
                  "  X(i) = lgamma(A(i))\n}\n");
  GradOptions options;
  llvm::Expected<BackwardDef> failed =
      deriveBackward(source.getBuffer(), "", options, source.diags);
  ASSERT_FALSE(static_cast<bool>(failed));
  llvm::consumeError(failed.takeError());
  ASSERT_FALSE(source.messages.empty());
  EXPECT_EQ(source.messages.back().substr(0, 5), "2:10:");
  // A fresh engine: the frontend refuses to load into one with errors.
  TcSource second(source.getBuffer());
  options.wrt = {"J"};
  llvm::Expected<BackwardDef> integer =
      deriveBackward(second.getBuffer(), "", options, second.diags);
  ASSERT_FALSE(static_cast<bool>(integer));
  llvm::consumeError(integer.takeError());
  ASSERT_FALSE(second.messages.empty());
  EXPECT_EQ(second.messages.back(),
            "1:28: input 'J' has type int32: integer tensors have no gradient");
}

} // namespace
