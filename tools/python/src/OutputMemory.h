//===- OutputMemory.h - Memory of the arrays calls return -------*- C++ -*-===//
//
// The outputs `TcKernel.call_fresh` returns are new host memory on every
// call. Memory of a megabyte or more comes from the system (glibc serves it
// with mmap) and is faulted in, a page at a time, by the kernel's first
// stores: at 4096 x 2048 floats that cost more than the softmax kernel
// itself (bench/results/autograd.txt). Blocks of that size are kept when
// their array dies, up to a bound, and given to the next output of the
// same size, whose pages are then resident; blocks of 2 MiB or more are
// also aligned to and marked for huge pages, so that a new one faults in
// 2 MiB at a time (softmax forward + backward at 4096 x 2048 with every
// output new: 32-37 -> 11-12 ms).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_PYTHON_OUTPUTMEMORY_H
#define COMPREHEND_PYTHON_OUTPUTMEMORY_H

#include <cstddef>

namespace comprehend::python {

/// Where an output's memory starts: a multiple of the alignment at which
/// the CPU device reads host memory in place, so that an output passed on
/// to another call is not copied (comprehend/_arrays.py, HOST_ALIGNMENT, is
/// the same).
constexpr size_t kOutputAlignment = 256;

/// \p bytes of memory aligned to kOutputAlignment (a kept block when one of
/// that size is free); nullptr when the system has none.
void *acquireOutputMemory(size_t bytes);
/// Gives back memory from acquireOutputMemory, kept for reuse or freed.
void releaseOutputMemory(void *memory);
/// Frees every kept block; the bytes it freed.
size_t releaseKeptOutputMemory();
/// The bytes of the blocks kept now.
size_t getKeptOutputBytes();

} // namespace comprehend::python

#endif // COMPREHEND_PYTHON_OUTPUTMEMORY_H
