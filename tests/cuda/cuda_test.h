// Shared by the `cuda` tests: the skip rule (and, from test_util.h, the error measure).
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
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

// Sequences of the given lengths packed back to back, H heads each: where each sequence's tokens
// and its (H, L, L) score blocks start, as ops::AttentionShape takes them.
struct PackedSequences {
  std::vector<int32_t> offsets{0};   // (B+1) token offsets
  std::vector<int64_t> store_at{0};  // (B+1) score offsets
  int B = 0, N = 0;                  // sequences, tokens
  int64_t scores = 0;                // every sequence's H L^2 scores
  PackedSequences(const std::vector<int>& lens, int H) {
    for (int L : lens) {
      offsets.push_back(offsets.back() + L);
      store_at.push_back(store_at.back() + int64_t(H) * L * L);
    }
    B = int(lens.size()), N = offsets.back(), scores = store_at.back();
  }
};

// max |cuda - cpu| / max |cpu| per output tensor.
constexpr double kTol = 1e-4;

}  // namespace bb::test
