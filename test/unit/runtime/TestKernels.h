//===- TestKernels.h - Hand-written SPIR-V kernels for runtime tests -*- C++
//-*-===//
//
// The runtime tests do not depend on the backend: they run SPIR-V assembled
// from text, in the OpenCL 1.2 shape the SPIR bridge needs (Addresses,
// Kernel, Linkage, Int64; built-ins imported through LinkageAttributes; no
// Generic storage class). All kernels sit in one module so that PoCL builds
// it once.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TEST_UNIT_RUNTIME_TESTKERNELS_H
#define COMPREHEND_TEST_UNIT_RUNTIME_TESTKERNELS_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace comprehend::runtime::test {

/// Kernels (one work-item per element unless said otherwise):
///   empty()
///   vadd(float *a, float *b, float *c)            c[x] = a[x] + b[x]
///   fma4(float4 *a, float4 *b, float4 *c, float4 *d)  d[x] = fma(a, b, c)
///   scalars(ulong *out, char, short, int, long, float, double, float2,
///           double2)  stores argument k at byte 16 * k of out
///   scale2d(float *A, long m, long n, long s1, float alpha)
///       memref<f32x?x?,strided<1,?>>: A[x + y*s1] *= alpha if x<m, y<n
///   group_scale(float **G, long *shape0, long size, float alpha)
///       group<memref<f32x?>x?>: G[y][x] *= alpha if y<size, x<shape0[y]
///   make_vec(float *a, float4 *out, float *zero)
///       out[x] = (a[4x+3], a[4x+2], a[4x+1], a[4x]) built with
///       OpCompositeConstruct of loaded scalars; zero[x] = OpConstantNull:
///       both crash LLVMSPIRVLib 15 unless the bridge rewrites them
llvm::StringRef getTestModuleText();

/// Assembles and validates (OpenCL 1.2 environment) a SPIR-V text.
llvm::Expected<std::vector<uint32_t>> assembleSpirv(llvm::StringRef text);

} // namespace comprehend::runtime::test

#endif
