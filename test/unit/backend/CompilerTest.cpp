//===- CompilerTest.cpp - The backend's public API ------------------------===//
#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/Spirv.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/SpirBridge.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace comprehend;
using namespace comprehend::backend;
using Kind = KernelArg::Kind;

namespace {

/// Parses, verifies and compiles one source for one preset, collecting the
/// diagnostics as text.
struct Compilation {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  ir::Context ctx;
  std::unique_ptr<ir::Program> program;
  std::optional<CompiledProgram> compiled;
  std::string messages;

  Compilation(llvm::StringRef source, llvm::StringRef preset,
              CompileOptions options = {}) {
    diags.setHandler(
        [this](const Diagnostic &diag) { messages += diag.message + "\n"; });
    program = ir::parseSource(ctx, diags, source, "test.ir");
    if (!program || failed(ir::verify(*program, diags)))
      return;
    std::optional<CoreInfo> core = CoreInfo::getPreset(preset);
    options.verifyEachPass = true;
    compiled = compileProgram(*program, *core, options, diags);
  }
};

const char *kCallingConvention = R"(
func @args(%s: f32, %A: memref<f32x?x8>, %B: memref<f64x4x?,strided<1,?>>,
           %G: group<memref<i32x?x4>x?, offset: ?>, %H: group<memref<c32x4>x8>,
           %flag: bool) {
  parallel {
    %c1 = constant 1 : index
    %a = load %A[%c1, %c1] : f32
    %b = cast %a : f64
    store %b, %B[%c1, %c1]
  }
}
)";

TEST(CompilerTest, KernelArgumentsFollowTheCallingConvention) {
  Compilation c(kCallingConvention, "pocl-cpu");
  ASSERT_TRUE(c.compiled) << c.messages;
  ASSERT_EQ(c.compiled->kernels.size(), 1u);
  const KernelInfo &kernel = c.compiled->kernels.front();
  EXPECT_EQ(kernel.name, "args");
  struct Expected {
    Kind kind;
    unsigned param, mode, size;
  };
  const Expected expected[] = {
      {Kind::Scalar, 0, 0, 4},        {Kind::Pointer, 1, 0, 8},
      {Kind::DynamicShape, 1, 0, 8},  {Kind::DynamicStride, 1, 1, 8},
      {Kind::Pointer, 2, 0, 8},       {Kind::DynamicShape, 2, 1, 8},
      {Kind::DynamicStride, 2, 1, 8}, {Kind::GroupPointer, 3, 0, 8},
      {Kind::GroupShape, 3, 0, 8},    {Kind::GroupStride, 3, 1, 8},
      {Kind::GroupSize, 3, 0, 8},     {Kind::GroupOffset, 3, 0, 8},
      {Kind::GroupPointer, 4, 0, 8},  {Kind::Scalar, 5, 0, 1},
  };
  ASSERT_EQ(kernel.args.size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    SCOPED_TRACE("argument " + std::to_string(i));
    EXPECT_EQ(kernel.args[i].kind, expected[i].kind);
    EXPECT_EQ(kernel.args[i].paramIndex, expected[i].param);
    EXPECT_EQ(kernel.args[i].mode, expected[i].mode);
    EXPECT_EQ(kernel.args[i].sizeInBytes, expected[i].size);
  }
}

TEST(CompilerTest, KernelInfoCarriesShapeAndLocalMemory) {
  const char *source = R"(
func @k(%A: memref<f32x64>) attributes {work_group_size = [32, 2]} {
  %a = alloca : memref<f32x64,local>
  %b = alloca : memref<f64x8x4,local>
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  axpby %one, %A, %zero, %a
  axpby %one, %a, %zero, %A
}
)";
  for (llvm::StringRef preset : {"pocl-cpu", "generic-sg16"}) {
    Compilation c(source, preset);
    ASSERT_TRUE(c.compiled) << c.messages;
    const KernelInfo &kernel = c.compiled->kernels.front();
    EXPECT_EQ(kernel.workGroupSize[0], 32u);
    EXPECT_EQ(kernel.workGroupSize[1], 2u);
    EXPECT_EQ(kernel.subgroupSize, preset == "pocl-cpu" ? 1u : 16u);
    EXPECT_EQ(kernel.localMemoryBytes, 64u * 4 + 32u * 8);
  }
}

