//===- PtxTest.cpp - SPIR-V to PTX for NVIDIA cores -----------------------===//
//
// emitPtx runs without a GPU: these tests check the PTX text (entries,
// launch bounds, warp shuffles, no unresolved calls) and the errors; the
// driver JIT-compiling the PTX is what only a GPU machine checks.
//
//===----------------------------------------------------------------------===//
#include "comprehend/backend/Ptx.h"
#include "ptx/PtxInternal.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

using namespace comprehend;
using namespace comprehend::backend;

namespace {

/// SPIR-V of \p source compiled for the nvidia-sm80 preset.
std::vector<uint32_t> compileForNvidia(llvm::StringRef source) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  std::string messages;
  diags.setHandler(
      [&](const Diagnostic &diag) { messages += diag.message + "\n"; });
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, source, "test.ir");
  EXPECT_TRUE(program && succeeded(ir::verify(*program, diags))) << messages;
  if (!program)
    return {};
  CompileOptions options;
  options.verifyEachPass = true;
  std::optional<CompiledProgram> compiled = compileProgram(
      *program, *CoreInfo::getPreset("nvidia-sm80"), options, diags);
  EXPECT_TRUE(compiled) << messages;
  return compiled ? compiled->spirv : std::vector<uint32_t>();
}

/// The kind of \p error, which must be a PtxError; its message and
/// function go to \p message and \p function.
PtxError::Kind getKind(llvm::Error error, std::string &message,
                       std::string &function) {
  PtxError::Kind kind = PtxError::Kind::Internal;
  bool isPtxError = false;
  llvm::handleAllErrors(std::move(error), [&](const PtxError &ptx) {
    kind = ptx.getKind();
    message = ptx.message();
    function = ptx.getFunction();
    isPtxError = true;
  });
  EXPECT_TRUE(isPtxError);
  return kind;
}

/// The module header of the hand-written SPIR-V below.
const char *const kSpirvHeader = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL)";

/// How emitPtx for nvidia-sm80 failed on a module.
struct Failure {
  PtxError::Kind kind = PtxError::Kind::Internal;
  std::string message, function;
};

/// Assembles SPIR-V \p text and emits PTX from it, which must fail.
Failure emitAssembled(const std::string &text) {
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  std::vector<uint32_t> spirv;
  EXPECT_TRUE(tools.Assemble(text, &spirv)) << text;
  Failure failure;
  llvm::Expected<std::string> ptx =
      emitPtx(spirv, *CoreInfo::getPreset("nvidia-sm80"));
  EXPECT_FALSE(bool(ptx));
  if (!ptx)
    failure.kind = getKind(ptx.takeError(), failure.message, failure.function);
  return failure;
}

const char *kKernels = R"(
func @rows(%A: memref<f32x128>, %S: memref<f32x128>)
    attributes {work_group_size = [64, 2], subgroup_size = 32} {
  parallel {
    %sg32 = subgroup_linear_id : i32
    %sl32 = subgroup_local_id : i32
    %sg = cast %sg32 : index
    %sl = cast %sl32 : index
    %c32 = constant 32 : index
    %base = mul %sg, %c32 : index
    %x = add %base, %sl : index
    %a = load %A[%x] : f32
    %s = subgroup_reduce_add %a : f32
    store %s, %S[%x]
  }
}
func @scale(%alpha: f32, %X: memref<f64x?>) {
  %c0 = constant 0 : index
  %n = size %X[0] : index
  foreach (%i) = (%c0), (%n) {
    %x = load %X[%i] : f64
    %a = cast %alpha : f64
    %y = mul %a, %x : f64
    store %y, %X[%i]
  }
}
)";

} // namespace

