//===- GemmBench.cpp - Matrix products against CLBlast and OpenBLAS -------===//
//
// examples/matmul.tc at square and skinny shapes, and
// examples/batch_matmul.tc for many small products and a few mid-size ones.
// Baselines: CLBlast Gemm / GemmStridedBatched on the same OpenCL device;
// OpenBLAS cblas_sgemm on the host (one call on all cores for a matmul; for
// a batch, the batch split over the cores with one OpenBLAS thread each);
// LIBXSMM (JIT-compiled small GEMM, OpenMP over the batch) for a batch.
// bench/pytorch_bench.py runs the same cases (--list-cases) with PyTorch.
//
//   bench-gemm --benchmark_out=gemm.json --benchmark_out_format=json
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

#include <cblas.h>
#ifdef COMPREHEND_BENCH_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

using namespace comprehend;
using namespace comprehend::bench;

namespace {

/// C(b) = A(b) * B(b) for row-major A(b): rows x inner, B(b): inner x cols,
/// accumulated in double: the reference every variant is checked against.
std::vector<float> referenceBatchedGemm(int64_t batch, int64_t rows,
                                        int64_t cols, int64_t inner,
                                        const std::vector<float> &a,
                                        const std::vector<float> &b) {
  std::vector<float> c(batch * rows * cols);
  parallelFor(batch * rows, [&](int64_t begin, int64_t end) {
    std::vector<double> acc(cols);
    for (int64_t row = begin; row < end; ++row) {
      int64_t ib = row / rows, i = row % rows;
      const float *pa = &a[(ib * rows + i) * inner];
      const float *pb = &b[ib * inner * cols];
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t p = 0; p < inner; ++p)
        for (int64_t j = 0; j < cols; ++j)
          acc[j] += double(pa[p]) * double(pb[p * cols + j]);
      std::copy(acc.begin(), acc.end(), &c[row * cols]);
    }
  });
  return c;
}

//===----------------------------------------------------------------------===//
// matmul: C(m,n) +=! A(m,k) * B(k,n)
//===----------------------------------------------------------------------===//

void registerMatmul(int64_t m, int64_t n, int64_t k) {
  TcCase c("matmul", getExamplePath("matmul.tc"), "matmul",
           {{"M", m}, {"N", n}, {"K", k}}, {"C"});
  c.flops = 2.0 * m * n * k;
  c.makeData = [m, n, k](CaseData &data) {
    data.inputs["A"] = makeRandom(m * k, 1);
    data.inputs["B"] = makeRandom(k * n, 2);
    data.expected =
        referenceBatchedGemm(1, m, n, k, data.input("A"), data.input("B"));
  };
  registerComprehend(c);

  registerClblast(c, {"A", "B"},
                  [](const TcCase &c, llvm::ArrayRef<cl_mem> buffers,
                     cl_command_queue *queue, cl_event *event) {
                    size_t m = c.size("M"), n = c.size("N"), k = c.size("K");
                    return clblast::Gemm<float>(
                        clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                        clblast::Transpose::kNo, m, n, k, 1.0f, buffers[0], 0,
                        k, buffers[1], 0, n, 0.0f, buffers[2], 0, n, queue,
                        event);
                  });

  registerHost(
      c, "openblas",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int m = c.size("M"), n = c.size("N"), k = c.size("K");
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                    data.input("A").data(), k, data.input("B").data(), n, 0.0f,
                    result.data(), n);
      },
      getNumHostThreads());
}

//===----------------------------------------------------------------------===//
// batch_matmul: Z(b,n,k) +=! X(b,n,m) * Y(b,m,k)
//===----------------------------------------------------------------------===//

