//===- NeuralBench.cpp - Convolution, softmax and layer norm --------------===//
//
// examples/conv2d.tc against CLBlast's Convgemm (same device) and an
// im2col + cblas_sgemm loop (host); examples/softmax.tc,
// examples/layer_norm.tc, examples/max_pool.tc, examples/moments.tc and
// examples/batch_norm.tc, which no BLAS has, against plain C++ loops on
// every core; fcrelu (examples/mlp.tc) against cblas_sgemm + a bias and
// ReLU loop. Softmax, layer norm, max-pooling, moments and batch norm are
// memory-bound and reported in GB/s of compulsory traffic (each input read
// once, each output written once). bench/pytorch_bench.py runs the same
// cases (--list-cases) with PyTorch.
//
//   bench-nn --benchmark_out=nn.json --benchmark_out_format=json
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

using namespace comprehend;
using namespace comprehend::bench;

namespace {

//===----------------------------------------------------------------------===//
// conv2d: O(n,m,h,w) +=! I(n,c,h+kh,w+kw) * W1(m,c,kh,kw); O += B(m)
//===----------------------------------------------------------------------===//

struct ConvShape {
  int64_t n, c, h, w, m, kh, kw;
  int64_t oh() const { return h - kh + 1; }
  int64_t ow() const { return w - kw + 1; }

  static ConvShape get(const TcCase &c) {
    return {c.size("N"), c.size("C"),  c.size("H"), c.size("W"),
            c.size("M"), c.size("KH"), c.size("KW")};
  }
};

std::vector<float> referenceConv2d(const ConvShape &s, const CaseData &data) {
  const std::vector<float> &in = data.input("I"), &weights = data.input("W1"),
                           &bias = data.input("B");
  std::vector<float> out(s.n * s.m * s.oh() * s.ow());
  parallelFor(s.n * s.m, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      int64_t n = nm / s.m, m = nm % s.m;
      for (int64_t y = 0; y < s.oh(); ++y)
        for (int64_t x = 0; x < s.ow(); ++x) {
          double sum = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx)
                sum +=
                    double(in[((n * s.c + c) * s.h + y + ky) * s.w + x + kx]) *
                    double(weights[((m * s.c + c) * s.kh + ky) * s.kw + kx]);
          out[(nm * s.oh() + y) * s.ow() + x] = float(sum + bias[m]);
        }
    }
  });
  return out;
}

void registerConv2d(ConvShape s) {
  TcCase c("conv2d", getExamplePath("conv2d.tc"), "conv2d",
           {{"N", s.n},
            {"C", s.c},
            {"H", s.h},
            {"W", s.w},
            {"M", s.m},
            {"KH", s.kh},
            {"KW", s.kw}},
           {"O"});
  c.flops = 2.0 * s.n * s.m * s.oh() * s.ow() * s.c * s.kh * s.kw;
  c.makeData = [s](CaseData &data) {
    data.inputs["I"] = makeRandom(s.n * s.c * s.h * s.w, 5);
    data.inputs["W1"] = makeRandom(s.m * s.c * s.kh * s.kw, 6);
    data.inputs["B"] = makeRandom(s.m, 7);
    data.expected = referenceConv2d(s, data);
  };
  registerComprehend(c);

  // CLBlast's convolution has no bias: the bias is added on the host for the
  // check only, so the CLBlast time lacks that (cheap) pass.
  registerClblast(
      c, {"I", "W1"},
      [](const TcCase &c, llvm::ArrayRef<cl_mem> buffers,
         cl_command_queue *queue, cl_event *event) {
        ConvShape s = ConvShape::get(c);
        return clblast::Convgemm<float>(
            clblast::KernelMode::kCrossCorrelation, s.c, s.h, s.w, s.kh, s.kw,
            /*pad=*/0, 0, /*stride=*/1, 1, /*dilation=*/1, 1, s.m, s.n,
            buffers[0], 0, buffers[1], 0, buffers[2], 0, queue, event);
      },
      /*initialOutput=*/"",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        ConvShape s = ConvShape::get(c);
        const std::vector<float> &bias = data.input("B");
        for (size_t i = 0; i < result.size(); ++i)
          result[i] += bias[(i / (s.oh() * s.ow())) % s.m];
      });

  // im2col per image, one cblas_sgemm (M x C*KH*KW times C*KH*KW x OH*OW)
  // and the bias; the images are split over the cores, with one OpenBLAS
  // thread each.
  registerHost(
      c, "openblas",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        ConvShape s = ConvShape::get(c);
        int64_t patch = s.c * s.kh * s.kw, pixels = s.oh() * s.ow();
        const float *in = data.input("I").data();
        const float *weights = data.input("W1").data();
        const float *bias = data.input("B").data();
        parallelFor(s.n, [&](int64_t begin, int64_t end) {
          std::vector<float> columns(patch * pixels);
          for (int64_t n = begin; n < end; ++n) {
            for (int64_t c = 0; c < s.c; ++c)
              for (int64_t ky = 0; ky < s.kh; ++ky)
                for (int64_t kx = 0; kx < s.kw; ++kx) {
                  float *row = &columns[((c * s.kh + ky) * s.kw + kx) * pixels];
                  for (int64_t y = 0; y < s.oh(); ++y)
                    std::copy_n(&in[((n * s.c + c) * s.h + y + ky) * s.w + kx],
                                s.ow(), row + y * s.ow());
                }
            float *out = &result[n * s.m * pixels];
            for (int64_t m = 0; m < s.m; ++m)
              std::fill_n(out + m * pixels, pixels, bias[m]);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, pixels,
                        patch, 1.0f, weights, patch, columns.data(), pixels,
                        1.0f, out, pixels);
          }
        });
      },
      /*openblasThreads=*/1);
}

