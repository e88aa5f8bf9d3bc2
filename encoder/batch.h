// What the encoder needs to know of batches (common/batch.h) beyond their contents: the capacity
// a Model is sized for, and fixed shapes for captured CUDA steps.
#pragma once
#include <cstdint>

#include "common/batch.h"

namespace bb {

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

namespace bb {

// Rank `rank` of `ranks`'s share of a global batch for data parallelism: the contiguous sequences
// [floor(rank B / ranks), floor((rank+1) B / ranks)) with their scored rows and labels, re-indexed
// from 0; empty for some ranks when the batch has fewer sequences than ranks (an epoch's short
// last batch). Returns the global index of its first sequence (StepContext::first_seq).
int take_share(const Batch& global, int rank, int ranks, Batch& share);
// Rows with a label >= 0 (the tokens the loss averages over).
int labelled_rows(const Batch& batch);

}  // namespace bb