void registerBatchMatmul(int64_t batch, int64_t n, int64_t m, int64_t k) {
  TcCase c("batch_matmul", getExamplePath("batch_matmul.tc"), "batch_matmul",
           {{"B", batch}, {"N", n}, {"M", m}, {"K", k}}, {"Z"});
  c.flops = 2.0 * batch * n * m * k;
  c.makeData = [batch, n, m, k](CaseData &data) {
    data.inputs["X"] = makeRandom(batch * n * m, 3);
    data.inputs["Y"] = makeRandom(batch * m * k, 4);
    data.expected =
        referenceBatchedGemm(batch, n, k, m, data.input("X"), data.input("Y"));
  };
  registerComprehend(c);

  registerClblast(c, {"X", "Y"},
                  [](const TcCase &c, llvm::ArrayRef<cl_mem> buffers,
                     cl_command_queue *queue, cl_event *event) {
                    size_t batch = c.size("B"), n = c.size("N"),
                           m = c.size("M"), k = c.size("K");
                    return clblast::GemmStridedBatched<float>(
                        clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                        clblast::Transpose::kNo, n, k, m, 1.0f, buffers[0], 0,
                        m, n * m, buffers[1], 0, k, m * k, 0.0f, buffers[2], 0,
                        k, n * k, batch, queue, event);
                  });

  // Each host thread runs its part of the batch with a single-threaded
  // OpenBLAS: the products are far too small to split.
  registerHost(
      c, "openblas",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        int n = c.size("N"), m = c.size("M"), k = c.size("K");
        const float *x = data.input("X").data(), *y = data.input("Y").data();
        parallelFor(c.size("B"), [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, k, m,
                        1.0f, x + b * n * m, m, y + b * m * k, k, 0.0f,
                        result.data() + b * n * k, k);
        });
      },
      /*openblasThreads=*/1);

#ifdef COMPREHEND_BENCH_HAVE_LIBXSMM
  // One LIBXSMM kernel JIT-compiled for the shape, called per product with
  // OpenMP over the batch. LIBXSMM is column-major: the row-major
  // Z(n x k) = X(n x m) * Y(m x k) is the column-major Z^T = Y^T * X^T.
  registerHost(
      c, "libxsmm",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        libxsmm_blasint n = c.size("N"), m = c.size("M"), k = c.size("K");
        int64_t batch = c.size("B");
        libxsmm_smmfunction kernel =
            libxsmm_smmdispatch(k, n, m, &k, &m, &k, /*alpha=*/nullptr,
                                /*beta=*/nullptr, /*flags=*/nullptr,
                                /*prefetch=*/nullptr);
        const float *x = data.input("X").data(), *y = data.input("Y").data();
        float *z = result.data();
        if (!kernel) {
          // Beyond LIBXSMM's JIT limits: its BLAS-backed entry point.
          const char transpose = 'N';
          const float alpha = 1, beta = 0;
#pragma omp parallel for schedule(static) num_threads(getNumHostThreads())
          for (int64_t b = 0; b < batch; ++b)
            libxsmm_sgemm(&transpose, &transpose, &k, &n, &m, &alpha,
                          y + b * m * k, &k, x + b * n * m, &m, &beta,
                          z + b * n * k, &k);
          return;
        }
#pragma omp parallel for schedule(static) num_threads(getNumHostThreads())
        for (int64_t b = 0; b < batch; ++b)
          kernel(y + b * m * k, x + b * n * m, z + b * n * k);
      },
      /*openblasThreads=*/1,
      libxsmm_smmdispatch(k, n, m, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr)
          ? std::string("JIT kernel, ") + libxsmm_get_target_arch()
          : "libxsmm_sgemm (beyond the JIT's limits)");
#endif
}

} // namespace

void comprehend::bench::registerSuite() {
  for (int64_t size : {128, 256, 512, 1024, 2048})
    registerMatmul(size, size, size);
  // Skinny: a rank-64 update, a long reduction to a small result, and a
  // tall matrix times a small one.
  registerMatmul(1024, 1024, 64);
  registerMatmul(64, 64, 1024);
  registerMatmul(4096, 16, 16);

  // Many small products, then a few mid-size ones.
  registerBatchMatmul(20000, 16, 16, 16);
  registerBatchMatmul(20000, 56, 9, 9);
  registerBatchMatmul(64, 128, 128, 128);
}
