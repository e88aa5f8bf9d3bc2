// Synthetic training batches for benchmarks and tests: random token ids, utterance lengths drawn
// from AO-CHILDES's distribution (word counts of aochildes_merged.txt, utterances of >= 3 words;
// tokens = words + words/5 sub-word splits + <s>, </s>: mean 9.2, as the 8192-piece BPE
// tokenizer gives on that corpus: 9.12), BabyBERTa masking.
// A pure function of (seed, step).
#pragma once
#include <cstdint>

#include "common/batch.h"
#include "corpora/masking.h"

namespace bb {

void synthetic_batch(uint64_t seed, int64_t step, int batch_size, const MaskingOptions& masking,
                     int max_len, Batch& out);

}  // namespace bb
