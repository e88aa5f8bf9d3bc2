// The causal LM's scored rows: every position of a sequence but its last, labelled with the token
// after it (next-token prediction from <s> on, </s> included as a target).
#pragma once
#include <cstddef>

#include "common/batch.h"

namespace bb {

// Replaces b.rows and b.labels: for sequence s of length L, rows offsets[s] .. offsets[s] + L - 2
// with labels ids[row + 1] (a sequence of one token has none).
inline void set_next_token_rows(Batch& b) {
  b.rows.clear();
  b.labels.clear();
  for (int s = 0; s < b.num_seqs(); ++s)
    for (int t = b.offsets[size_t(s)]; t + 1 < b.offsets[size_t(s) + 1]; ++t) {
      b.rows.push_back(t);
      b.labels.push_back(b.ids[size_t(t) + 1]);
    }
}

}  // namespace bb
