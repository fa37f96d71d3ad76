//===- CompileBench.cpp - Compile time from text to SPIR-V ----------------===//
//
// Measures the whole in-process pipeline for a 64x64x64 gemm kernel: parse
// (with preprocessing), verify, backend passes and SPIR-V emission, with and
// without the SPIRV-Tools validation, for the PoCL and a subgroup-16 core.
//
//   ninja -C build bench-compile && ./build/bench/bench-compile
//
//===----------------------------------------------------------------------===//
#include "comprehend/backend/Compiler.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include <benchmark/benchmark.h>

using namespace comprehend;

namespace {

const char *kGemm = R"(
func @gemm(%A: memref<f32x64x64>, %B: memref<f32x64x64>, %C: memref<f32x64x64>) {
  %alpha = constant 1.0 : f32
  %beta = constant 0.0 : f32
  gemm %alpha, %A, %B, %beta, %C
}
)";

void compileGemm(benchmark::State &state, const char *preset, bool validate) {
  std::optional<backend::CoreInfo> core = backend::CoreInfo::getPreset(preset);
  backend::CompileOptions options;
  options.validate = validate;
  size_t words = 0;
  for (auto _ : state) {
    llvm::SourceMgr sourceMgr;
    DiagnosticEngine diags(sourceMgr);
    ir::Context ctx;
    std::unique_ptr<ir::Program> program =
        ir::parseSource(ctx, diags, kGemm, "gemm.ir");
    if (!program || failed(ir::verify(*program, diags))) {
      state.SkipWithError("the gemm kernel does not parse or verify");
      return;
    }
    std::optional<backend::CompiledProgram> compiled =
        backend::compileProgram(*program, *core, options, diags);
    if (!compiled) {
      state.SkipWithError("the gemm kernel does not compile");
      return;
    }
    words = compiled->spirv.size();
    benchmark::DoNotOptimize(compiled->spirv.data());
  }
  state.counters["spirv_words"] = static_cast<double>(words);
}

} // namespace

BENCHMARK_CAPTURE(compileGemm, pocl_cpu, "pocl-cpu", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileGemm, pocl_cpu_validated, "pocl-cpu", true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileGemm, generic_sg16, "generic-sg16", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileGemm, generic_sg16_validated, "generic-sg16", true)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
