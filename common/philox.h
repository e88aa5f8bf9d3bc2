// Philox4x32-10 (Salmon et al. 2011): a counter-based generator. A random number is a pure
// function of (key, counter), so dropout masks and initial weights do not depend on thread
// count or launch order, and a CUDA kernel can reproduce them exactly.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

// Callable from CUDA kernels too (backend/cuda/dropout.cu draws the same masks).
#ifdef __CUDACC__
#define BB_HOST_DEVICE __host__ __device__
#else
#define BB_HOST_DEVICE
#endif

namespace bb {

struct Philox {
  uint64_t key;  // e.g. seed mixed with a stream id

  // Four independent 32-bit words for the 128-bit counter (hi, lo).
  BB_HOST_DEVICE static inline void round(uint32_t c[4], uint32_t k[2]) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c[0] = hi1 ^ c[1] ^ k[0];
    c[1] = lo1;
    c[2] = hi0 ^ c[3] ^ k[1];
    c[3] = lo0;
  }
  BB_HOST_DEVICE void block(uint64_t hi, uint64_t lo, uint32_t out[4]) const {
    uint32_t c[4] = {uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32)};
    uint32_t k[2] = {uint32_t(key), uint32_t(key >> 32)};
    for (int r = 0; r < 10; ++r) {
      round(c, k);
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) out[i] = c[i];
  }
  // Uniform in [0, 1) with 24 random bits, from word 0 of counter (hi, lo).
  float uniform(uint64_t hi, uint64_t lo) const {
    uint32_t w[4];
    block(hi, lo, w);
    return float(w[0] >> 8) * (1.0f / 16777216.0f);
  }
  // Standard normal by Box-Muller from words 0 and 1.
  double normal(uint64_t hi, uint64_t lo) const {
    uint32_t w[4];
    block(hi, lo, w);
    const double u1 = (double(w[0]) + 1.0) / 4294967297.0;  // (0, 1)
    const double u2 = double(w[1]) / 4294967296.0;          // [0, 1)
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// SplitMix64 finaliser: derives well-mixed keys from (seed, stream) pairs.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
inline uint64_t stream_key(uint64_t seed, uint64_t stream) { return mix64(seed ^ mix64(stream)); }

// FNV-1a of a name (a tensor's): a stream id that does not depend on where the tensor sits, so
// that models of different functions with one seed start from the same weights wherever they have
// the same tensors (paired seeds).
inline uint64_t name_stream(std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

}  // namespace bb