TEST(PtxTest, NvidiaCoreFollowsTheDevice) {
  CoreInfo core = makeNvidiaCoreInfo(90, 48 * 1024, 1024, 64 * 1024, 132);
  EXPECT_EQ(core.name, "nvidia-sm90");
  EXPECT_TRUE(core.isNvidia());
  EXPECT_EQ(core.cudaComputeCapability, 90u);
  EXPECT_EQ(core.subgroupSizes, (llvm::SmallVector<unsigned, 4>{32}));
  EXPECT_EQ(core.defaultSubgroupSize(), 32u);
  EXPECT_EQ(core.maxWorkGroupSize, 1024u);
  EXPECT_EQ(core.localMemoryBytes, 48u * 1024);
  EXPECT_EQ(core.computeUnits, 132u);
  EXPECT_EQ(core.registerBudget, 128u);
  EXPECT_TRUE(core.dedicatedLocalMemory);
  std::optional<CoreInfo> preset = CoreInfo::getPreset("nvidia-sm80");
  ASSERT_TRUE(preset);
  EXPECT_EQ(preset->cudaComputeCapability, 80u);
  EXPECT_EQ(preset->localMemoryBytes, 48u * 1024);
  EXPECT_FALSE(CoreInfo::getPreset("pocl-cpu")->isNvidia());
  EXPECT_FALSE(CoreInfo::getPreset("generic-sg32")->isNvidia());
}

TEST(PtxTest, TargetIsClampedToWhatLlvm15Knows) {
  auto target = [](unsigned capability) {
    PtxTarget t = getPtxTarget(capability);
    return std::make_pair(t.sm, t.ptxVersion);
  };
  EXPECT_EQ(target(75), std::make_pair(75u, 70u));
  EXPECT_EQ(target(80), std::make_pair(80u, 70u));
  EXPECT_EQ(target(86), std::make_pair(86u, 71u));
  EXPECT_EQ(target(89), std::make_pair(86u, 71u));
  EXPECT_EQ(target(90), std::make_pair(86u, 71u));
}

