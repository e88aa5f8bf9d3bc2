// A batch of packed sequences: no padding anywhere, sequence b is ids[offsets[b], offsets[b+1]).
// `rows` are where the vocabulary projection is computed (masked positions in training, scored
// positions in probing); `labels` are the targets there (empty when only scoring; -1: a row that
// is computed but ignored by the loss, see pad_to_shape).
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

// The most a Model must hold at once; buffers are sized from it up front, so the step loop
// never allocates.
struct Capacity {
  int max_seqs = 16;
  int max_tokens = 16 * 128;  // packed rows over the whole batch
  int max_len = 128;          // longest sequence
  int max_rows = 16 * 128;    // scored rows
  // Forward only (scoring): no gradients, no backward scratch, and one layer's activations
  // reused by every layer, so a model replica per thread stays small.
  bool inference_only = false;
};

// Pads a batch to a fixed shape, so that a captured CUDA step (backend/step_graphs.h) can be
// replayed for every batch of that shape: a trailing sequence of pad_id tokens (possibly empty;
// always added) brings the tokens to a multiple of token_multiple, and extra scored rows (row 0,
// label -1) bring the rows to a multiple of row_multiple. Exact: attention never crosses
// sequences and ignored rows carry no loss, so every loss, log-probability and parameter
// gradient is that of the original batch (the extra rows contribute zeros).
void pad_to_shape(Batch& batch, int pad_id, int token_multiple, int row_multiple);
// The capacity for batches of `cap` after pad_to_shape.
Capacity padded_capacity(Capacity cap, int token_multiple, int row_multiple);
// Identifies a batch's shape (sequences, tokens, rows).
uint64_t shape_key(const Batch& batch);

}  // namespace bb
