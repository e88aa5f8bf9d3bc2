// The dropout draw every backend shares, so that a seed gives the same masks on the CPU and on
// CUDA: element c of row `row` uses 16 bits of the Philox block at counter (row, c / 8), so 8
// decisions per block, and is kept iff those bits >= round(p * 65536); kept elements are scaled
// by 1 / (1 - p). Rows are layout-independent ids (see backend/ops.h, dropout_forward).
#pragma once
#include <cmath>
#include <cstdint>

#include "common/philox.h"

namespace bb {

struct DropoutDraw {
  bool on;             // p > 0
  uint32_t threshold;  // round(p * 65536)
  float scale;         // 1 / (1 - p)
  uint64_t key;

  static DropoutDraw make(float p, uint64_t key) {
    return {p > 0, uint32_t(std::lround(double(p) * 65536.0)), p > 0 ? 1.f / (1.f - p) : 1.f,
            key};
  }
  // Decision k (0..7) of a Philox block w.
  BB_HOST_DEVICE bool kept(const uint32_t w[4], int k) const {
    return ((w[k / 2] >> (16 * (k % 2))) & 0xFFFFu) >= threshold;
  }
  // Mask value of element c of row `row`: scale if kept, else 0; 1 when dropout is off.
  BB_HOST_DEVICE float mask(uint64_t row, int c) const {
    if (!on) return 1.f;
    uint32_t w[4];
    Philox{key}.block(row, uint64_t(c / 8), w);
    return kept(w, c % 8) ? scale : 0.f;
  }
};

// The row id of attention probability row i of (sequence b, head h), for DropoutDraw::mask.
BB_HOST_DEVICE inline uint64_t attention_dropout_row(int b, int H, int h, int i) {
  return (uint64_t(b * H + h) << 16) | uint64_t(i);
}

}  // namespace bb
