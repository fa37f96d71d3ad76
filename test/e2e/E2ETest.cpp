//===- E2ETest.cpp - Tensor-language kernels on the default device --------===//
//
// Every kernel below is compiled by the backend for the default device and
// run on fresh random inputs with outputs poisoned (NaN) unless an output is
// also read (beta != 0); results are compared with CPU references written
// here. All functions are in one module so that the device builds it once.
//
//===----------------------------------------------------------------------===//
#include "ModuleFixture.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include "gtest/gtest.h"

#include <cmath>
#include <complex>
#include <functional>
#include <random>

using namespace comprehend::runtime;

namespace {

const char *const kProgram = R"(
func @gemm_nn(%alpha: f32, %A: memref<f32x33x65>, %B: memref<f32x65x7>,
              %C: memref<f32x33x7>) {
  %zero = constant 0.0 : f32
  gemm.n.n %alpha, %A, %B, %zero, %C
}
func @gemm_tn(%alpha: f32, %A: memref<f32x65x33>, %B: memref<f32x65x7>,
              %beta: f32, %C: memref<f32x33x7>) {
  gemm.t.n %alpha, %A, %B, %beta, %C
}
func @gemm_nt(%alpha: f32, %A: memref<f32x33x65>, %B: memref<f32x7x65>,
              %beta: f32, %C: memref<f32x33x7>) {
  gemm.n.t %alpha, %A, %B, %beta, %C
}
func @gemm_tt(%alpha: f32, %A: memref<f32x65x33>, %B: memref<f32x7x65>,
              %beta: f32, %C: memref<f32x33x7>) {
  gemm.t.t %alpha, %A, %B, %beta, %C
}
func @gemm_tn_panels(%A: memref<f32x71x100>, %B: memref<f32x71x48>,
                     %beta: f32, %C: memref<f32x100x48>) {
  %alpha = constant 1.0 : f32
  gemm.t.n %alpha, %A, %B, %beta, %C
}
func @gemm_tn_panels_f64(%A: memref<f64x71x100>, %B: memref<f64x71x48>,
                         %beta: f64, %C: memref<f64x100x48>) {
  %alpha = constant 1.0 : f64
  gemm.t.n %alpha, %A, %B, %beta, %C
}
func @gemm_dyn(%alpha: f64, %A: memref<f64x?x?>, %B: memref<f64x?x?>,
               %beta: f64, %C: memref<f64x?x?>) {
  gemm.n.n %alpha, %A, %B, %beta, %C
}
func @gemm_one(%A: memref<f32x1x1>, %B: memref<f32x1x1>, %C: memref<f32x1x1>) {
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %A, %B, %zero, %C
}
func @gemm_256(%A: memref<f32x256x256>, %B: memref<f32x256x256>,
               %C: memref<f32x256x256>) {
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %A, %B, %zero, %C
}
func @gemv(%alpha: f32, %A: memref<f32x33x17>, %x: memref<f32x17>,
           %beta: f32, %y: memref<f32x33>) {
  gemv.n %alpha, %A, %x, %beta, %y
}
func @ger(%alpha: f32, %x: memref<f32x33>, %y: memref<f32x7>, %beta: f32,
          %A: memref<f32x33x7>) {
  ger %alpha, %x, %y, %beta, %A
}
func @axpby(%alpha: f32, %a: memref<f32x65>, %beta: f32, %b: memref<f32x65>) {
  axpby %alpha, %a, %beta, %b
}
func @hadamard(%alpha: f32, %a: memref<f32x33>, %b: memref<f32x33>,
               %beta: f32, %c: memref<f32x33>) {
  hadamard %alpha, %a, %b, %beta, %c
}
func @sum(%alpha: f64, %A: memref<f64x16x8>, %beta: f64, %b: memref<f64x16>) {
  sum %alpha, %A, %beta, %b
}
func @sum_rows(%alpha: f32, %A: memref<f32x150x9>, %beta: f32,
               %b: memref<f32x150>) {
  sum %alpha, %A, %beta, %b
}
func @cumsum(%alpha: f32, %A: memref<f32x16x8>, %beta: f32,
             %B: memref<f32x16x8>) {
  cumsum %alpha, %A, 0, %beta, %B
}
func @batched(%A: memref<f32x16x8x?>, %B: memref<f32x8x12x?>,
              %C: memref<f32x16x12x?>) {
  %b = group_id.x : index
  %a = subview %A[0:16, 0:8, %b] : memref<f32x16x8>
  %bb = subview %B[0:8, 0:12, %b] : memref<f32x8x12>
  %c = subview %C[0:16, 0:12, %b] : memref<f32x16x12>
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %a, %bb, %zero, %c
}
func @batched_group(%A: group<memref<f32x16x8>x?>,
                    %B: group<memref<f32x8x12>x?>,
                    %C: group<memref<f32x16x12>x?>) {
  %b = group_id.x : index
  %a = load %A[%b] : memref<f32x16x8>
  %bb = load %B[%b] : memref<f32x8x12>
  %c = load %C[%b] : memref<f32x16x12>
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %a, %bb, %zero, %c
}
func @copy(%A: memref<f32x?>, %B: memref<f32x?>) {
  %c0 = constant 0 : index
  %n = size %A[0] : index
  foreach (%i) = (%c0), (%n) {
    %a = load %A[%i] : f32
    store %a, %B[%i]
  }
}
func @elementwise(%A: memref<f32x?>, %B: memref<f32x?>) {
  %c0 = constant 0 : index
  %n = size %A[0] : index
  %two = constant 2.0 : f32
  foreach (%i) = (%c0), (%n) {
    %a = load %A[%i] : f32
    %e = exp %a : f32
    %m = mul %e, %two : f32
    %s = abs %a : f32
    %r = sub %m, %s : f32
    store %r, %B[%i]
  }
}
func @atomics(%S: memref<i32x3>, %n: index) {
  %c0 = constant 0 : index
  %i1 = constant 1 : index
  %i2 = constant 2 : index
  %one = constant 1 : i32
  foreach (%i) = (%c0), (%n) {
    %v = cast %i : i32
    %nv = neg %v : i32
    %a = atomic_add %one, %S[%c0] : i32
    %b = atomic_max %v, %S[%i1] : i32
    %c = atomic_min %nv, %S[%i2] : i32
  }
}
func @positive_sum(%A: memref<f64x?>, %S: memref<f64>) {
  %c0 = constant 0 : index
  %n = size %A[0] : index
  %zero = constant 0.0 : f64
  %s = for %i = %c0, %n init(%acc = %zero) -> (f64) {
    %a = load %A[%i] : f64
    %pos = greater_than %a, %zero : bool
    %r = if %pos -> (f64) {
      %t = add %acc, %a : f64
      yield (%t)
    } else {
      yield (%acc)
    }
    yield (%r)
  }
  store %s, %S[]
}
func @casts(%A: memref<f32x?>, %I: memref<i32x?>, %D: memref<f64x?>) {
  %c0 = constant 0 : index
  %n = size %A[0] : index
  %ten = constant 10.0 : f32
  foreach (%i) = (%c0), (%n) {
    %a = load %A[%i] : f32
    %s = mul %a, %ten : f32
    %k = cast %s : i32
    store %k, %I[%i]
    %d = cast %k : f64
    %h = cast %s : f64
    %r = add %d, %h : f64
    store %r, %D[%i]
  }
}
func @reverse_local(%A: memref<f32x64>, %B: memref<f32x64>) {
  %tmp = alloca : memref<f32x64,local>
  %c0 = constant 0 : index
  %c63 = constant 63 : index
  %c64 = constant 64 : index
  foreach (%i) = (%c0), (%c64) {
    %a = load %A[%i] : f32
    store %a, %tmp[%i]
  }
  barrier.local
  foreach (%i) = (%c0), (%c64) {
    %j = sub %c63, %i : index
    %t = load %tmp[%j] : f32
    store %t, %B[%i]
  }
}
func @views(%A: memref<f32x8x6>, %B: memref<f32x4x3>, %V: memref<f32x12>,
            %E: memref<f32x3x4>, %F: memref<f32x48>) {
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  %s = subview %A[2:4, 1:3] : memref<f32x4x3,strided<1,8>>
  axpby %one, %s, %zero, %B
  %e = expand %V[0 -> 3x4] : memref<f32x3x4>
  axpby %one, %e, %zero, %E
  %f = fuse %A[0,1] : memref<f32x48>
  axpby %one, %f, %zero, %F
}
func @tile_copy(%A: memref<f32x70x64>, %B: memref<f32x70x64>, %alpha: f32) {
  %c0 = constant 0 : index
  %c70 = constant 70 : index
  %c64 = constant 64 : index
  foreach_tile (%i,%j)=(%c0,%c0),(%c70,%c64) as (%ti,%tj)<=(32,32) {
    %c32 = constant 32 : index
    %is_remainder = less_than %ti, %c32 : bool
    if %is_remainder {
      %tile = cooperative_matrix_load.rows_checked %A[%i,%j] : coopmatrix<f32x32x32,matrix_acc>
      %s = cooperative_matrix_scale %alpha, %tile : coopmatrix<f32x32x32,matrix_acc>
      cooperative_matrix_store.rows_checked %s, %B[%i,%j]
    } else {
      %tile = cooperative_matrix_load %A[%i,%j] : coopmatrix<f32x32x32,matrix_acc>
      %s = cooperative_matrix_scale %alpha, %tile : coopmatrix<f32x32x32,matrix_acc>
      cooperative_matrix_store %s, %B[%i,%j]
    }
  }
}
)";

