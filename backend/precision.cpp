#include "backend/precision.h"

#include <cstring>

#include "backend/cpu/bf16_gemm.h"

namespace bb {

Precision parse_precision(const std::string& name) {
  if (name == "fp32") return Precision::fp32;
  if (name == "bf16") return Precision::bf16;
  fail("--precision: unknown precision '{}' (expected fp32 or bf16)", name);
}

std::string precision_name(Precision p) { return p == Precision::bf16 ? "bf16" : "fp32"; }

std::string bf16_isa() { return cpu::bf16_isa(); }
std::string bf16_kernel() { return cpu::bf16_kernel(); }

void require_precision(Precision p, Device device) {
  if (p == Precision::fp32) return;
  if (device == Device::cuda)
    throw UsageError("--precision bf16: bf16 runs on the CPU only (use --device cpu, or fp32 on "
                     "CUDA)");
  const std::string why = cpu::bf16_unavailable();
  if (!why.empty()) throw UsageError("--precision bf16: " + why);
}

void to_bf16(uint16_t* dst, const float* src, int64_t n) {
  // `if (parallel: …)`: an unqualified `if` on a combined construct also applies to its simd
  // part, and GCC then cast every buffer of up to 64k values (most activations) one at a time.
#pragma omp parallel for simd schedule(static) if (parallel : n > (int64_t(1) << 16))
  for (int64_t i = 0; i < n; ++i) dst[i] = to_bf16(src[i]);
}

void LowPrecisionWeights::refresh(const float* params, int64_t n) {
  base_ = params, n_ = n;
  copy_.resize(size_t(n));
  to_bf16(copy_.data(), params, n);
}

const uint16_t* LowPrecisionWeights::of(const float* w) const {
  if (!base_ || w < base_ || w >= base_ + n_) return nullptr;
  return copy_.data() + (w - base_);
}

namespace {
thread_local const LowPrecisionWeights* t_current = nullptr;
}

PrecisionScope::PrecisionScope(const LowPrecisionWeights* w) : saved_(t_current) { t_current = w; }
PrecisionScope::~PrecisionScope() { t_current = saved_; }
const LowPrecisionWeights* current_low_precision() { return t_current; }

}  // namespace bb
