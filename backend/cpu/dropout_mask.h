// One row of a dropout mask from Philox: element c of row `row` uses 16 bits of the block at
// counter (row, c / 8), so 8 decisions per Philox block. Kept iff bits >= round(p * 65536).
// Shared by dropout_forward and attention_forward so every site draws the same way.
#pragma once
#include <cmath>
#include <cstdint>

#include "common/philox.h"

namespace bb::ops {

template <typename T>
inline void dropout_mask_row(T* mask, uint64_t key, uint64_t row, int C, float p) {
  const Philox rng{key};
  const uint32_t threshold = uint32_t(std::lround(double(p) * 65536.0));
  const T scale = T(1) / (T(1) - T(p));
  for (int c0 = 0; c0 < C; c0 += 8) {
    uint32_t w[4];
    rng.block(row, uint64_t(c0 / 8), w);
    for (int k = 0; k < 8 && c0 + k < C; ++k) {
      const uint32_t bits = (w[k / 2] >> (16 * (k % 2))) & 0xFFFFu;
      mask[c0 + k] = bits >= threshold ? scale : T(0);
    }
  }
}

}  // namespace bb::ops