/// An argument: a host tensor (memref or stacked group) or a scalar.
using HostArg = std::variant<HostTensor, ScalarArg>;

class E2ETest : public comprehend::test::ModuleFixture<E2ETest> {
public:
  static std::string getModuleText() { return kProgram; }
  static const char *getModuleName() { return "e2e.ir"; }

protected:
  /// Uploads `args`, launches `entry` over `grid` and returns the tensors
  /// read back (scalars give empty tensors).
  std::vector<HostTensor> run(llvm::StringRef entry, std::array<size_t, 3> grid,
                              const std::vector<HostArg> &args) {
    std::vector<HostTensor> results(args.size());
    auto kernel = executable->getEntry(entry);
    EXPECT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    if (!kernel)
      return results;
    EXPECT_EQ(kernel->params.size(), args.size());
    std::vector<std::optional<DeviceArgument>> arrays(args.size());
    std::vector<ArgValue> values;
    for (size_t i = 0; i < args.size(); ++i) {
      if (const auto *scalar = std::get_if<ScalarArg>(&args[i])) {
        values.push_back(*scalar);
        continue;
      }
      auto uploaded = uploadArgument(*device, kernel->params[i],
                                     std::get<HostTensor>(args[i]));
      EXPECT_TRUE(bool(uploaded)) << llvm::toString(uploaded.takeError());
      if (!uploaded)
        return results;
      values.push_back(uploaded->value);
      arrays[i] = std::move(*uploaded);
    }
    auto timing = executable->run(entry, grid, values);
    EXPECT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
    if (!timing)
      return results;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!arrays[i])
        continue;
      auto tensor = downloadArgument(*device, *arrays[i]);
      EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
      if (tensor)
        results[i] = std::move(*tensor);
    }
    return results;
  }

  HostTensor random(DType dtype, llvm::ArrayRef<int64_t> shape) {
    return makeRandomTensor(dtype, shape, rng);
  }
  static HostTensor poisoned(DType dtype, llvm::ArrayRef<int64_t> shape) {
    HostTensor tensor(dtype, shape);
    std::fill(tensor.data.begin(), tensor.data.end(), 0xff); // NaN / -1
    return tensor;
  }

  std::mt19937_64 rng{std::random_device{}()};
};

