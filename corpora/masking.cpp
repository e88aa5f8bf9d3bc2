#include "corpora/masking.h"

#include "common/error.h"

namespace bb {

void mask_sequence(int32_t* ids, int L, int row_offset, const MaskingOptions& opt,
                   const Philox& rng, uint64_t pattern_id, std::vector<int32_t>& rows,
                   std::vector<int32_t>& labels) {
  if (L < 3) return;
  // Counter (pattern_id, draw * 256 + position): word 0 selects, word 1 picks the replacement
  // kind, word 2 the random token.
  // An empty pattern is redrawn. The bound only matters for absurdly small probabilities (at 0.01
  // and one maskable token, 10,000 empty draws happen with probability 2e-44): then the pattern
  // fails with a message instead of looping for hours.
  for (uint64_t draw = 0; draw < 10000; ++draw) {
    const size_t first = rows.size();
    for (int t = 1; t < L - 1; ++t) {
      uint32_t w[4];
      rng.block(pattern_id, (draw << 8) | uint64_t(t), w);
      if (double(w[0]) * (1.0 / 4294967296.0) >= opt.prob) continue;
      rows.push_back(row_offset + t);
      labels.push_back(ids[t]);
      const double kind = double(w[1]) * (1.0 / 4294967296.0);
      if (kind < opt.mask_frac) {
        ids[t] = opt.mask_id;
      } else if (kind < opt.mask_frac + opt.random_frac) {
        const uint32_t span = uint32_t(opt.vocab_size - opt.first_normal_id);
        ids[t] = opt.first_normal_id + int32_t(w[2] % span);
      }
    }
    if (rows.size() > first) return;
  }
  fail("masking probability {} drew no token to mask in 10,000 tries; use a larger --mask-prob",
       opt.prob);
}

}  // namespace bb
