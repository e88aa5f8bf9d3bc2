// One row of a dropout mask, drawn as backend/dropout_draw.h says (one Philox block per 8
// elements). Shared by dropout_forward and attention_forward so every site draws the same way.
#pragma once
#include <cstdint>

#include "backend/dropout_draw.h"

namespace bb::cpu {

template <typename T>
inline void dropout_mask_row(T* mask, uint64_t key, uint64_t row, int C, float p) {
  const DropoutDraw draw = DropoutDraw::make(p, key);
  const T scale = T(1) / (T(1) - T(p));  // in T: double for the finite-difference tests
  for (int c0 = 0; c0 < C; c0 += 8) {
    uint32_t w[4];
    Philox{key}.block(row, uint64_t(c0 / 8), w);
    for (int k = 0; k < 8 && c0 + k < C; ++k) mask[c0 + k] = draw.kept(w, k) ? scale : T(0);
  }
}

}  // namespace bb::cpu