template <typename T> T at(const HostTensor &t, int64_t i) {
  return t.getData<T>()[i];
}

/// Asserts |got - want| <= tol * max(1, |want|) elementwise.
template <typename T>
void expectNear(const HostTensor &got, const std::vector<double> &want,
                double tol) {
  ASSERT_EQ(got.getNumElements(), int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    double value = got.getData<T>()[i];
    ASSERT_LE(std::abs(value - want[i]), tol * std::max(1.0, std::abs(want[i])))
        << "element " << i << ": got " << value << ", want " << want[i];
  }
}

/// C := alpha op(A) op(B) + beta C, column-major, in double.
std::vector<double> gemmReference(bool ta, bool tb, double alpha,
                                  const HostTensor &a, const HostTensor &b,
                                  double beta, const HostTensor *c, int64_t m,
                                  int64_t n, int64_t k) {
  std::vector<double> out(m * n);
  auto load = [](const HostTensor &t, int64_t i) -> double {
    return t.dtype == DType::F64 ? at<double>(t, i) : at<float>(t, i);
  };
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        double x = ta ? load(a, p + i * k) : load(a, i + p * m);
        double y = tb ? load(b, j + p * n) : load(b, p + j * k);
        sum += x * y;
      }
      out[i + j * m] =
          alpha * sum + (beta != 0 ? beta * load(*c, i + j * m) : 0.0);
    }
  return out;
}

