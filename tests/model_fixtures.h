// Small configs and batches shared by the encoder tests.
#pragma once
#include "corpora/synthetic.h"
#include "encoder/batch.h"
#include "encoder/config.h"

namespace bb::test {

// A model small enough for finite differences over every parameter tensor.
inline Config micro_config(AttentionFunction scoring) {
  Config c = preset("tiny");
  c.vocab_size = 24, c.hidden = 8, c.heads = 2, c.ffn = 12, c.layers = 2, c.max_positions = 14;
  c.attention = scoring;
  c.head_value(AttentionFunction::ssa, 0).init = 0.8;
  c.head_value(AttentionFunction::ssa, 1).init = 1.7;
  c.init_std = 0.4;  // large weights: attention far from uniform, every path exercised
  return c;
}

// Three sequences of lengths 5, 3, 7 (incl. <s>, </s>), four scored rows.
inline Batch micro_batch() {
  Batch b;
  b.ids = {3, 7, 0, 9, 4, 3, 12, 4, 3, 15, 6, 0, 0, 21, 4};
  b.offsets = {0, 5, 8, 15};
  b.rows = {2, 6, 11, 12};
  b.labels = {11, 5, 8, 19};
  return b;
}

inline Capacity capacity_for(const Batch& b, int max_len) {
  return {b.num_seqs(), b.num_tokens(), max_len, b.num_rows()};
}

}  // namespace bb::test
