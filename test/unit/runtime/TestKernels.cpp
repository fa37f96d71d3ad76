//===- TestKernels.cpp - Hand-written SPIR-V kernels for runtime tests ----===//
#include "TestKernels.h"

#include <spirv-tools/libspirv.hpp>

using namespace comprehend::runtime;

static const char *const kModule = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability Int64
               OpCapability Int8
               OpCapability Int16
               OpCapability Float64
        %ext = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %empty "empty"
               OpEntryPoint Kernel %vadd "vadd" %gid
               OpEntryPoint Kernel %fma4 "fma4" %gid
               OpEntryPoint Kernel %scalars "scalars"
               OpEntryPoint Kernel %scale2d "scale2d" %gid
               OpEntryPoint Kernel %group_scale "group_scale" %gid
               OpEntryPoint Kernel %make_vec "make_vec" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
               OpDecorate %gid LinkageAttributes "__spirv_BuiltInGlobalInvocationId" Import
       %void = OpTypeVoid
       %bool = OpTypeBool
      %uchar = OpTypeInt 8 0
     %ushort = OpTypeInt 16 0
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
     %double = OpTypeFloat 64
     %float2 = OpTypeVector %float 2
     %float4 = OpTypeVector %float 4
    %double2 = OpTypeVector %double 2
     %ulong3 = OpTypeVector %ulong 3
    %pulong3 = OpTypePointer Input %ulong3
     %pfloat = OpTypePointer CrossWorkgroup %float
    %pfloat4 = OpTypePointer CrossWorkgroup %float4
     %pulong = OpTypePointer CrossWorkgroup %ulong
     %puchar = OpTypePointer CrossWorkgroup %uchar
    %pushort = OpTypePointer CrossWorkgroup %ushort
      %puint = OpTypePointer CrossWorkgroup %uint
    %pdouble = OpTypePointer CrossWorkgroup %double
    %pfloat2 = OpTypePointer CrossWorkgroup %float2
   %pdouble2 = OpTypePointer CrossWorkgroup %double2
    %ppfloat = OpTypePointer CrossWorkgroup %pfloat
    %ulong_0 = OpConstant %ulong 0
    %ulong_2 = OpConstant %ulong 2
    %ulong_4 = OpConstant %ulong 4
    %ulong_6 = OpConstant %ulong 6
    %ulong_8 = OpConstant %ulong 8
   %ulong_10 = OpConstant %ulong 10
   %ulong_12 = OpConstant %ulong 12
   %ulong_14 = OpConstant %ulong 14
    %ulong_1 = OpConstant %ulong 1
    %ulong_3 = OpConstant %ulong 3
 %float_null = OpConstantNull %float
        %gid = OpVariable %pulong3 Input
     %fn_void = OpTypeFunction %void
     %fn_3buf = OpTypeFunction %void %pfloat %pfloat %pfloat
     %fn_4vec = OpTypeFunction %void %pfloat4 %pfloat4 %pfloat4 %pfloat4
  %fn_scalars = OpTypeFunction %void %pulong %uchar %ushort %uint %ulong %float %double %float2 %double2
  %fn_scale2d = OpTypeFunction %void %pfloat %ulong %ulong %ulong %float
    %fn_group = OpTypeFunction %void %ppfloat %pulong %ulong %float
      %fn_vec = OpTypeFunction %void %pfloat %pfloat4 %pfloat

      %empty = OpFunction %void None %fn_void
         %e0 = OpLabel
               OpReturn
               OpFunctionEnd

       %vadd = OpFunction %void None %fn_3buf
         %va = OpFunctionParameter %pfloat
         %vb = OpFunctionParameter %pfloat
         %vc = OpFunctionParameter %pfloat
         %v0 = OpLabel
        %vg3 = OpLoad %ulong3 %gid Aligned 32
         %vx = OpCompositeExtract %ulong %vg3 0
        %vpa = OpInBoundsPtrAccessChain %pfloat %va %vx
        %vpb = OpInBoundsPtrAccessChain %pfloat %vb %vx
        %vpc = OpInBoundsPtrAccessChain %pfloat %vc %vx
        %vla = OpLoad %float %vpa Aligned 4
        %vlb = OpLoad %float %vpb Aligned 4
       %vsum = OpFAdd %float %vla %vlb
               OpStore %vpc %vsum Aligned 4
               OpReturn
               OpFunctionEnd

       %fma4 = OpFunction %void None %fn_4vec
         %fa = OpFunctionParameter %pfloat4
         %fb = OpFunctionParameter %pfloat4
         %fc = OpFunctionParameter %pfloat4
         %fd = OpFunctionParameter %pfloat4
         %f0 = OpLabel
        %fg3 = OpLoad %ulong3 %gid Aligned 32
         %fx = OpCompositeExtract %ulong %fg3 0
        %fpa = OpInBoundsPtrAccessChain %pfloat4 %fa %fx
        %fpb = OpInBoundsPtrAccessChain %pfloat4 %fb %fx
        %fpc = OpInBoundsPtrAccessChain %pfloat4 %fc %fx
        %fpd = OpInBoundsPtrAccessChain %pfloat4 %fd %fx
        %fla = OpLoad %float4 %fpa Aligned 16
        %flb = OpLoad %float4 %fpb Aligned 16
        %flc = OpLoad %float4 %fpc Aligned 16
        %fr = OpExtInst %float4 %ext fma %fla %flb %flc
               OpStore %fpd %fr Aligned 16
               OpReturn
               OpFunctionEnd

    %scalars = OpFunction %void None %fn_scalars
        %out = OpFunctionParameter %pulong
         %s0 = OpFunctionParameter %uchar
         %s1 = OpFunctionParameter %ushort
         %s2 = OpFunctionParameter %uint
         %s3 = OpFunctionParameter %ulong
         %s4 = OpFunctionParameter %float
         %s5 = OpFunctionParameter %double
         %s6 = OpFunctionParameter %float2
         %s7 = OpFunctionParameter %double2
        %sl0 = OpLabel
        %q0 = OpInBoundsPtrAccessChain %pulong %out %ulong_0
        %c0 = OpBitcast %puchar %q0
               OpStore %c0 %s0 Aligned 1
        %q1 = OpInBoundsPtrAccessChain %pulong %out %ulong_2
        %c1 = OpBitcast %pushort %q1
               OpStore %c1 %s1 Aligned 2
        %q2 = OpInBoundsPtrAccessChain %pulong %out %ulong_4
        %c2 = OpBitcast %puint %q2
               OpStore %c2 %s2 Aligned 4
        %q3 = OpInBoundsPtrAccessChain %pulong %out %ulong_6
               OpStore %q3 %s3 Aligned 8
        %q4 = OpInBoundsPtrAccessChain %pulong %out %ulong_8
        %c4 = OpBitcast %pfloat %q4
               OpStore %c4 %s4 Aligned 4
        %q5 = OpInBoundsPtrAccessChain %pulong %out %ulong_10
        %c5 = OpBitcast %pdouble %q5
               OpStore %c5 %s5 Aligned 8
        %q6 = OpInBoundsPtrAccessChain %pulong %out %ulong_12
        %c6 = OpBitcast %pfloat2 %q6
               OpStore %c6 %s6 Aligned 8
        %q7 = OpInBoundsPtrAccessChain %pulong %out %ulong_14
        %c7 = OpBitcast %pdouble2 %q7
               OpStore %c7 %s7 Aligned 16
               OpReturn
               OpFunctionEnd

    %scale2d = OpFunction %void None %fn_scale2d
         %A = OpFunctionParameter %pfloat
         %m = OpFunctionParameter %ulong
         %n = OpFunctionParameter %ulong
        %s1s = OpFunctionParameter %ulong
      %alpha = OpFunctionParameter %float
        %d0 = OpLabel
        %dg3 = OpLoad %ulong3 %gid Aligned 32
         %dx = OpCompositeExtract %ulong %dg3 0
         %dy = OpCompositeExtract %ulong %dg3 1
       %inx = OpULessThan %bool %dx %m
       %iny = OpULessThan %bool %dy %n
        %in = OpLogicalAnd %bool %inx %iny
              OpSelectionMerge %dend None
              OpBranchConditional %in %dbody %dend
     %dbody = OpLabel
       %off = OpIMul %ulong %dy %s1s
      %off2 = OpIAdd %ulong %off %dx
        %dp = OpInBoundsPtrAccessChain %pfloat %A %off2
        %dv = OpLoad %float %dp Aligned 4
        %dr = OpFMul %float %dv %alpha
              OpStore %dp %dr Aligned 4
              OpBranch %dend
      %dend = OpLabel
              OpReturn
              OpFunctionEnd

