//===- KindsBench.cpp - Kernels users write beyond the classic ones -------===//
//
// The kinds of kernel of issue 33, each written the usual way in TC
// (bench/kernels/*.tc) at shapes users run: an embedding bag, a grouped
// convolution, a three-factor Kronecker contraction, the mean and the
// variance of long rows, a group norm, WaveNet's dilated 1-D convolution
// and a three-layer perceptron as one def. Their peer is the natural
// PyTorch call (bench/pytorch_bench.py runs the same cases, --list-cases);
// the references here accumulate in double on the host.
//
//   bench-kinds --benchmark_out=kinds.json --benchmark_out_format=json
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

#include <algorithm>
#include <cmath>

using namespace comprehend;
using namespace comprehend::bench;

namespace {

/// The sizes of a case as name-value pairs, in `comprehend tune` order.
using Sizes = std::vector<std::pair<std::string, int64_t>>;

TcCase makeCase(llvm::StringRef file, llvm::StringRef entry, Sizes sizes,
                std::string output) {
  return TcCase(entry.str(), getBenchKernelPath(file), entry.str(),
                std::move(sizes), {std::move(output)});
}

//===----------------------------------------------------------------------===//
// embedding_bag: O(b, d) = sum_l table(idx(b, l), d)
//===----------------------------------------------------------------------===//

void registerEmbeddingBag(int64_t v, int64_t d, int64_t b, int64_t l) {
  TcCase c = makeCase("embedding_bag.tc", "embedding_bag",
                      {{"V", v}, {"D", d}, {"B", b}, {"L", l}}, "O");
  // The gathered rows, the indices and the output.
  c.bytes = (double(b * l * d) + double(b * l) + double(b * d)) * 4;
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &table = data.inputs["table"] =
        makeRandom(v * d, 40);
    const std::vector<int32_t> &idx = data.indexInputs["idx"] =
        makeRandomIndices(b * l, int32_t(v), 41);
    data.expected.resize(b * d);
    for (int64_t bag = 0; bag < b; ++bag)
      for (int64_t col = 0; col < d; ++col) {
        double sum = 0;
        for (int64_t j = 0; j < l; ++j)
          sum += table[idx[bag * l + j] * d + col];
        data.expected[bag * d + col] = float(sum);
      }
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// grouped_conv: G groups of C input and F output channels, a 3 x 3 filter
//===----------------------------------------------------------------------===//

void registerGroupedConv(int64_t n, int64_t g, int64_t ch, int64_t f, int64_t h,
                         int64_t w) {
  constexpr int64_t k = 3;
  int64_t oh = h - k + 1, ow = w - k + 1;
  TcCase c = makeCase("grouped_conv.tc", "grouped_conv",
                      {{"N", n},
                       {"G", g},
                       {"C", ch},
                       {"F", f},
                       {"H", h},
                       {"W", w},
                       {"KH", k},
                       {"KW", k}},
                      "O");
  c.flops = 2.0 * n * g * f * oh * ow * ch * k * k;
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] =
        makeRandom(n * g * ch * h * w, 42);
    const std::vector<float> &weights = data.inputs["W1"] =
        makeRandom(g * f * ch * k * k, 43);
    const std::vector<float> &bias = data.inputs["B"] = makeRandom(g * f, 44);
    data.expected.resize(n * g * f * oh * ow);
    parallelFor(n * g * f, [&](int64_t begin, int64_t end) {
      for (int64_t ngf = begin; ngf < end; ++ngf) {
        int64_t ng = ngf / f, gf = ngf % (g * f);
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x) {
            double sum = bias[gf];
            for (int64_t cc = 0; cc < ch; ++cc)
              for (int64_t ky = 0; ky < k; ++ky)
                for (int64_t kx = 0; kx < k; ++kx)
                  sum +=
                      double(in[((ng * ch + cc) * h + y + ky) * w + x + kx]) *
                      weights[((gf * ch + cc) * k + ky) * k + kx];
            data.expected[(ngf * oh + y) * ow + x] = float(sum);
          }
      }
    });
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// kronecker3: Y(m, :) = X(m, :) (W0 x W1 x W2)^T, square factors
//===----------------------------------------------------------------------===//

/// out(a, i, b) = sum_j in(a, j, b) * w(i, j) for in(A, J, B), w(I, J): the
/// contraction of one middle dimension.
std::vector<double> contractMiddle(const std::vector<double> &in,
                                   const std::vector<float> &w, int64_t a,
                                   int64_t i, int64_t j, int64_t b) {
  std::vector<double> out(a * i * b);
  parallelFor(a, [&](int64_t begin, int64_t end) {
    for (int64_t x = begin; x < end; ++x)
      for (int64_t y = 0; y < i; ++y)
        for (int64_t z = 0; z < j; ++z)
          for (int64_t t = 0; t < b; ++t)
            out[(x * i + y) * b + t] += in[(x * j + z) * b + t] * w[y * j + z];
  });
  return out;
}

void registerKronecker3(int64_t m, int64_t n0, int64_t n1, int64_t n2) {
  TcCase c = makeCase("kronecker3.tc", "kronecker3",
                      {{"M", m},
                       {"N0", n0},
                       {"N1", n1},
                       {"N2", n2},
                       {"D0", n0},
                       {"D1", n1},
                       {"D2", n2}},
                      "Y");
  c.flops = 2.0 * m * n0 * n1 * n2 * (n0 + n1 + n2);
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] =
        makeRandom(m * n0 * n1 * n2, 45);
    const std::vector<float> &w0 = data.inputs["W0"] = makeRandom(n0 * n0, 46);
    const std::vector<float> &w1 = data.inputs["W1"] = makeRandom(n1 * n1, 47);
    const std::vector<float> &w2 = data.inputs["W2"] = makeRandom(n2 * n2, 48);
    std::vector<double> y(x.begin(), x.end());
    y = contractMiddle(y, w2, m * n0 * n1, n2, n2, 1);
    y = contractMiddle(y, w1, m * n0, n1, n1, n2);
    y = contractMiddle(y, w0, m, n0, n0, n1 * n2);
    data.expected.assign(y.begin(), y.end());
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// row_mean, row_var: the statistics of long rows of X(N, K)
//===----------------------------------------------------------------------===//

void registerRowStats(llvm::StringRef entry, int64_t n, int64_t k) {
  TcCase c = makeCase("row_stats.tc", entry, {{"N", n}, {"K", k}},
                      entry == "row_mean" ? "mean" : "var");
  c.bytes = (double(n * k) + n) * 4;
  bool variance = entry == "row_var";
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] = makeRandom(n * k, 49);
    data.expected.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      auto [mean, var] = getMeanAndVariance(&x[i * k], k);
      data.expected[i] = float(variance ? var : mean);
    }
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// group_norm: X(N, G, C, S) normalised per (n, g), scaled per (g, c)
//===----------------------------------------------------------------------===//

