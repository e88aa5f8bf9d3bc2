// Shared by the `cuda` tests: the skip rule (and, from test_util.h, the error measure).
#pragma once
#include <doctest/doctest.h>

#include <vector>

#include "backend/cuda/device.h"
#include "test_util.h"

// Every case starts with this: without a device it reports "skipped: no CUDA device" (ctest's
// SKIP_REGULAR_EXPRESSION marks the binary skipped) and returns.
#define SKIP_WITHOUT_CUDA_DEVICE()        \
  if (bb::cuda::device_count() == 0) {    \
    MESSAGE("skipped: no CUDA device");   \
    return;                               \
  }

namespace bb::test {

// A host vector's copy on the device.
template <typename T>
bb::cuda::DeviceArray<T> dev(const std::vector<T>& v) {
  return bb::cuda::DeviceArray<T>(v);
}

// max |cuda - cpu| / max |cpu| per output tensor.
constexpr double kTol = 1e-4;

}  // namespace bb::test
