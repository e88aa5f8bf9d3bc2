// A batch of packed sequences: no padding anywhere, sequence b is ids[offsets[b], offsets[b+1]).
// `rows` are where the vocabulary projection is computed (masked positions in training, scored
// positions in probing); `labels` are the targets there (empty when only scoring; -1: a row that
// is computed but ignored by the loss, see encoder/batch.h, pad_to_shape). corpora/ makes them,
// the encoder consumes them.
#pragma once
#include <cstdint>
#include <vector>

namespace bb {

struct Batch {
  std::vector<int32_t> ids;      // (N)
  std::vector<int32_t> offsets;  // (B+1), offsets[0] = 0, offsets[B] = N
  std::vector<int32_t> rows;     // (M) packed row indices
  std::vector<int32_t> labels;   // (M) or empty

  int num_seqs() const { return offsets.empty() ? 0 : int(offsets.size()) - 1; }
  int num_tokens() const { return int(ids.size()); }
  int num_rows() const { return int(rows.size()); }
  void clear() {
    ids.clear();
    offsets.assign(1, 0);
    rows.clear();
    labels.clear();
  }
};

}  // namespace bb