TEST_F(E2ETest, GemmBetaZeroOverwritesPoison) {
  float alpha = 1.5f;
  HostTensor a = random(DType::F32, {33, 65}), b = random(DType::F32, {65, 7});
  auto out = run("gemm_nn", {1, 1, 1},
                 {ScalarArg::f32(alpha), a, b, poisoned(DType::F32, {33, 7})});
  expectNear<float>(
      out[3], gemmReference(false, false, alpha, a, b, 0, nullptr, 33, 7, 65),
      1e-5);
}

TEST_F(E2ETest, GemmTransposes) {
  struct Case {
    const char *entry;
    bool ta, tb;
  } cases[] = {{"gemm_tn", true, false},
               {"gemm_nt", false, true},
               {"gemm_tt", true, true}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.entry);
    float alpha = -0.75f, beta = 0.5f;
    HostTensor a =
        c.ta ? random(DType::F32, {65, 33}) : random(DType::F32, {33, 65});
    HostTensor b =
        c.tb ? random(DType::F32, {7, 65}) : random(DType::F32, {65, 7});
    HostTensor cIn = random(DType::F32, {33, 7});
    auto out = run(c.entry, {1, 1, 1},
                   {ScalarArg::f32(alpha), a, b, ScalarArg::f32(beta), cIn});
    expectNear<float>(
        out[4], gemmReference(c.ta, c.tb, alpha, a, b, beta, &cIn, 33, 7, 65),
        1e-5);
  }
}

// On a CPU core the backend copies a transposed A into panels first
// (test/lit/backend/pack-a.ir): 100 rows are four tiles of 32, the last
// clamped to row 99; 48 columns give the copy enough column tiles; 71 steps
// leave one to the row-by-row remainder after the blocks of 2 that go
// through registers.
TEST_F(E2ETest, GemmTransposedACopiedIntoPanels) {
  HostTensor a = random(DType::F32, {71, 100}),
             b = random(DType::F32, {71, 48});
  HostTensor c = random(DType::F32, {100, 48});
  auto out = run("gemm_tn_panels", {1, 1, 1}, {a, b, ScalarArg::f32(0.5f), c});
  expectNear<float>(
      out[3], gemmReference(true, false, 1, a, b, 0.5, &c, 100, 48, 71), 1e-5);
  HostTensor a64 = random(DType::F64, {71, 100});
  HostTensor b64 = random(DType::F64, {71, 48});
  auto out64 =
      run("gemm_tn_panels_f64", {1, 1, 1},
          {a64, b64, ScalarArg::f64(0.0), poisoned(DType::F64, {100, 48})});
  expectNear<double>(
      out64[3],
      gemmReference(true, false, 1, a64, b64, 0, nullptr, 100, 48, 71), 1e-12);
}