void registerGroupNorm(int64_t n, int64_t g, int64_t ch, int64_t s) {
  TcCase c = makeCase("group_norm.tc", "group_norm",
                      {{"N", n}, {"G", g}, {"C", ch}, {"S", s}}, "Y");
  c.bytes = (2.0 * n * g * ch * s + 2.0 * g * ch) * 4;
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] =
        makeRandom(n * g * ch * s, 50);
    const std::vector<float> &gamma = data.inputs["gamma"] =
        makeRandom(g * ch, 51);
    const std::vector<float> &beta = data.inputs["beta"] =
        makeRandom(g * ch, 52);
    int64_t span = ch * s;
    data.expected.resize(x.size());
    for (int64_t ng = 0; ng < n * g; ++ng) {
      const float *group = &x[ng * span];
      auto [mean, var] = getMeanAndVariance(group, span);
      double scale = 1.0 / std::sqrt(var + 1e-5);
      for (int64_t j = 0; j < span; ++j) {
        int64_t gc = (ng % g) * ch + j / s;
        data.expected[ng * span + j] =
            float(gamma[gc] * (group[j] - mean) * scale + beta[gc]);
      }
    }
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// dilated_conv1d_<DIL>: O(n, f, t) = sum_{c,k} I(n, c, t + DIL k) W1(f, c, k)
//===----------------------------------------------------------------------===//

void registerDilatedConv1d(int64_t dilation, int64_t n, int64_t ch, int64_t f,
                           int64_t t, int64_t k) {
  std::string entry = "dilated_conv1d_" + std::to_string(dilation);
  TcCase c = makeCase("dilated_conv1d.tc", entry,
                      {{"N", n}, {"C", ch}, {"T", t}, {"F", f}, {"K", k}}, "O");
  int64_t out = t - dilation * (k - 1);
  c.flops = 2.0 * n * f * out * ch * k;
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] =
        makeRandom(n * ch * t, 53);
    const std::vector<float> &w = data.inputs["W1"] =
        makeRandom(f * ch * k, 54);
    data.expected.resize(n * f * out);
    parallelFor(n * f, [&](int64_t begin, int64_t end) {
      for (int64_t nf = begin; nf < end; ++nf) {
        int64_t b = nf / f, filter = nf % f;
        for (int64_t x = 0; x < out; ++x) {
          double sum = 0;
          for (int64_t cc = 0; cc < ch; ++cc)
            for (int64_t tap = 0; tap < k; ++tap)
              sum += double(in[(b * ch + cc) * t + x + dilation * tap]) *
                     w[(filter * ch + cc) * k + tap];
          data.expected[nf * out + x] = float(sum);
        }
      }
    });
  };
  registerComprehend(c);
}

