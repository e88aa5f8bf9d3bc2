// Training batches from a tokenised corpus, a pure function of (seed, step), so a resumed run
// sees exactly the batches it would have seen.
//   BabyBERTa recipe (mask_patterns = K > 0): the training set is every utterance x K fixed mask
//   patterns; an epoch is one shuffled pass over it. HF recipe (mask_patterns = 0): one item per
//   utterance with a fresh pattern at every visit.
// Length bucketing: each epoch's shuffled items are cut into chunks of `bucket_batches` batches,
// each chunk is sorted by length and cut into batches, and the batch order is shuffled again.
#pragma once
#include <cstdint>
#include <vector>

#include "common/batch.h"
#include "corpora/batch_stream.h"
#include "corpora/corpus.h"
#include "corpora/masking.h"

namespace bb {

struct BatchingOptions {
  int batch_size = 16;
  int mask_patterns = 10;    // 0: HF recipe
  int bucket_batches = 100;  // batches per sorted chunk; 1 disables bucketing
  MaskingOptions masking{};
};

class MlmBatches final : public BatchStream {
 public:
  MlmBatches(const TokenizedCorpus& corpus, const BatchingOptions& opt, uint64_t seed);

  int64_t batches_per_epoch() const override { return int64_t(epoch_batches_.size()); }
  int64_t items_per_epoch() const { return items_; }
  // Batch `step` (0-based over all epochs).
  void batch(int64_t step, Batch& out) override;
  // Mean over the epoch's batches of pad / (batch_size x longest) had they been padded.
  double padding_fraction(int64_t epoch = 0) override;

 private:
  void build_epoch(int64_t epoch);

  const TokenizedCorpus& corpus_;
  BatchingOptions opt_;
  uint64_t seed_;
  int64_t items_;
  int64_t epoch_ = -1;
  std::vector<uint32_t> order_;               // items of the current epoch, in batch order
  std::vector<int64_t> epoch_batches_;        // start of each batch in order_
};

}  // namespace bb