TEST_F(E2ETest, GemmDynamicShapesOddSizes) {
  for (int64_t size : {1, 7, 33, 65}) {
    SCOPED_TRACE(size);
    int64_t m = size, n = size == 1 ? 1 : size - 2, k = size + 1;
    HostTensor a = random(DType::F64, {m, k}), b = random(DType::F64, {k, n});
    HostTensor c = random(DType::F64, {m, n});
    auto out = run("gemm_dyn", {1, 1, 1},
                   {ScalarArg::f64(2.0), a, b, ScalarArg::f64(-1.0), c});
    expectNear<double>(
        out[4], gemmReference(false, false, 2.0, a, b, -1.0, &c, m, n, k),
        1e-12);
  }
}

TEST_F(E2ETest, GemmOneByOne) {
  HostTensor a = random(DType::F32, {1, 1}), b = random(DType::F32, {1, 1});
  auto out = run("gemm_one", {1, 1, 1}, {a, b, poisoned(DType::F32, {1, 1})});
  expectNear<float>(out[2], {double(at<float>(a, 0)) * at<float>(b, 0)}, 1e-6);
}

TEST_F(E2ETest, Gemm256) {
  HostTensor a = random(DType::F32, {256, 256});
  HostTensor b = random(DType::F32, {256, 256});
  auto out =
      run("gemm_256", {1, 1, 1}, {a, b, poisoned(DType::F32, {256, 256})});
  expectNear<float>(
      out[2], gemmReference(false, false, 1, a, b, 0, nullptr, 256, 256, 256),
      1e-4);
}

TEST_F(E2ETest, Gemv) {
  HostTensor a = random(DType::F32, {33, 17}), x = random(DType::F32, {17});
  HostTensor y = random(DType::F32, {33});
  auto out = run("gemv", {1, 1, 1},
                 {ScalarArg::f32(2), a, x, ScalarArg::f32(0.25f), y});
  std::vector<double> want(33);
  for (int i = 0; i < 33; ++i) {
    double sum = 0;
    for (int p = 0; p < 17; ++p)
      sum += double(at<float>(a, i + 33 * p)) * at<float>(x, p);
    want[i] = 2 * sum + 0.25 * at<float>(y, i);
  }
  expectNear<float>(out[4], want, 1e-5);
}

TEST_F(E2ETest, Ger) {
  HostTensor x = random(DType::F32, {33}), y = random(DType::F32, {7});
  HostTensor a = random(DType::F32, {33, 7});
  auto out =
      run("ger", {1, 1, 1}, {ScalarArg::f32(-1), x, y, ScalarArg::f32(3), a});
  std::vector<double> want(33 * 7);
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 33; ++i)
      want[i + 33 * j] = -double(at<float>(x, i)) * at<float>(y, j) +
                         3.0 * at<float>(a, i + 33 * j);
  expectNear<float>(out[4], want, 1e-5);
}

TEST_F(E2ETest, Axpby) {
  HostTensor a = random(DType::F32, {65}), b = random(DType::F32, {65});
  auto out =
      run("axpby", {1, 1, 1}, {ScalarArg::f32(0.5f), a, ScalarArg::f32(-2), b});
  std::vector<double> want(65);
  for (int i = 0; i < 65; ++i)
    want[i] = 0.5 * at<float>(a, i) - 2.0 * at<float>(b, i);
  expectNear<float>(out[3], want, 1e-6);
}