//===----------------------------------------------------------------------===//
// softmax and layer_norm over the rows of X(N,D)
//===----------------------------------------------------------------------===//

void registerSoftmax(int64_t n, int64_t d) {
  TcCase c("softmax", getExamplePath("softmax.tc"), "softmax",
           {{"N", n}, {"D", d}}, {"Y"});
  c.bytes = 2.0 * n * d * sizeof(float);
  c.makeData = [n, d](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] = makeRandom(n * d, 8);
    data.expected.resize(n * d);
    for (int64_t i = 0; i < n; ++i) {
      const float *row = &x[i * d];
      double max = *std::max_element(row, row + d), sum = 0;
      for (int64_t j = 0; j < d; ++j)
        sum += std::exp(double(row[j]) - max);
      for (int64_t j = 0; j < d; ++j)
        data.expected[i * d + j] = float(std::exp(double(row[j]) - max) / sum);
    }
  };
  registerComprehend(c);

  registerHost(
      c, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int64_t n = c.size("N"), d = c.size("D");
        const float *x = data.input("X").data();
        parallelFor(n, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const float *row = x + i * d;
            float *out = result.data() + i * d;
            float max = *std::max_element(row, row + d), sum = 0;
            for (int64_t j = 0; j < d; ++j)
              sum += out[j] = std::exp(row[j] - max);
            float scale = 1.0f / sum;
            for (int64_t j = 0; j < d; ++j)
              out[j] *= scale;
          }
        });
      });
}

void registerLayerNorm(int64_t n, int64_t d) {
  TcCase c("layer_norm", getExamplePath("layer_norm.tc"), "layer_norm",
           {{"N", n}, {"D", d}}, {"Y"});
  c.bytes = (2.0 * n * d + 2.0 * d) * sizeof(float);
  c.makeData = [n, d](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] = makeRandom(n * d, 9);
    const std::vector<float> &gamma = data.inputs["gamma"] = makeRandom(d, 10);
    const std::vector<float> &beta = data.inputs["beta"] = makeRandom(d, 11);
    data.expected.resize(n * d);
    for (int64_t i = 0; i < n; ++i) {
      const float *row = &x[i * d];
      auto [mean, var] = getMeanAndVariance(row, d);
      double scale = 1.0 / std::sqrt(var + 1e-5);
      for (int64_t j = 0; j < d; ++j)
        data.expected[i * d + j] =
            float(gamma[j] * (row[j] - mean) * scale + beta[j]);
    }
  };
  registerComprehend(c);

  registerHost(
      c, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int64_t n = c.size("N"), d = c.size("D");
        const float *x = data.input("X").data();
        const float *gamma = data.input("gamma").data();
        const float *beta = data.input("beta").data();
        parallelFor(n, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const float *row = x + i * d;
            float sum = 0, squares = 0;
            for (int64_t j = 0; j < d; ++j)
              sum += row[j];
            float mean = sum / d;
            for (int64_t j = 0; j < d; ++j)
              squares += (row[j] - mean) * (row[j] - mean);
            float scale = 1.0f / std::sqrt(squares / d + 1e-5f);
            float *out = result.data() + i * d;
            for (int64_t j = 0; j < d; ++j)
              out[j] = gamma[j] * (row[j] - mean) * scale + beta[j];
          }
        });
      });
}

//===----------------------------------------------------------------------===//
// max_pool: O(n,c,h,w) max=! I(n,c,2h+kh,2w+kw), a 2x2 window with stride 2
//===----------------------------------------------------------------------===//

