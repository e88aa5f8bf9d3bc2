// bench gemm: the machine's GEMM peak and what one preset layer's projections get, one JSON line.
#pragma once
#include <string>

#include "backend/device.h"

namespace bb::cli {

struct GemmBenchSettings {
  std::string preset = "babyberta";
  int threads = 1;
  double seconds = 10;
  Device device = Device::cpu;
};

// CPU: square sgemm of 1024 through ops::gemm and OpenBLAS, the layer over 512 rows as trained and
// frozen. CUDA: cuBLAS sgemm of 4096 in exact fp32 and on TF32 tensor cores, the layer over 8192
// rows (the CUDA scoring batch) as trained.
void bench_gemm(const GemmBenchSettings& s);

}  // namespace bb::cli