TEST_F(E2ETest, Hadamard) {
  HostTensor x = random(DType::F32, {33}), y = random(DType::F32, {33});
  HostTensor c = random(DType::F32, {33});
  auto out = run("hadamard", {1, 1, 1},
                 {ScalarArg::f32(2), x, y, ScalarArg::f32(-1), c});
  std::vector<double> want(33);
  for (int i = 0; i < 33; ++i)
    want[i] = 2.0 * at<float>(x, i) * at<float>(y, i) - at<float>(c, i);
  expectNear<float>(out[4], want, 1e-6);
}

TEST_F(E2ETest, SumAndCumsum) {
  HostTensor a = random(DType::F64, {16, 8}), b = random(DType::F64, {16});
  auto out =
      run("sum", {1, 1, 1}, {ScalarArg::f64(1.5), a, ScalarArg::f64(0.5), b});
  std::vector<double> want(16, 0);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 8; ++j)
      want[i] += at<double>(a, i + 16 * j);
    want[i] = 1.5 * want[i] + 0.5 * at<double>(b, i);
  }
  expectNear<double>(out[3], want, 1e-12);

  HostTensor x = random(DType::F32, {16, 8}), y = random(DType::F32, {16, 8});
  auto cum =
      run("cumsum", {1, 1, 1}, {ScalarArg::f32(1), x, ScalarArg::f32(2), y});
  std::vector<double> prefix(16 * 8);
  for (int j = 0; j < 8; ++j) {
    double running = 0;
    for (int i = 0; i < 16; ++i) {
      running += at<float>(x, i + 16 * j);
      prefix[i + 16 * j] = running + 2.0 * at<float>(y, i + 16 * j);
    }
  }
  expectNear<float>(cum[3], prefix, 1e-5);
}

/// On a vector CPU core an untransposed sum runs column by column over runs
/// of rows (lower-collective); 150 rows leave a remainder run and, in each
/// run, iterations after the vectors.
TEST_F(E2ETest, SumOfRowsWithRemainders) {
  HostTensor a = random(DType::F32, {150, 9}), b = random(DType::F32, {150});
  for (float beta : {0.5f, 0.0f}) {
    auto out = run("sum_rows", {1, 1, 1},
                   {ScalarArg::f32(-2), a, ScalarArg::f32(beta),
                    beta == 0 ? poisoned(DType::F32, {150}) : b});
    std::vector<double> want(150, 0);
    for (int i = 0; i < 150; ++i) {
      for (int j = 0; j < 9; ++j)
        want[i] += at<float>(a, i + 150 * j);
      want[i] = -2 * want[i] + (beta == 0 ? 0.0 : beta * at<float>(b, i));
    }
    expectNear<float>(out[3], want, 1e-5);
  }
}

/// beta = 0 given at run time must not read the output (BLAS convention):
/// a poisoned output must not leak NaN into the result.
TEST_F(E2ETest, BetaZeroIgnoresPoisonedOutputs) {
  HostTensor x = random(DType::F32, {33}), y = random(DType::F32, {33});
  auto had = run(
      "hadamard", {1, 1, 1},
      {ScalarArg::f32(1), x, y, ScalarArg::f32(0), poisoned(DType::F32, {33})});
  std::vector<double> product(33);
  for (int i = 0; i < 33; ++i)
    product[i] = double(at<float>(x, i)) * at<float>(y, i);
  expectNear<float>(had[4], product, 1e-6);

  HostTensor a = random(DType::F64, {16, 8});
  auto out = run(
      "sum", {1, 1, 1},
      {ScalarArg::f64(1), a, ScalarArg::f64(0), poisoned(DType::F64, {16})});
  std::vector<double> want(16, 0);
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 16; ++i)
      want[i] += at<double>(a, i + 16 * j);
  expectNear<double>(out[3], want, 1e-12);
}

