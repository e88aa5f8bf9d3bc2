// Included by each backend/cpu op file: the op's CPU body starts with BB_RUN_ON_CUDA(op, args...),
// which forwards the call to backend/cuda's twin when the calling thread's current device is
// CUDA (float only) and is empty in builds without CUDA. So backend/ops.h is the one op list,
// and the encoder never knows which device runs it.
#pragma once
#include <type_traits>

#include "backend/device.h"

#ifdef BABYBERTA_HAVE_CUDA
#include "backend/cuda/ops.h"
#include "common/error.h"
#define BB_RUN_ON_CUDA(op, ...)                                                      \
  if (::bb::current_device() == ::bb::Device::cuda) {                               \
    if constexpr (std::is_same_v<T, float>) {                                        \
      return ::bb::cuda::op(__VA_ARGS__);                                            \
    } else {                                                                         \
      ::bb::fail("internal: " #op " in double precision has no CUDA implementation"); \
    }                                                                                \
  }
#define BB_RUN_ON_CUDA_FLOAT(op, ...) \
  if (::bb::current_device() == ::bb::Device::cuda) return ::bb::cuda::op(__VA_ARGS__);
#else
#define BB_RUN_ON_CUDA(op, ...)
#define BB_RUN_ON_CUDA_FLOAT(op, ...)
#endif
