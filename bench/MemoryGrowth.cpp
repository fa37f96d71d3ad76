//===- MemoryGrowth.cpp - Resident memory over many distinct defs ---------===//
//
// The C++ API variant of bench/memory_growth.py (issue 34): one process
// compiles and runs N distinct defs `B(n, m) = A(n, m) * i + 3` on 8 x 8
// through api::TcKernel, checks each result and drops the kernel, printing
// the resident set size every EVERY defs. Not a timed test.
//
//   build/bench/bench-memory-growth [N=2000] [EVERY=250]
//
// Exits 1 when the RSS after N defs exceeds 1.2x the RSS after the first
// report at or after 500 defs (or on a wrong result).
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace comprehend;

/// VmRSS of this process in MB.
static double getRssMb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

/// Compiles, runs and checks def number \p i; false on a wrong result.
static bool runOne(runtime::Runtime &rt, int i, const std::vector<float> &a) {
  std::string name = "scaled" + std::to_string(i);
  std::string source = "def " + name + "(float(N, M) A) -> (B) {\n" +
                       "  B(n, m) = A(n, m) * " + std::to_string(i) +
                       " + 3\n}\n";
  auto kernel =
      api::TcKernel::compileText(rt, source, name, {{"N", 8}, {"M", 8}});
  if (!kernel) {
    llvm::errs() << llvm::toString(kernel.takeError()) << "\n";
    return false;
  }
  std::vector<float> b(a.size());
  size_t bytes = a.size() * sizeof(float);
  llvm::cantFail((*kernel)->write("A", a.data(), bytes));
  llvm::cantFail((*kernel)->run(1).takeError());
  llvm::cantFail((*kernel)->read("B", b.data(), bytes));
  for (size_t k = 0; k < a.size(); ++k)
    if (std::fabs(b[k] - (a[k] * i + 3)) > 1e-3f * (1 + std::fabs(b[k])))
      return false;
  return true;
}

int main(int argc, char **argv) {
  int defs = argc > 1 ? std::atoi(argv[1]) : 2000;
  int every = argc > 2 ? std::atoi(argv[2]) : 250;
  auto rt = runtime::Runtime::create();
  if (!rt) {
    llvm::errs() << llvm::toString(rt.takeError()) << "\n";
    return 3;
  }
  std::vector<float> a(64);
  for (size_t k = 0; k < a.size(); ++k)
    a[k] = std::sin(0.37f * k);
  double base = 0;
  llvm::outs() << "    defs   RSS (MB)\n";
  for (int i = 1; i <= defs; ++i) {
    if (!runOne(**rt, i, a)) {
      llvm::errs() << "def " << i << " failed\n";
      return 1;
    }
    if (i % every == 0 || i == defs) {
      double rss = getRssMb();
      if (base == 0 && i >= 500)
        base = rss;
      llvm::outs() << llvm::format("%8d %10.1f\n", i, rss);
      llvm::outs().flush();
    }
  }
  if (base == 0)
    return 0;
  double ratio = getRssMb() / base;
  llvm::outs() << llvm::format("RSS after %d defs / after 500: %.3f\n", defs,
                               ratio);
  return ratio <= 1.2 ? 0 : 1;
}
