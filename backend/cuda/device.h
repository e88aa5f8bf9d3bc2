// CUDA device discovery. The op implementations for CUDA (backend/cuda/*.cu, mirroring
// backend/cpu/) are the CUDA-backend issue's work; this is what the build has today.
#pragma once
#include <string>

namespace bb::cuda {

int device_count();               // 0 when no driver or no device
std::string device_name(int id);  // e.g. "NVIDIA H200"

}  // namespace bb::cuda
