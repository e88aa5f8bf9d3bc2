// Length-bucketed batches (the masked LM's and the causal LM's one-utterance-per-sequence
// batching): items in an epoch's shuffled order are cut into chunks of batch_size x
// bucket_batches, each chunk sorted by length (stable), cut into batches of batch_size, and the
// batches shuffled; short and long utterances then rarely share a batch (little padding) while the
// epoch stays a shuffled pass. A pure function of the order and the Philox stream.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/philox.h"
#include "corpora/shuffle.h"

namespace bb {

// `order`: in, the epoch's shuffled items; out, the items in batch order (each batch contiguous).
// `batch_starts`: out, where each batch begins in `order`. `length(item)`: the item's tokens.
template <typename Length>
void bucket_into_batches(std::vector<uint32_t>& order, std::vector<int64_t>& batch_starts,
                         const Length& length, int batch_size, int bucket_batches,
                         const Philox& rng, uint64_t stream) {
  const int64_t n = int64_t(order.size());
  const int64_t chunk = int64_t(batch_size) * bucket_batches;
  for (int64_t s = 0; s < n; s += chunk)
    std::stable_sort(order.begin() + s, order.begin() + std::min(n, s + chunk),
                     [&](uint32_t x, uint32_t y) { return length(x) < length(y); });
  std::vector<int64_t> starts;
  for (int64_t s = 0; s < n; s += batch_size) starts.push_back(s);
  philox_shuffle(starts, rng, stream);
  std::vector<uint32_t> ordered;
  ordered.reserve(order.size());
  batch_starts.clear();
  for (int64_t s : starts) {
    batch_starts.push_back(int64_t(ordered.size()));
    ordered.insert(ordered.end(), order.begin() + s, order.begin() + std::min(n, s + batch_size));
  }
  order.swap(ordered);
}

// Mean over the batches of pad / (batch size x longest) had each been padded to its longest.
template <typename Length>
double bucket_padding_fraction(const std::vector<uint32_t>& order,
                               const std::vector<int64_t>& batch_starts, const Length& length) {
  double pad = 0, total = 0;
  for (size_t k = 0; k < batch_starts.size(); ++k) {
    const int64_t b = batch_starts[k];
    const int64_t e = k + 1 < batch_starts.size() ? batch_starts[k + 1] : int64_t(order.size());
    int longest = 0;
    int64_t tokens = 0;
    for (int64_t i = b; i < e; ++i) {
      const int L = length(order[size_t(i)]);
      longest = std::max(longest, L);
      tokens += L;
    }
    pad += double((e - b) * longest - tokens);
    total += double((e - b) * longest);
  }
  return pad / total;
}

}  // namespace bb
