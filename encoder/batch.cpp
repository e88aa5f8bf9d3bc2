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

int take_share(const Batch& global, int rank, int ranks, Batch& share) {
  const int B = global.num_seqs();
  BB_CHECK(ranks >= 1 && rank >= 0 && rank < ranks, "internal: rank {} of {}", rank, ranks);
  const int b0 = int(int64_t(rank) * B / ranks), b1 = int(int64_t(rank + 1) * B / ranks);
  const int t0 = global.offsets[size_t(b0)], t1 = global.offsets[size_t(b1)];
  share.clear();
  share.ids.assign(global.ids.begin() + t0, global.ids.begin() + t1);
  for (int b = b0 + 1; b <= b1; ++b) share.offsets.push_back(global.offsets[size_t(b)] - t0);
  for (int m = 0; m < global.num_rows(); ++m) {
    const int r = global.rows[size_t(m)];
    if (r < t0 || r >= t1) continue;
    share.rows.push_back(r - t0);
    if (!global.labels.empty()) share.labels.push_back(global.labels[size_t(m)]);
  }
  return b0;
}

int labelled_rows(const Batch& batch) {
  return int(std::count_if(batch.labels.begin(), batch.labels.end(), [](int32_t t) { return t >= 0; }));
}

}  // namespace bb
