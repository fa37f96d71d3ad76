//===- FakeCudaDriver.h - What the fake CUDA driver records -----*- C++ -*-===//
#ifndef COMPREHEND_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
#define COMPREHEND_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

/// The last cuLaunchKernel of the fake driver (FakeCudaDriver.cpp).
struct FakeLaunch {
  std::string kernel;
  std::array<unsigned, 3> grid;
  std::array<unsigned, 3> block;
  unsigned sharedMemBytes = 0;
  /// The CUstream, as an integer.
  uint64_t stream = 0;
  /// The bytes of each parameter, sized from the entry's PTX.
  std::vector<std::vector<uint8_t>> params;
};

extern "C" {
using FakeCudaLastLaunchFn = const FakeLaunch *(*)();
using FakeCudaLiveAllocationsFn = int (*)();
/// How many cuPointerGetAttributes calls the fake driver has answered.
using FakeCudaPointerQueriesFn = int (*)();
}

#endif // COMPREHEND_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
