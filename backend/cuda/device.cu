#include <cuda_runtime.h>

#include "backend/cuda/device.h"

namespace bb::cuda {

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string device_name(int id) {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, id) == cudaSuccess ? std::string(p.name) : std::string();
}

}  // namespace bb::cuda
