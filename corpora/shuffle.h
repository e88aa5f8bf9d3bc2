// Fisher-Yates with Philox draws: a permutation that is a pure function of (key, stream).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "common/philox.h"

namespace bb {

template <typename T>
void philox_shuffle(std::vector<T>& v, const Philox& rng, uint64_t stream) {
  for (size_t i = v.size(); i > 1; --i) {
    uint32_t w[4];
    rng.block(stream, uint64_t(i), w);
    const uint64_t r = (uint64_t(w[0]) << 32 | w[1]) % i;
    std::swap(v[i - 1], v[r]);
  }
}

}  // namespace bb
