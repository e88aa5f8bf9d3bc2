// Shared by the `cuda` tests: the skip rule and the error measure.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "backend/cuda/device.h"

// Every case starts with this: without a device it reports "skipped: no CUDA device" (ctest's
// SKIP_REGULAR_EXPRESSION marks the binary skipped) and returns.
#define SKIP_WITHOUT_CUDA_DEVICE()        \
  if (bb::cuda::device_count() == 0) {    \
    MESSAGE("skipped: no CUDA device");   \
    return;                               \
  }

namespace bb::test {

// max |got - want| / max |want| over one tensor of n elements.
inline double rel_err(const float* got, const float* want, int64_t n) {
  double diff = 0, scale = 1e-30;
  for (int64_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::abs(double(got[i]) - double(want[i])));
    scale = std::max(scale, std::abs(double(want[i])));
  }
  return diff / scale;
}

}  // namespace bb::test
