//===- ModuleBuilderTest.cpp - SPIR-V module builder ----------------------===//
#include "spv/ModuleBuilder.h"

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/backend/Spirv.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace comprehend::backend;
using namespace comprehend::backend::spv;

namespace {

CoreInfo getCore(llvm::StringRef name) {
  std::optional<CoreInfo> core = CoreInfo::getPreset(name);
  EXPECT_TRUE(core.has_value());
  return *core;
}

std::string validationMessage(llvm::ArrayRef<uint32_t> words,
                              const CoreInfo &core) {
  llvm::Error error = validateSpirv(words, core);
  return error ? llvm::toString(std::move(error)) : std::string();
}

/// The OpenCL boilerplate every kernel module needs.
void addKernelModeSetting(ModuleBuilder &builder) {
  builder.addCapability(::spv::CapabilityAddresses);
  builder.addCapability(::spv::CapabilityKernel);
  builder.addCapability(::spv::CapabilityInt64);
  builder.addCapability(::spv::CapabilityLinkage);
  builder.getExtInstImport("OpenCL.std");
  builder.setMemoryModel(::spv::AddressingModelPhysical64,
                         ::spv::MemoryModelOpenCL);
}

/// Builds `kernel void scale(global float *a) { a[gid] = fma(a[gid], 2, 1); }`
/// the way PoCL needs it (runtime/include/comprehend/runtime/SpirBridge.h):
/// the built-in imported with a LinkageAttributes decoration.
std::vector<uint32_t> buildScaleKernel() {
  ModuleBuilder builder;
  addKernelModeSetting(builder);
  Id ocl = builder.getExtInstImport("OpenCL.std");
  Id voidTy = builder.getVoidType();
  Id f32 = builder.getFloatType(32);
  Id i64 = builder.getIntType(64);
  Id v3i64 = builder.getVectorType(i64, 3);
  Id inputPtr = builder.getPointerType(::spv::StorageClassInput, v3i64);
  Id globalPtr = builder.getPointerType(::spv::StorageClassCrossWorkgroup, f32);
  Id gid = builder.addGlobalVariable(inputPtr, ::spv::StorageClassInput);
  builder.addDecoration(gid, ::spv::DecorationBuiltIn,
                        {::spv::BuiltInGlobalInvocationId});
  builder.addDecoration(gid, ::spv::DecorationConstant);
  builder.addLinkageDecoration(gid, "__spirv_BuiltInGlobalInvocationId",
                               ::spv::LinkageTypeImport);
  Id fnTy = builder.getFunctionType(voidTy, {globalPtr});
  Id fn = builder.allocateId();
  Id param = builder.allocateId();
  builder.addEntryPoint(::spv::ExecutionModelKernel, fn, "scale", {gid});
  builder.addExecutionMode(fn, ::spv::ExecutionModeLocalSize, {16, 1, 1});
  builder.addName(param, "a");
  Id two = builder.getConstantFloat(f32, 2.0);
  Id one = builder.getConstantFloat(f32, 1.0);

  InstructionStream &code = builder.getFunctions();
  code.emit(::spv::OpFunction,
            {voidTy, fn, ::spv::FunctionControlMaskNone, fnTy});
  code.emit(::spv::OpFunctionParameter, {globalPtr, param});
  code.emit(::spv::OpLabel, {builder.allocateId()});
  Id gidVec = builder.allocateId();
  code.emit(::spv::OpLoad, {v3i64, gidVec, gid});
  Id index = builder.allocateId();
  code.emit(::spv::OpCompositeExtract, {i64, index, gidVec, 0});
  Id ptr = builder.allocateId();
  code.emit(::spv::OpInBoundsPtrAccessChain, {globalPtr, ptr, param, index});
  Id value = builder.allocateId();
  code.emit(::spv::OpLoad, {f32, value, ptr});
  Id result = builder.allocateId();
  code.emit(::spv::OpExtInst,
            {f32, result, ocl, 26 /* fma */, value, two, one});
  code.emit(::spv::OpStore, {ptr, result});
  code.emit(::spv::OpReturn, {});
  code.emit(::spv::OpFunctionEnd, {});
  return builder.finalize();
}

TEST(ModuleBuilderTest, LiteralStringsAreNulTerminatedAndPadded) {
  llvm::SmallVector<Word, 4> words;
  appendLiteralString(words, "abcd");
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0], 0x64636261u);
  EXPECT_EQ(words[1], 0u);
  words.clear();
  appendLiteralString(words, "abc");
  ASSERT_EQ(words.size(), 1u);
  EXPECT_EQ(words[0], 0x00636261u);
}