/// One kernel per family of instructions, each fed through the whole
/// pipeline and the validator for every preset.
const char *kEverything = R"(
func @blas(%A: memref<f32x33x17>, %B: memref<f32x17x9>, %C: memref<f32x33x9>,
           %x: memref<f32x17>, %y: memref<f32x33>, %s: memref<f32>,
           %D: memref<f64x9x33>) {
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm %one, %A, %B, %zero, %C
  gemv %one, %A, %x, %one, %y
  ger.atomic %one, %y, %x, %one, %A
  hadamard %one, %y, %y, %zero, %y
  sum.t %one, %A, %zero, %x
  sum %one, %x, %zero, %s
  cumsum %one, %A, 0, %zero, %A
  axpby.t %one, %C, %one, %D
}

func @scalars(%a: i32, %b: f64, %c: c64, %d: i8, %e: f16, %f: bf16,
              %M: memref<c64x4>, %H: memref<f16x4>, %G: memref<bf16x4>,
              %I: memref<i32x4>) {
  parallel {
    %c0 = constant 0 : index
    %0 = add %a, %a : i32
    %1 = rem %0, %a : i32
    %2 = max %1, %a : i32
    %3 = shr %2, %a : i32
    %4 = div %b, %b : f64
    %5 = min %4, %b : f64
    %6 = native_exp %5 : f64
    %7 = mul %c, %c : c64
    %8 = div %7, %c : c64
    %9 = exp2 %8 : c64
    %10 = abs %9 : f64
    %11 = conj %9 : c64
    %12 = cast %d : c64
    %13 = add %11, %12 : c64
    %14 = less_than %a, %0 : bool
    %15 = not_equal %c, %13 : bool
    %16 = xor %14, %15 : bool
    store %13, %M[%c0]
    %h = load %H[%c0] : f16
    %h2 = add %h, %e : f16
    store %h2, %H[%c0]
    %g = load %G[%c0] : bf16
    %g2 = mul %g, %f : bf16
    store %g2, %G[%c0]
    %old = atomic_add %13, %M[%c0] : c64
    %cmp = atomic_max %a, %I[%c0] : i32
  }
}

func @subgroups(%A: memref<f32x32x32>, %v: memref<i16x64>) {
  parallel {
    %c0 = constant 0 : index
    %lane = subgroup_local_id : i32
    %li = cast %lane : index
    %x = load %v[%li] : i16
    %r = subgroup_reduce_max %x : i16
    %s = subgroup_exclusive_scan_add %x : i16
    %b = subgroup_broadcast %r, %lane : i16
    %sum = add %s, %b : i16
    store %sum, %v[%li]
    %t = cooperative_matrix_load.t.both_checked %A[%c0, %c0] : coopmatrix<f32x32x8,matrix_acc>
    %u = cooperative_matrix_reduce_min.column %t : coopmatrix<f32x1x8,matrix_acc>
    %w = cooperative_matrix_extract %t[0] : f32
    %u2 = cooperative_matrix_scale %w, %u : coopmatrix<f32x1x8,matrix_acc>
    %cv = subview %A[0:1, 0:8] : memref<f32x1x8,strided<1,32>>
    cooperative_matrix_store %u2, %cv[%c0, %c0]
    %z = cooperative_matrix_insert %w, %t[1] : coopmatrix<f32x32x8,matrix_acc>
    %old = cooperative_matrix_atomic_add.rows_checked %z, %A[%c0, %c0] : coopmatrix<f32x32x8,matrix_acc>
  }
}
)";

TEST(CompilerTest, EveryFamilyValidatesForEveryPreset) {
  for (llvm::StringRef preset : CoreInfo::getPresetNames()) {
    SCOPED_TRACE(preset.str());
    Compilation c(kEverything, preset);
    EXPECT_TRUE(c.compiled) << c.messages;
    if (c.compiled) {
      EXPECT_EQ(c.compiled->kernels.size(), 3u);
    }
  }
}

TEST(CompilerTest, ValidationCanBeSkippedButIsOnByDefault) {
  CompileOptions options;
  EXPECT_TRUE(options.validate);
  options.validate = false;
  Compilation c(kCallingConvention, "generic-sg8", options);
  ASSERT_TRUE(c.compiled) << c.messages;
  // The module is valid anyway; validating it afterwards agrees.
  std::optional<CoreInfo> core = CoreInfo::getPreset("generic-sg8");
  EXPECT_FALSE(static_cast<bool>(validateSpirv(c.compiled->spirv, *core)));
}