%group_scale = OpFunction %void None %fn_group
         %G = OpFunctionParameter %ppfloat
    %shape0 = OpFunctionParameter %pulong
      %size = OpFunctionParameter %ulong
    %galpha = OpFunctionParameter %float
        %g0 = OpLabel
        %gg3 = OpLoad %ulong3 %gid Aligned 32
         %gx = OpCompositeExtract %ulong %gg3 0
         %gy = OpCompositeExtract %ulong %gg3 1
      %gin1 = OpULessThan %bool %gy %size
              OpSelectionMerge %gend None
              OpBranchConditional %gin1 %gcheck %gend
    %gcheck = OpLabel
       %gsp = OpInBoundsPtrAccessChain %pulong %shape0 %gy
       %gsz = OpLoad %ulong %gsp Aligned 8
      %gin2 = OpULessThan %bool %gx %gsz
              OpSelectionMerge %gbodyend None
              OpBranchConditional %gin2 %gbody %gbodyend
     %gbody = OpLabel
       %gpp = OpInBoundsPtrAccessChain %ppfloat %G %gy
      %gptr = OpLoad %pfloat %gpp Aligned 8
       %gep = OpInBoundsPtrAccessChain %pfloat %gptr %gx
        %gv = OpLoad %float %gep Aligned 4
        %gr = OpFMul %float %gv %galpha
              OpStore %gep %gr Aligned 4
              OpBranch %gbodyend
  %gbodyend = OpLabel
              OpBranch %gend
      %gend = OpLabel
              OpReturn
              OpFunctionEnd

   %make_vec = OpFunction %void None %fn_vec
        %ma = OpFunctionParameter %pfloat
      %mout = OpFunctionParameter %pfloat4
     %mzero = OpFunctionParameter %pfloat
        %m0 = OpLabel
       %mg3 = OpLoad %ulong3 %gid Aligned 32
        %mx = OpCompositeExtract %ulong %mg3 0
       %mx4 = OpIMul %ulong %mx %ulong_4
       %mi1 = OpIAdd %ulong %mx4 %ulong_1
       %mi2 = OpIAdd %ulong %mx4 %ulong_2
       %mi3 = OpIAdd %ulong %mx4 %ulong_3
       %mp0 = OpInBoundsPtrAccessChain %pfloat %ma %mx4
       %mp1 = OpInBoundsPtrAccessChain %pfloat %ma %mi1
       %mp2 = OpInBoundsPtrAccessChain %pfloat %ma %mi2
       %mp3 = OpInBoundsPtrAccessChain %pfloat %ma %mi3
       %mv0 = OpLoad %float %mp0 Aligned 4
       %mv1 = OpLoad %float %mp1 Aligned 4
       %mv2 = OpLoad %float %mp2 Aligned 4
       %mv3 = OpLoad %float %mp3 Aligned 4
      %mvec = OpCompositeConstruct %float4 %mv3 %mv2 %mv1 %mv0
       %mpo = OpInBoundsPtrAccessChain %pfloat4 %mout %mx
              OpStore %mpo %mvec Aligned 16
       %mpz = OpInBoundsPtrAccessChain %pfloat %mzero %mx
              OpStore %mpz %float_null Aligned 4
              OpReturn
              OpFunctionEnd
)";

llvm::StringRef comprehend::runtime::test::getTestModuleText() {
  return kModule;
}

llvm::Expected<std::vector<uint32_t>>
comprehend::runtime::test::assembleSpirv(llvm::StringRef text) {
  std::string messages;
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &position,
                               const char *message) {
    messages += std::to_string(position.index) + ": " + message + "\n";
  });
  std::vector<uint32_t> words;
  if (!tools.Assemble(text.data(), text.size(), &words))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "assembly failed: " + messages);
  if (!tools.Validate(words))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "validation failed: " + messages);
  return words;
}