TEST(ModuleBuilderTest, TypesAndConstantsAreUniqued) {
  ModuleBuilder builder;
  Id f32 = builder.getFloatType(32);
  EXPECT_EQ(builder.getFloatType(32), f32);
  EXPECT_NE(builder.getFloatType(64), f32);
  Id i32 = builder.getIntType(32);
  EXPECT_NE(i32, f32);
  EXPECT_EQ(builder.getVectorType(f32, 4), builder.getVectorType(f32, 4));
  EXPECT_NE(builder.getVectorType(f32, 4), builder.getVectorType(f32, 2));
  // Same bits, different types: different constants.
  EXPECT_NE(builder.getConstantInt(i32, 0), builder.getConstantFloat(f32, 0));
  EXPECT_EQ(builder.getConstantInt(i32, 7), builder.getConstantInt(i32, 7));
  EXPECT_EQ(builder.getConstantBool(true), builder.getConstantBool(true));
  EXPECT_NE(builder.getConstantBool(true), builder.getConstantBool(false));
  EXPECT_EQ(builder.getExtInstImport("OpenCL.std"),
            builder.getExtInstImport("OpenCL.std"));
  Id ptr = builder.getPointerType(::spv::StorageClassWorkgroup, f32);
  EXPECT_EQ(builder.getTypeInfo(ptr).elementType, f32);
  EXPECT_EQ(builder.getTypeInfo(ptr).storage, ::spv::StorageClassWorkgroup);
  EXPECT_EQ(builder.getTypeInfo(builder.getVectorType(i32, 3)).count, 3u);
}

TEST(ModuleBuilderTest, NegativeIntegersAreTruncatedToTheirWidth) {
  ModuleBuilder builder;
  Id i8 = builder.getIntType(8);
  EXPECT_EQ(builder.getConstantInt(i8, uint64_t(-1)),
            builder.getConstantInt(i8, 0xff));
}

TEST(ModuleBuilderTest, HeaderAndSectionOrder) {
  std::vector<uint32_t> words = buildScaleKernel();
  ASSERT_GT(words.size(), 5u);
  EXPECT_EQ(words[0], ::spv::MagicNumber);
  EXPECT_EQ(words[1], 0x00010000u);
  // Capabilities come first, then extensions, imports, memory model.
  EXPECT_EQ(words[5] & 0xffff, unsigned(::spv::OpCapability));
  auto text = disassembleSpirv(words);
  ASSERT_TRUE(static_cast<bool>(text)) << llvm::toString(text.takeError());
  size_t capability = text->find("OpCapability Kernel");
  size_t import = text->find("OpExtInstImport \"OpenCL.std\"");
  size_t model = text->find("OpMemoryModel Physical64 OpenCL");
  size_t entry = text->find("OpEntryPoint Kernel");
  size_t decoration =
      text->find("LinkageAttributes "
                 "\"__spirv_BuiltInGlobalInvocationId\" Import");
  size_t function = text->find("OpFunction ");
  ASSERT_NE(decoration, std::string::npos) << *text;
  EXPECT_LT(capability, import);
  EXPECT_LT(import, model);
  EXPECT_LT(model, entry);
  EXPECT_LT(entry, decoration);
  EXPECT_LT(decoration, function);
}

TEST(ModuleBuilderTest, ScaleKernelValidatesForEveryPreset) {
  std::vector<uint32_t> words = buildScaleKernel();
  for (llvm::StringRef preset : CoreInfo::getPresetNames())
    EXPECT_EQ(validationMessage(words, getCore(preset)), "") << preset.str();
}

TEST(ModuleBuilderTest, ValidationReportsTheValidatorMessage) {
  // A kernel without OpReturn: the block has no terminator.
  ModuleBuilder builder;
  addKernelModeSetting(builder);
  Id voidTy = builder.getVoidType();
  Id fnTy = builder.getFunctionType(voidTy, {});
  Id fn = builder.allocateId();
  builder.addEntryPoint(::spv::ExecutionModelKernel, fn, "broken", {});
  InstructionStream &code = builder.getFunctions();
  code.emit(::spv::OpFunction,
            {voidTy, fn, ::spv::FunctionControlMaskNone, fnTy});
  code.emit(::spv::OpLabel, {builder.allocateId()});
  code.emit(::spv::OpFunctionEnd, {});
  std::string message =
      validationMessage(builder.finalize(), getCore("pocl-cpu"));
  EXPECT_NE(message, "");
  EXPECT_NE(message.find("(word "), std::string::npos) << message;
}

TEST(ModuleBuilderTest, DecorationsAreDeduplicated) {
  ModuleBuilder builder;
  Id f32 = builder.getFloatType(32);
  Id ptr = builder.getPointerType(::spv::StorageClassWorkgroup, f32);
  Id var = builder.addGlobalVariable(ptr, ::spv::StorageClassWorkgroup);
  builder.addDecoration(var, ::spv::DecorationAlignment, {16});
  builder.addDecoration(var, ::spv::DecorationAlignment, {16});
  builder.addCapability(::spv::CapabilityKernel);
  builder.addCapability(::spv::CapabilityKernel);
  auto text = disassembleSpirv(builder.finalize());
  ASSERT_TRUE(static_cast<bool>(text)) << llvm::toString(text.takeError());
  llvm::StringRef ref(*text);
  EXPECT_EQ(ref.count("OpDecorate"), 1u) << *text;
  EXPECT_EQ(ref.count("OpCapability Kernel"), 1u) << *text;
}

TEST(ModuleBuilderTest, HalfConstantsRoundToNearestEven) {
  ModuleBuilder builder;
  Id f16 = builder.getFloatType(16);
  EXPECT_EQ(builder.getConstantFloat(f16, 1.0),
            builder.getConstantFloatBits(f16, 0x3c00));
  EXPECT_EQ(builder.getConstantFloat(f16, -2.0),
            builder.getConstantFloatBits(f16, 0xc000));
  EXPECT_EQ(builder.getConstantFloat(f16, 65536.0),
            builder.getConstantFloatBits(f16, 0x7c00));
}

} // namespace
