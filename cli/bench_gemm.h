// bench gemm: the machine's GEMM peak and what one preset layer's projections get, one JSON line.
#pragma once
#include <string>

#include "backend/device.h"
#include "backend/precision.h"

namespace bb::cli {

struct GemmBenchSettings {
  std::string preset = "babyberta";
  int threads = 1;
  double seconds = 10;
  Device device = Device::cpu;
  Precision precision = Precision::fp32;  // bf16: the bf16 figures besides fp32's
};

// CPU: square sgemm of 1024 through ops::gemm and OpenBLAS, the layer over 512 rows as trained and
// frozen. CUDA: cuBLAS sgemm of 4096 in exact fp32 and on TF32 tensor cores, the layer over 8192
// rows (the CUDA scoring batch) as trained. --precision bf16 (CPU) adds the bf16 square product
// (bf16 inputs, fp32 output, casts not included: the bf16 peak), the layer as trained and frozen
// in bf16, and the three roles of a training step's products (forward, input gradient, weight
// gradient) over 192 tokens in fp32 and bf16, casts of weights and activations included.
void bench_gemm(const GemmBenchSettings& s);

}  // namespace bb::cli
