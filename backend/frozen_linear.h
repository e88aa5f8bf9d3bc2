// Linear with frozen weights: a CPU-only inference op (float), apart from the device ops of
// backend/ops.h because it has no CUDA twin. For a model whose weights no longer change (the
// scorer's replicas), freeze_linear copies W(out,in) once into oneDNN's blocked layout;
// linear_frozen_forward then computes y(N,out) = x(N,in) W^T + bias(out) with the bias fused into
// the product, sparing the re-packing of W that cblas does on every call (bench/RESULTS.md: ~15%
// of a pll run). Equal to ops::linear_forward up to the order of float rounding. After W changes,
// freeze it again (oneDNN's copy does not follow W). Precision::bf16 (backend/precision.h): W is
// rounded to bf16 once and x at each call; the product accumulates in fp32. In a build without oneDNN
// (-DBABYBERTA_ONEDNN=OFF) it keeps W's address and runs the cblas linear_forward. One
// FrozenLinear serves one thread at a time (it caches one compiled kernel per row count).
#pragma once
#include <memory>

#include "backend/precision.h"

namespace bb {
namespace cpu {
class FrozenLinear;  // backend/cpu/frozen_linear.cpp
}

namespace ops {

using FrozenLinear = cpu::FrozenLinear;
std::shared_ptr<FrozenLinear> freeze_linear(const float* W, int in, int out,
                                           Precision p = Precision::fp32);
// Fails unless the calling thread's current device is the CPU.
void linear_frozen_forward(float* y, const float* x, FrozenLinear& W, const float* bias, int N);
// "onednn X.Y.Z" or "cblas": what linear_frozen_forward runs on (benchmarks report it).
const char* frozen_linear_backend();

}  // namespace ops
}  // namespace bb