TEST_F(E2ETest, BatchedGemmOverGroupId) {
  const int64_t batch = 5;
  HostTensor a = random(DType::F32, {16, 8, batch});
  HostTensor b = random(DType::F32, {8, 12, batch});
  auto out = run("batched", {batch, 1, 1},
                 {a, b, poisoned(DType::F32, {16, 12, batch})});
  ASSERT_EQ(out[2].getNumElements(), 16 * 12 * batch);
  for (int64_t s = 0; s < batch; ++s) {
    SCOPED_TRACE(s);
    HostTensor as(DType::F32, {16, 8}), bs(DType::F32, {8, 12}),
        cs(DType::F32, {16, 12});
    std::memcpy(as.data.data(), a.getData<float>() + s * 128, 128 * 4);
    std::memcpy(bs.data.data(), b.getData<float>() + s * 96, 96 * 4);
    std::memcpy(cs.data.data(), out[2].getData<float>() + s * 192, 192 * 4);
    expectNear<float>(
        cs, gemmReference(false, false, 1, as, bs, 0, nullptr, 16, 12, 8),
        1e-5);
  }
}

TEST_F(E2ETest, BatchedGemmOverGroups) {
  const int64_t batch = 3;
  // Stacked arrays (batch, rows, cols): member s is array[s, :, :].
  HostTensor a = random(DType::F32, {batch, 16, 8});
  HostTensor b = random(DType::F32, {batch, 8, 12});
  auto out = run("batched_group", {batch, 1, 1},
                 {a, b, poisoned(DType::F32, {batch, 16, 12})});
  ASSERT_EQ(out[2].getNumElements(), batch * 16 * 12);
  for (int64_t s = 0; s < batch; ++s) {
    SCOPED_TRACE(s);
    // Column-major over (batch, rows, cols): element [s, i, j] at
    // s + batch * (i + rows * j).
    HostTensor as(DType::F32, {16, 8}), bs(DType::F32, {8, 12}),
        cs(DType::F32, {16, 12});
    for (int64_t j = 0; j < 8; ++j)
      for (int64_t i = 0; i < 16; ++i)
        as.getData<float>()[i + 16 * j] =
            at<float>(a, s + batch * (i + 16 * j));
    for (int64_t j = 0; j < 12; ++j)
      for (int64_t i = 0; i < 8; ++i)
        bs.getData<float>()[i + 8 * j] = at<float>(b, s + batch * (i + 8 * j));
    for (int64_t j = 0; j < 12; ++j)
      for (int64_t i = 0; i < 16; ++i)
        cs.getData<float>()[i + 16 * j] =
            at<float>(out[2], s + batch * (i + 16 * j));
    expectNear<float>(
        cs, gemmReference(false, false, 1, as, bs, 0, nullptr, 16, 12, 8),
        1e-5);
  }
}

TEST_F(E2ETest, ForeachCopyDynamic) {
  for (int64_t n : {1, 7, 33, 65, 1000}) {
    SCOPED_TRACE(n);
    HostTensor a = random(DType::F32, {n});
    auto out = run("copy", {1, 1, 1}, {a, poisoned(DType::F32, {n})});
    EXPECT_EQ(out[1].data, a.data);
  }
}

TEST_F(E2ETest, ElementwiseMath) {
  HostTensor a = random(DType::F32, {65});
  auto out = run("elementwise", {1, 1, 1}, {a, poisoned(DType::F32, {65})});
  std::vector<double> want(65);
  for (int i = 0; i < 65; ++i) {
    double x = at<float>(a, i);
    want[i] = 2 * std::exp(x) - std::abs(x);
  }
  expectNear<float>(out[1], want, 1e-5);
}

TEST_F(E2ETest, AtomicsUnderContention) {
  const int64_t n = 1000;
  const size_t groups = 4;
  HostTensor s(DType::I32, {3});
  s.getData<int32_t>()[0] = 5;
  s.getData<int32_t>()[1] = -1;
  s.getData<int32_t>()[2] = 1;
  auto out = run("atomics", {groups, 1, 1}, {s, ScalarArg::index(n)});
  ASSERT_EQ(out[0].getNumElements(), 3);
  EXPECT_EQ(at<int32_t>(out[0], 0), 5 + int32_t(groups * n));
  EXPECT_EQ(at<int32_t>(out[0], 1), n - 1);
  EXPECT_EQ(at<int32_t>(out[0], 2), -(n - 1));
}