TEST(CompilerTest, UnsupportedAtomicIsDiagnosed) {
  Compilation c(R"(
func @f(%A: memref<f16x4>, %x: f16) {
  parallel {
    %c0 = constant 0 : index
    %old = atomic_add %x, %A[%c0] : f16
  }
}
)",
                "generic-sg16");
  EXPECT_FALSE(c.compiled);
  EXPECT_EQ(c.messages,
            "cannot emit 'atomic_add' as SPIR-V for target 'generic-sg16': "
            "atomics need 32- or 64-bit elements, but the memref holds f16\n");
}

TEST(CompilerTest, LocalMemoryOverflowIsDiagnosed) {
  const char *source = R"(
func @f() {
  %a = alloca : memref<f64x4096x8,local>
}
)";
  Compilation c(source, "generic-sg16");
  EXPECT_FALSE(c.compiled);
  EXPECT_EQ(c.messages, "alloca of 262144 bytes at offset 0 exceeds the local "
                        "memory of target 'generic-sg16' (65536 bytes)\n");
  // Without the placement pass the emitter allocates and checks each alloca.
  CompileOptions options;
  options.passes = {"work-group-size"};
  Compilation unplaced(source, "generic-sg16", options);
  EXPECT_FALSE(unplaced.compiled);
  EXPECT_EQ(unplaced.messages,
            "alloca of 262144 bytes exceeds the local memory of target "
            "'generic-sg16' (65536 bytes, 0 already allocated)\n");
}

TEST(CompilerTest, UnknownPassIsDiagnosed) {
  CompileOptions options;
  options.passes = {"dce", "no-such-pass"};
  Compilation c(kCallingConvention, "pocl-cpu", options);
  EXPECT_FALSE(c.compiled);
  EXPECT_EQ(c.messages, "unknown backend pass 'no-such-pass'\n");
}

TEST(CompilerTest, CollectiveCodeLeftForTheEmitterIsACompilerBug) {
  CompileOptions options;
  options.passes = {"work-group-size"};
  Compilation c(R"(
func @f(%A: memref<f32x4>) {
  %one = constant 1.0 : f32
  axpby %one, %A, %one, %A
}
)",
                "pocl-cpu", options);
  EXPECT_FALSE(c.compiled);
  EXPECT_NE(c.messages.find("compiler bug: 'axpby' reached SPIR-V emission"),
            std::string::npos)
      << c.messages;
}

TEST(CompilerTest, CoopMatrixLeftForTheEmitterIsACompilerBug) {
  CompileOptions options;
  options.passes = {"work-group-size"};
  Compilation c(R"(
func @f(%A: memref<f32x16x4>, %s: f32) {
  parallel {
    %c0 = constant 0 : index
    %m = cooperative_matrix_load %A[%c0, %c0] : coopmatrix<f32x16x4,matrix_acc>
    %r = cooperative_matrix_scale %s, %m : coopmatrix<f32x16x4,matrix_acc>
    cooperative_matrix_store %r, %A[%c0, %c0]
  }
}
)",
                "pocl-cpu", options);
  EXPECT_FALSE(c.compiled);
  // The first unsplit coopmatrix instruction is reported.
  EXPECT_NE(c.messages.find("compiler bug: 'cooperative_matrix_load' reached "
                            "SPIR-V emission"),
            std::string::npos)
      << c.messages;
}