void registerMaxPool(int64_t n, int64_t c, int64_t h, int64_t w) {
  TcCase tc("max_pool", getExamplePath("max_pool.tc"), "max_pool",
            {{"N", n}, {"C", c}, {"H", h}, {"W", w}}, {"O"});
  int64_t oh = h / 2, ow = w / 2;
  tc.bytes = (double(n * c * h * w) + double(n * c * oh * ow)) * sizeof(float);
  tc.tolerance = 0;
  tc.makeData = [n, c, h, w, oh, ow](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] =
        makeRandom(n * c * h * w, 17);
    data.expected.resize(n * c * oh * ow);
    for (int64_t plane = 0; plane < n * c; ++plane)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          // No -INFINITY start: this file is built with -ffast-math.
          float best = in[(plane * h + 2 * y) * w + 2 * x];
          for (int64_t ky = 0; ky < 2; ++ky)
            for (int64_t kx = 0; kx < 2; ++kx)
              best =
                  std::max(best, in[(plane * h + 2 * y + ky) * w + 2 * x + kx]);
          data.expected[(plane * oh + y) * ow + x] = best;
        }
  };
  registerComprehend(tc);

  // The planes split over the cores; each output row reads two input rows.
  registerHost(
      tc, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int64_t h = c.size("H"), w = c.size("W"), oh = h / 2, ow = w / 2;
        const float *in = data.input("I").data();
        parallelFor(c.size("N") * c.size("C"), [&](int64_t begin, int64_t end) {
          for (int64_t plane = begin; plane < end; ++plane)
            for (int64_t y = 0; y < oh; ++y) {
              const float *top = in + (plane * h + 2 * y) * w;
              const float *bottom = top + w;
              float *out = result.data() + (plane * oh + y) * ow;
              for (int64_t x = 0; x < ow; ++x)
                out[x] = std::max(std::max(top[2 * x], top[2 * x + 1]),
                                  std::max(bottom[2 * x], bottom[2 * x + 1]));
            }
        });
      });
}

//===----------------------------------------------------------------------===//
// moments: mean(n) and (biased) var(n) of the rows of I(N,K)
//===----------------------------------------------------------------------===//

void registerMoments(int64_t n, int64_t k) {
  TcCase c("moments", getExamplePath("moments.tc"), "moments",
           {{"N", n}, {"K", k}}, {"mean", "var"});
  c.bytes = (double(n * k) + 2.0 * n) * sizeof(float);
  c.makeData = [n, k](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] = makeRandom(n * k, 18);
    // mean(0..N) then var(0..N), the order of the def's outputs.
    data.expected.resize(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      auto [mean, var] = getMeanAndVariance(&in[i * k], k);
      data.expected[i] = float(mean);
      data.expected[n + i] = float(var);
    }
  };
  registerComprehend(c);

  // Two passes over each row (the second from the cache), rows split over
  // the cores.
  registerHost(
      c, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int64_t n = c.size("N"), k = c.size("K");
        const float *in = data.input("I").data();
        parallelFor(n, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const float *row = in + i * k;
            float sum = 0, squares = 0;
            for (int64_t j = 0; j < k; ++j)
              sum += row[j];
            float mean = sum / k;
            for (int64_t j = 0; j < k; ++j)
              squares += (row[j] - mean) * (row[j] - mean);
            result[i] = mean;
            result[n + i] = squares / k;
          }
        });
      });
}

//===----------------------------------------------------------------------===//
// batch_norm: Y(n,c) = gamma(c) * (X(n,c) - mean(c)) / sqrt(var(c) + eps)
// + beta(c), the statistics of each column c over the batch n
//===----------------------------------------------------------------------===//

