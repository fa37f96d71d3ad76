//===- OpenCL.h - The OpenCL headers as the runtime uses them ---*- C++ -*-===//
//
// One place that fixes the targeted OpenCL API version before including the
// Khronos headers, so every file sees the same declarations.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_OPENCL_H
#define COMPREHEND_RUNTIME_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#endif // COMPREHEND_RUNTIME_OPENCL_H
