// Shared by the `cuda` tests: the skip rule (and, from test_util.h, the error measure).
#pragma once
#include <doctest/doctest.h>

#include "backend/cuda/device.h"
#include "test_util.h"

// Every case starts with this: without a device it reports "skipped: no CUDA device" (ctest's
// SKIP_REGULAR_EXPRESSION marks the binary skipped) and returns.
#define SKIP_WITHOUT_CUDA_DEVICE()        \
  if (bb::cuda::device_count() == 0) {    \
    MESSAGE("skipped: no CUDA device");   \
    return;                               \
  }
