#include "icl/torch_draws.h"

#include <cmath>
#include <numbers>
#include <random>

namespace bb::icl {

namespace {

// at::CPUGeneratorImpl: mt19937 seeded with the seed's low 32 bits (PyTorch's at::mt19937 is the
// standard one), random64 = (first << 32) | second.
struct TorchGenerator {
  std::mt19937 engine;
  explicit TorchGenerator(uint64_t seed) : engine(uint32_t(seed)) {}
  uint32_t random() { return engine(); }
  uint64_t random64() {
    const uint64_t hi = engine(), lo = engine();
    return (hi << 32) | lo;
  }
  // at::uniform_real_distribution<double>(0, 1) and <float>(0, 1).
  double uniform_double() { return double(random64() & ((uint64_t(1) << 53) - 1)) * std::ldexp(1.0, -53); }
  float uniform_float() { return float(random() & ((1u << 24) - 1)) * std::ldexp(1.0f, -24); }
};

// normal_fill_16: data[j], data[j + 8] from the uniforms there (float arithmetic, as PyTorch's
// scalar_t = float path).
void normal_fill_16(float* d) {
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1 - d[j], u2 = d[j + 8];
    const float radius = std::sqrt(-2 * std::log(u1));
    const float theta = 2.0f * std::numbers::pi_v<float> * u2;  // the AVX2 path: float 2 pi
    d[j] = radius * std::cos(theta);
    d[j + 8] = radius * std::sin(theta);
  }
}

}  // namespace

std::vector<float> torch_randn(uint64_t seed, int n) {
  TorchGenerator g(seed);
  std::vector<float> out(size_t(n > 0 ? n : 0));
  if (n < 16) {
    bool cached = false;
    double next = 0;
    for (float& v : out) {
      if (cached) {
        v = float(next);
        cached = false;
        continue;
      }
      const double u1 = g.uniform_double(), u2 = g.uniform_double();
      const double r = std::sqrt(-2.0 * std::log(1.0 - u2)), theta = 2.0 * std::numbers::pi * u1;
      next = r * std::sin(theta), cached = true;
      v = float(r * std::cos(theta));
    }
    return out;
  }
  for (float& v : out) v = g.uniform_float();
  for (int i = 0; i + 16 <= n; i += 16) normal_fill_16(out.data() + i);
  if (n % 16 != 0) {
    float* tail = out.data() + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = g.uniform_float();
    normal_fill_16(tail);
  }
  return out;
}

}  // namespace bb::icl
