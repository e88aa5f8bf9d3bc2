#include "encoder/batch.h"

#include <algorithm>

#include "common/error.h"

namespace bb {

static int round_up(int n, int multiple) { return (n + multiple - 1) / multiple * multiple; }

void pad_to_shape(Batch& batch, int pad_id, int token_multiple, int row_multiple) {
  BB_CHECK(token_multiple >= 1 && row_multiple >= 1, "internal: pad_to_shape multiples < 1");
  BB_CHECK(!batch.labels.empty() || batch.rows.empty(),
           "internal: pad_to_shape needs a batch with labels");
  const int N = batch.num_tokens();
  batch.ids.resize(size_t(round_up(N, token_multiple)), pad_id);
  batch.offsets.push_back(batch.num_tokens());
  const int M = round_up(batch.num_rows(), row_multiple);
  batch.rows.resize(size_t(M), 0);
  batch.labels.resize(size_t(M), -1);
}

Capacity padded_capacity(Capacity cap, int token_multiple, int row_multiple) {
  cap.max_seqs += 1;
  cap.max_tokens = round_up(cap.max_tokens, token_multiple);
  cap.max_rows = round_up(cap.max_rows, row_multiple);
  cap.max_len = std::max(cap.max_len, token_multiple - 1);
  return cap;
}

uint64_t shape_key(const Batch& batch) {
  return (uint64_t(batch.num_seqs()) << 48) | (uint64_t(batch.num_tokens()) << 24) |
         uint64_t(batch.num_rows());
}

}  // namespace bb
