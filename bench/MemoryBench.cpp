//===- MemoryBench.cpp - Element-wise kernel and the STREAM reference -----===//
//
// bench/kernels/elementwise.tc (O = A + B * C, 16 bytes per element) against
// CLBlast's Hadamard product (Z = X * Y + Z, also 16 bytes per element) on
// the same device and a C++ loop on every core; and a STREAM-triad-like
// loop (a = b + s * c on floats, 12 bytes per element counted as STREAM
// does, on every core) as the memory bandwidth the memory-bound kernels are
// compared with in docs/benchmarks.md.
//
//   bench-memory --benchmark_out=memory.json --benchmark_out_format=json
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"

using namespace comprehend;
using namespace comprehend::bench;

namespace {

void registerElementwise(int64_t length) {
  TcCase c("elementwise", getBenchKernelPath("elementwise.tc"), "elementwise",
           {{"L", length}}, {"O"});
  c.bytes = 4.0 * length * sizeof(float);
  c.tolerance = 1e-6;
  c.makeData = [length](CaseData &data) {
    const std::vector<float> &a = data.inputs["A"] = makeRandom(length, 12);
    const std::vector<float> &b = data.inputs["B"] = makeRandom(length, 13);
    const std::vector<float> &cv = data.inputs["C"] = makeRandom(length, 14);
    data.expected.resize(length);
    for (int64_t i = 0; i < length; ++i)
      data.expected[i] = float(double(a[i]) + double(b[i]) * double(cv[i]));
  };
  registerComprehend(c);

  // Z starts as A; every further call adds B * C again, which moves the
  // same bytes (only the first result is checked).
  registerClblast(
      c, {"B", "C"},
      [](const TcCase &c, llvm::ArrayRef<cl_mem> buffers,
         cl_command_queue *queue, cl_event *event) {
        return clblast::Had<float>(c.size("L"), 1.0f, buffers[0], 0, 1,
                                   buffers[1], 0, 1, 1.0f, buffers[2], 0, 1,
                                   queue, event);
      },
      /*initialOutput=*/"A");

  registerHost(
      c, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        const float *a = data.input("A").data(), *b = data.input("B").data(),
                    *cv = data.input("C").data();
        parallelFor(c.size("L"), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            result[i] = a[i] + b[i] * cv[i];
        });
      });
}

void registerStreamTriad(int64_t length) {
  TcCase c("stream_triad", "", "", {{"L", length}}, {"a"});
  c.bytes = 3.0 * length * sizeof(float);
  c.tolerance = 1e-6;
  constexpr float kScalar = 3.0f;
  c.makeData = [length](CaseData &data) {
    const std::vector<float> &b = data.inputs["b"] = makeRandom(length, 15);
    const std::vector<float> &cv = data.inputs["c"] = makeRandom(length, 16);
    data.expected.resize(length);
    for (int64_t i = 0; i < length; ++i)
      data.expected[i] = float(double(b[i]) + double(kScalar) * double(cv[i]));
  };
  registerHost(
      c, "cpu",
      [](const TcCase &c, const CaseData &data, std::vector<float> &result) {
        const float *b = data.input("b").data(), *cv = data.input("c").data();
        parallelFor(c.size("L"), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            result[i] = b[i] + kScalar * cv[i];
        });
      });
}

} // namespace

void comprehend::bench::registerSuite() {
  // 16 Mi elements: 64 MiB per array, far beyond the caches.
  constexpr int64_t kLength = int64_t(1) << 24;
  registerStreamTriad(kLength);
  registerElementwise(kLength);
}