TEST(CompilerTest, PassTableListsEveryPassOnce) {
  llvm::ArrayRef<PassDescription> passes = getPassDescriptions();
  std::vector<std::string> names;
  for (const PassDescription &pass : passes) {
    EXPECT_FALSE(pass.description.empty()) << pass.name.str();
    names.push_back(pass.name.str());
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (const char *name :
       {"work-group-size", "constant-folding", "lower-collective",
        "insert-barriers", "split-barrier-guards", "lower-foreach",
        "lower-coopmatrix", "dce"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

/// The pocl-cpu modules must survive LLVMSPIRVLib's reverse translation to
/// SPIR 1.2, which is how they reach PoCL.
TEST(CompilerTest, PoclModulesTranslateToSpir12) {
  Compilation c(kEverything, "pocl-cpu");
  ASSERT_TRUE(c.compiled) << c.messages;
  llvm::Expected<std::string> bitcode =
      runtime::translateSpirvToSpir12(c.compiled->spirv);
  ASSERT_TRUE(static_cast<bool>(bitcode))
      << llvm::toString(bitcode.takeError());
  EXPECT_FALSE(bitcode->empty());
}

/// Every valid input of the IR lit tests that runs with subgroup size 1
/// compiles for pocl-cpu and translates to SPIR 1.2.
/// Every coopmatrix operation on pocl-cpu, where columns are vectors: the
/// vector forms (loads with checks, selects on bool vectors, shuffles,
/// vector casts and fma) must survive LLVMSPIRVLib's reverse translation.
TEST(CompilerTest, CoopMatrixVectorsTranslateToSpir12) {
  Compilation c(R"(
func @coop(%A: memref<i32x16x2>, %F: memref<f32x?x?>, %D: memref<f64x12x3>,
           %x: f32, %out: memref<f32x1>) {
  parallel {
    %c0 = constant 0 : index
    %t = cooperative_matrix_load %A[%c0, %c0] : coopmatrix<i32x16x2,matrix_acc>
    %old = cooperative_matrix_atomic_add %t, %A[%c0, %c0] : coopmatrix<i32x16x2,matrix_acc>
    %f = cast %old : coopmatrix<f32x16x2,matrix_acc>
    %g = cooperative_matrix_load.both_checked %F[%c0, %c0] : coopmatrix<f32x16x2,matrix_acc>
    %h = cooperative_matrix_load.cols_checked %F[%c0, %c0] : coopmatrix<f32x16x2,matrix_acc>
    %s = add %f, %g : coopmatrix<f32x16x2,matrix_acc>
    %u = cooperative_matrix_scale %x, %s : coopmatrix<f32x16x2,matrix_acc>
    %v = max %u, %h : coopmatrix<f32x16x2,matrix_acc>
    %e = cooperative_matrix_extract %v[17] : f32
    store %e, %out[%c0]
    %w = cooperative_matrix_insert %x, %v[3] : coopmatrix<f32x16x2,matrix_acc>
    %a = cooperative_matrix_load %F[%c0, %c0] : coopmatrix<f32x16x4,matrix_a>
    %b = cooperative_matrix_load.t %F[%c0, %c0] : coopmatrix<f32x4x2,matrix_b>
    %m = cooperative_matrix_mul_add %a, %b, %w : coopmatrix<f32x16x2,matrix_acc>
    %r = cooperative_matrix_reduce_max.row %m : coopmatrix<f32x16x1,matrix_acc>
    %q = cooperative_matrix_reduce_add.column %m : coopmatrix<f32x1x2,matrix_acc>
    %p = cooperative_matrix_apply (%i, %j, %z) = %r -> coopmatrix<f32x16x1,matrix_acc> {
      %zz = mul %z, %z : f32
      yield (%zz)
    }
    cooperative_matrix_store.rows_checked %p, %F[%c0, %c0]
    cooperative_matrix_store.cols_checked %q, %F[%c0, %c0]
    %d = cooperative_matrix_load %D[%c0, %c0] : coopmatrix<f64x12x3,matrix_acc>
    %dd = cooperative_matrix_construct %e : coopmatrix<f32x12x3,matrix_acc>
    %de = cast %dd : coopmatrix<f64x12x3,matrix_acc>
    %ds = sub %d, %de : coopmatrix<f64x12x3,matrix_acc>
    cooperative_matrix_store %ds, %D[%c0, %c0]
  }
}
)",
                "pocl-cpu");
  ASSERT_TRUE(c.compiled) << c.messages;
  llvm::Expected<std::string> bitcode =
      runtime::translateSpirvToSpir12(c.compiled->spirv);
  EXPECT_TRUE(static_cast<bool>(bitcode))
      << llvm::toString(bitcode.takeError());
}

TEST(CompilerTest, ValidLitInputsTranslateToSpir12) {
  llvm::SmallString<128> dir(COMPREHEND_TEST_DIR);
  llvm::sys::path::append(dir, "lit", "ir", "valid");
  std::error_code error;
  unsigned translated = 0;
  for (llvm::sys::fs::directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    if (llvm::sys::path::extension(it->path()) != ".ir")
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(it->path());
    ASSERT_TRUE(static_cast<bool>(buffer)) << it->path();
    Compilation c((*buffer)->getBuffer(), "pocl-cpu");
    if (!c.program ||
        c.messages.find("is not supported by target") != std::string::npos)
      continue;
    SCOPED_TRACE(it->path());
    ASSERT_TRUE(c.compiled) << c.messages;
    llvm::Expected<std::string> bitcode =
        runtime::translateSpirvToSpir12(c.compiled->spirv);
    EXPECT_TRUE(static_cast<bool>(bitcode))
        << llvm::toString(bitcode.takeError());
    ++translated;
  }
  ASSERT_FALSE(error) << dir.str().str() << ": " << error.message();
  EXPECT_GT(translated, 3u);
}

} // namespace
