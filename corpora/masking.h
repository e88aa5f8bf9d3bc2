// Masked-language-model masking of one sequence. Each non-special position (not <s>, </s>) is
// chosen with probability `prob`; a chosen token becomes <mask> with probability mask_frac, a
// random non-special token with probability random_frac, else stays unchanged. BabyBERTa: 0.15,
// 0.9, 0.1 (0% unchanged); HF: 0.15, 0.8, 0.1. An empty pattern is redrawn. The pattern is a
// pure function of (key, pattern_id), so a data position reproduces it exactly.
#pragma once
#include <cstdint>
#include <vector>

#include "common/philox.h"

namespace bb {

struct MaskingOptions {
  double prob = 0.15;
  double mask_frac = 0.9;
  double random_frac = 0.1;
  int mask_id = 0;
  int first_normal_id = 5;  // ids below are special and never drawn as random replacements
  int vocab_size = 8192;
};

// ids(L) is modified in place; (row_offset + position, original id) pairs are appended to
// rows/labels. Sequences shorter than 3 (nothing between <s> and </s>) are left alone.
void mask_sequence(int32_t* ids, int L, int row_offset, const MaskingOptions& opt,
                   const Philox& rng, uint64_t pattern_id, std::vector<int32_t>& rows,
                   std::vector<int32_t>& labels);

}  // namespace bb