TEST(PtxTest, EveryKernelIsAnEntryWithItsLaunchBounds) {
  std::vector<uint32_t> spirv = compileForNvidia(kKernels);
  ASSERT_FALSE(spirv.empty());
  llvm::Expected<std::string> ptx =
      emitPtx(spirv, *CoreInfo::getPreset("nvidia-sm80"));
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target sm_80"), std::string::npos);
  EXPECT_NE(ptx->find(".visible .entry rows("), std::string::npos);
  EXPECT_NE(ptx->find(".reqntid 64, 2, 1"), std::string::npos);
  EXPECT_NE(ptx->find(".visible .entry scale("), std::string::npos);
  // The subgroup sum: five butterfly steps over the warp.
  size_t shuffles = 0;
  for (size_t at = ptx->find("shfl.sync.bfly"); at != std::string::npos;
       at = ptx->find("shfl.sync.bfly", at + 1))
    ++shuffles;
  EXPECT_EQ(shuffles, 5u);
  EXPECT_EQ(ptx->find(".extern"), std::string::npos);
  // The same module for a newer GPU: PTX the driver JIT-compiles for it.
  ptx = emitPtx(spirv, makeNvidiaCoreInfo(90, 48 * 1024, 1024, 65536, 132));
  ASSERT_TRUE(bool(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target sm_86"), std::string::npos);
  EXPECT_NE(ptx->find(".version 7.1"), std::string::npos);
}

TEST(PtxTest, OtherCoresAreRefused) {
  std::vector<uint32_t> spirv = compileForNvidia(kKernels);
  std::string message, function;
  llvm::Expected<std::string> ptx =
      emitPtx(spirv, *CoreInfo::getPreset("generic-sg32"));
  ASSERT_FALSE(bool(ptx));
  EXPECT_EQ(getKind(ptx.takeError(), message, function),
            PtxError::Kind::Unsupported);
  EXPECT_NE(message.find("'generic-sg32' is not an NVIDIA GPU"),
            std::string::npos)
      << message;
}

TEST(PtxTest, MissingLibclcIsNamed) {
  std::vector<uint32_t> spirv = compileForNvidia(kKernels);
  PtxOptions options;
  options.libclcPath = "/nonexistent/nvptx64--nvidiacl.bc";
  EXPECT_EQ(getLibclcNvptxPath(options), options.libclcPath);
  std::string message, function;
  llvm::Expected<std::string> ptx =
      emitPtx(spirv, *CoreInfo::getPreset("nvidia-sm80"), options);
  ASSERT_FALSE(bool(ptx));
  EXPECT_EQ(getKind(ptx.takeError(), message, function),
            PtxError::Kind::MissingLibclc);
  EXPECT_NE(message.find(options.libclcPath), std::string::npos) << message;
}

/// A call to a function nothing defines is a compiler error that names it,
/// never PTX that the driver rejects at load time.
TEST(PtxTest, UnresolvedCallIsAnError) {
  // A kernel that hands its buffer to an imported function.
  std::string text = std::string(kSpirvHeader) + R"(
               OpEntryPoint Kernel %kernel "fill"
               OpDecorate %fill LinkageAttributes "comprehend_missing_fn" Import
       %void = OpTypeVoid
      %float = OpTypeFloat 32
     %global = OpTypePointer CrossWorkgroup %float
     %fillTy = OpTypeFunction %void %global
    %fill = OpFunction %void None %fillTy
     %target = OpFunctionParameter %global
               OpFunctionEnd
     %kernel = OpFunction %void None %fillTy
     %buffer = OpFunctionParameter %global
      %entry = OpLabel
       %call = OpFunctionCall %void %fill %buffer
               OpReturn
               OpFunctionEnd
)";
  Failure failure = emitAssembled(text);
  EXPECT_EQ(failure.kind, PtxError::Kind::UnresolvedFunction);
  const std::string &message = failure.message;
  EXPECT_EQ(failure.function, "comprehend_missing_fn");
  EXPECT_NE(message.find("'comprehend_missing_fn'"), std::string::npos)
      << message;
}

/// SPIR's constant address space (2) has no equal number in NVPTX; a
/// module with it is refused, not miscompiled (the emitter never makes one
/// for an OpenCL 1.2-shaped core).
TEST(PtxTest, ConstantAddressSpaceIsRefused) {
  std::string text = std::string(kSpirvHeader) + R"(
               OpEntryPoint Kernel %kernel "copy_constant"
       %void = OpTypeVoid
      %float = OpTypeFloat 32
        %one = OpConstant %float 1
   %constPtr = OpTypePointer UniformConstant %float
  %globalPtr = OpTypePointer CrossWorkgroup %float
      %table = OpVariable %constPtr UniformConstant %one
     %kernTy = OpTypeFunction %void %globalPtr
     %kernel = OpFunction %void None %kernTy
        %out = OpFunctionParameter %globalPtr
      %entry = OpLabel
      %value = OpLoad %float %table
               OpStore %out %value
               OpReturn
               OpFunctionEnd
)";
  Failure failure = emitAssembled(text);
  EXPECT_EQ(failure.kind, PtxError::Kind::Unsupported);
  const std::string &message = failure.message;
  EXPECT_NE(message.find("address space 2 (SPIR constant)"), std::string::npos)
      << message;
}

/// Code generation may call what the IR did not (a libcall for an
/// operation NVPTX cannot select): the PTX's own `.extern .func` lines are
/// checked too, in the forms the NVPTX printer writes them.
TEST(PtxTest, ExternFunctionsInPtxAreNamed) {
  struct Case {
    const char *ptx;
    const char *function;
  };
  const Case cases[] = {
      {".version 7.0\n.extern .func  (.param .b32 func_retval0) expf\n(\n"
       "\t.param .b32 expf_param_0\n)\n;\n",
       "expf"},
      {".extern .func _Z4sinhf\n(\n\t.param .b32 p\n)\n;\n", "sinh(float)"},
      {".extern .func __nv_trap()\n;\n", "__nv_trap"},
  };
  for (const Case &c : cases) {
    std::string message, function;
    EXPECT_EQ(getKind(ptx::checkResolvedPtx(c.ptx), message, function),
              PtxError::Kind::UnresolvedFunction)
        << c.ptx;
    EXPECT_EQ(function, c.function) << message;
  }
  EXPECT_FALSE(
      bool(ptx::checkResolvedPtx(".visible .entry k()\n{\n\tret;\n}\n")));
}