TEST_F(E2ETest, ForWithYieldsAndIf) {
  for (int64_t n : {1, 7, 65}) {
    SCOPED_TRACE(n);
    HostTensor a = random(DType::F64, {n});
    auto out = run("positive_sum", {1, 1, 1}, {a, poisoned(DType::F64, {})});
    double want = 0;
    for (int64_t i = 0; i < n; ++i)
      want += std::max(0.0, at<double>(a, i));
    expectNear<double>(out[1], {want}, 1e-12);
  }
}

TEST_F(E2ETest, Casts) {
  const int64_t n = 33;
  HostTensor a = random(DType::F32, {n});
  auto out = run("casts", {1, 1, 1},
                 {a, poisoned(DType::I32, {n}), poisoned(DType::F64, {n})});
  ASSERT_EQ(out[1].getNumElements(), n);
  for (int64_t i = 0; i < n; ++i) {
    float scaled = at<float>(a, i) * 10.0f;
    int32_t truncated = static_cast<int32_t>(scaled);
    EXPECT_EQ(at<int32_t>(out[1], i), truncated) << i;
    EXPECT_EQ(at<double>(out[2], i), double(truncated) + double(scaled)) << i;
  }
}

TEST_F(E2ETest, AllocaAndBarrier) {
  HostTensor a = random(DType::F32, {64});
  auto out = run("reverse_local", {1, 1, 1}, {a, poisoned(DType::F32, {64})});
  ASSERT_EQ(out[1].getNumElements(), 64);
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(at<float>(out[1], i), at<float>(a, 63 - i)) << i;
}

TEST_F(E2ETest, SubviewExpandFuse) {
  HostTensor a = random(DType::F32, {8, 6});
  HostTensor v = random(DType::F32, {12});
  auto out = run("views", {1, 1, 1},
                 {a, random(DType::F32, {4, 3}), v, random(DType::F32, {3, 4}),
                  random(DType::F32, {48})});
  ASSERT_EQ(out[1].getNumElements(), 12);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(at<float>(out[1], i + 4 * j),
                at<float>(a, (i + 2) + 8 * (j + 1)))
          << i << "," << j;
  // expand and fuse keep the column-major element order.
  EXPECT_EQ(out[3].data, v.data);
  EXPECT_EQ(out[4].data, a.data);
}

TEST_F(E2ETest, ForeachTileWithCoopMatrixRemainders) {
  HostTensor a = random(DType::F32, {70, 64});
  auto out = run("tile_copy", {1, 1, 1},
                 {a, poisoned(DType::F32, {70, 64}), ScalarArg::f32(-3)});
  ASSERT_EQ(out[1].getNumElements(), 70 * 64);
  for (int64_t i = 0; i < 70 * 64; ++i)
    ASSERT_EQ(at<float>(out[1], i), -3.0f * at<float>(a, i)) << i;
}

/// Prints (does not assert) the 256^3 f32 gemm time for the report.
TEST_F(E2ETest, Gemm256Timing) {
  auto entry = executable->getEntry("gemm_256");
  ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
  std::vector<std::optional<DeviceArgument>> arrays;
  std::vector<ArgValue> values;
  for (const ParamType &param : entry->params) {
    auto uploaded =
        uploadArgument(*device, param, random(DType::F32, {256, 256}));
    ASSERT_TRUE(bool(uploaded)) << llvm::toString(uploaded.takeError());
    values.push_back(uploaded->value);
    arrays.push_back(std::move(*uploaded));
  }
  auto timing = executable->run("gemm_256", {1, 1, 1}, values, 10);
  ASSERT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
  double ms = timing->getMedianKernelMs();
  std::printf("gemm 256x256x256 f32: median %.3f ms, %.2f GFLOP/s\n", ms,
              2e-6 * 256 * 256 * 256 / ms);
}

} // namespace