//===----------------------------------------------------------------------===//
// mlp3: three fully connected layers (ReLU after the first two)
//===----------------------------------------------------------------------===//

/// out(b, o) = sum_i in(b, i) w(o, i) + bias(o), then ReLU if `relu`.
std::vector<double> referenceLinear(const std::vector<double> &in,
                                    const std::vector<float> &w,
                                    const std::vector<float> &bias,
                                    int64_t batch, bool relu) {
  int64_t outs = bias.size(), ins = w.size() / outs;
  std::vector<double> out(batch * outs);
  parallelFor(batch, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b)
      for (int64_t o = 0; o < outs; ++o) {
        double sum = bias[o];
        for (int64_t i = 0; i < ins; ++i)
          sum += in[b * ins + i] * w[o * ins + i];
        out[b * outs + o] = relu ? std::max(sum, 0.0) : sum;
      }
  });
  return out;
}

void registerMlp3(int64_t b, int64_t m, int64_t n, int64_t p, int64_t q) {
  TcCase c = makeCase("mlp3.tc", "mlp3",
                      {{"B", b}, {"M", m}, {"N", n}, {"P", p}, {"Q", q}}, "O");
  c.flops = 2.0 * b * (m * n + n * p + p * q);
  c.makeData = [=](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] = makeRandom(b * m, 55);
    const std::vector<float> &w1 = data.inputs["W1"] = makeRandom(n * m, 56);
    const std::vector<float> &b1 = data.inputs["B1"] = makeRandom(n, 57);
    const std::vector<float> &w2 = data.inputs["W2"] = makeRandom(p * n, 58);
    const std::vector<float> &b2 = data.inputs["B2"] = makeRandom(p, 59);
    const std::vector<float> &w3 = data.inputs["W3"] = makeRandom(q * p, 60);
    const std::vector<float> &b3 = data.inputs["B3"] = makeRandom(q, 61);
    std::vector<double> h(in.begin(), in.end());
    h = referenceLinear(h, w1, b1, b, /*relu=*/true);
    h = referenceLinear(h, w2, b2, b, /*relu=*/true);
    h = referenceLinear(h, w3, b3, b, /*relu=*/false);
    data.expected.assign(h.begin(), h.end());
  };
  registerComprehend(c);
}

} // namespace

void comprehend::bench::registerSuite() {
  // A 100k x 64 table, bags of 20 rows; a wider table and longer bags.
  registerEmbeddingBag(100000, 64, 256, 20);
  registerEmbeddingBag(100000, 128, 1024, 40);
  // 16 channels per group on 16 x 16 inputs (14 x 14 outputs).
  registerGroupedConv(8, 8, 16, 16, 16, 16);
  registerGroupedConv(32, 16, 16, 16, 16, 16);
  // Factors of 8 x 8 x 64 and 16 x 16 x 64.
  registerKronecker3(128, 8, 8, 64);
  registerKronecker3(64, 16, 16, 64);
  // Rows of 36 864 (a 192 x 192 image): 9 and 38 MB.
  for (llvm::StringRef entry : {"row_mean", "row_var"}) {
    registerRowStats(entry, 64, 36864);
    registerRowStats(entry, 256, 36864);
  }
  // About 1.6 MB each: 128 channels of 28 x 28, 256 channels of 14 x 14.
  registerGroupNorm(4, 32, 4, 784);
  registerGroupNorm(8, 32, 8, 196);
  // WaveNet: 64 residual channels, 2 taps, dilations 2 and 16.
  registerDilatedConv1d(2, 4, 64, 64, 4096, 2);
  registerDilatedConv1d(16, 4, 64, 64, 4096, 2);
  // Batch 128: MNIST-sized (784-256-256-10) and 1024 wide.
  registerMlp3(128, 784, 256, 256, 10);
  registerMlp3(128, 1024, 1024, 1024, 1024);
}