void registerBatchNorm(int64_t n, int64_t c) {
  TcCase tc("batch_norm", getExamplePath("batch_norm.tc"), "batch_norm",
            {{"N", n}, {"C", c}}, {"Y"});
  tc.bytes = (2.0 * n * c + 2.0 * c) * sizeof(float);
  tc.makeData = [n, c](CaseData &data) {
    const std::vector<float> &x = data.inputs["X"] = makeRandom(n * c, 22);
    const std::vector<float> &gamma = data.inputs["gamma"] = makeRandom(c, 23);
    const std::vector<float> &beta = data.inputs["beta"] = makeRandom(c, 24);
    std::vector<double> mean(c), var(c);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j)
        mean[j] += x[i * c + j];
    for (int64_t j = 0; j < c; ++j)
      mean[j] /= n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j)
        var[j] += (x[i * c + j] - mean[j]) * (x[i * c + j] - mean[j]);
    data.expected.resize(n * c);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < c; ++j)
        data.expected[i * c + j] = float(gamma[j] * (x[i * c + j] - mean[j]) /
                                             std::sqrt(var[j] / n + 1e-5) +
                                         beta[j]);
  };
  registerComprehend(tc);

  // Blocks of columns split over the cores; each block walks the rows
  // three times (sum, squares, output), a row of the block at a time.
  registerHost(
      tc, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        constexpr int64_t kBlock = 256;
        int64_t n = c.size("N"), cols = c.size("C");
        const float *x = data.input("X").data();
        const float *gamma = data.input("gamma").data();
        const float *beta = data.input("beta").data();
        parallelFor(
            (cols + kBlock - 1) / kBlock, [&](int64_t begin, int64_t end) {
              float mean[kBlock], scale[kBlock];
              for (int64_t block = begin; block < end; ++block) {
                int64_t first = block * kBlock;
                int64_t width = std::min(kBlock, cols - first);
                std::fill_n(mean, width, 0.0f);
                std::fill_n(scale, width, 0.0f);
                for (int64_t i = 0; i < n; ++i)
                  for (int64_t j = 0; j < width; ++j)
                    mean[j] += x[i * cols + first + j];
                for (int64_t j = 0; j < width; ++j)
                  mean[j] /= n;
                for (int64_t i = 0; i < n; ++i)
                  for (int64_t j = 0; j < width; ++j) {
                    float d = x[i * cols + first + j] - mean[j];
                    scale[j] += d * d;
                  }
                for (int64_t j = 0; j < width; ++j)
                  scale[j] = gamma[first + j] / std::sqrt(scale[j] / n + 1e-5f);
                for (int64_t i = 0; i < n; ++i)
                  for (int64_t j = 0; j < width; ++j)
                    result[i * cols + first + j] =
                        (x[i * cols + first + j] - mean[j]) * scale[j] +
                        beta[first + j];
              }
            });
      });
}

//===----------------------------------------------------------------------===//
// fcrelu: O(b,n) = max(sum_m I(b,m) * W(n,m) + bias(n), 0), a fully
// connected layer with PyTorch's weight layout, then ReLU
//===----------------------------------------------------------------------===//

void registerFcrelu(int64_t b, int64_t m, int64_t n) {
  TcCase c("fcrelu", getExamplePath("mlp.tc"), "fcrelu",
           {{"B", b}, {"M", m}, {"N", n}}, {"O"});
  c.flops = 2.0 * b * m * n;
  c.makeData = [b, m, n](CaseData &data) {
    const std::vector<float> &in = data.inputs["I"] = makeRandom(b * m, 19);
    const std::vector<float> &weights = data.inputs["W"] =
        makeRandom(n * m, 20);
    const std::vector<float> &bias = data.inputs["bias"] = makeRandom(n, 21);
    data.expected.resize(b * n);
    parallelFor(b, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row)
        for (int64_t col = 0; col < n; ++col) {
          double sum = bias[col];
          for (int64_t k = 0; k < m; ++k)
            sum += double(in[row * m + k]) * double(weights[col * m + k]);
          data.expected[row * n + col] = float(std::max(sum, 0.0));
        }
    });
  };
  registerComprehend(c);

  // One cblas_sgemm with the weights transposed, then bias and ReLU.
  registerHost(
      c, "openblas",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int64_t b = c.size("B"), m = c.size("M"), n = c.size("N");
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, b, n, m, 1.0f,
                    data.input("I").data(), m, data.input("W").data(), m, 0.0f,
                    result.data(), n);
        const float *bias = data.input("bias").data();
        parallelFor(b, [&](int64_t begin, int64_t end) {
          for (int64_t row = begin; row < end; ++row)
            for (int64_t col = 0; col < n; ++col)
              result[row * n + col] =
                  std::max(result[row * n + col] + bias[col], 0.0f);
        });
      },
      getNumHostThreads());
}

} // namespace

void comprehend::bench::registerSuite() {
  registerConv2d({/*n=*/8, /*c=*/16, /*h=*/32, /*w=*/32, /*m=*/16, 3, 3});
  registerConv2d({/*n=*/8, /*c=*/32, /*h=*/32, /*w=*/32, /*m=*/32, 3, 3});
  // A small batch that stays in the caches and one of 64 MiB per tensor.
  registerSoftmax(256, 1024);
  registerSoftmax(8192, 2048);
  registerLayerNorm(256, 1024);
  registerLayerNorm(8192, 2048);
  // The same bytes as softmax and layer norm: 1 MiB and 64 MiB of input.
  registerMaxPool(16, 16, 32, 32);
  registerMaxPool(64, 64, 64, 64);
  registerMoments(256, 1024);
  registerMoments(8192, 2048);
  // The statistics of columns: the reductions walk the rows.
  registerBatchNorm(256, 1024);
  registerBatchNorm(8192, 2048);
  // A layer of a small batch (weights-bound) and one of a large batch.
  registerFcrelu(64, 1024, 1024);
  registerFcrelu(1024, 1024, 1024);
}
