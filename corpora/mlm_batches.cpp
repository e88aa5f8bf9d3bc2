#include "corpora/mlm_batches.h"

#include <algorithm>
#include <numeric>

#include "common/error.h"
#include "corpora/length_buckets.h"
#include "corpora/shuffle.h"

namespace bb {

MlmBatches::MlmBatches(const TokenizedCorpus& corpus, const BatchingOptions& opt, uint64_t seed)
    : corpus_(corpus), opt_(opt), seed_(seed) {
  BB_CHECK(corpus.size() > 0, "no utterances to make batches from");
  BB_CHECK(opt.batch_size > 0 && opt.bucket_batches > 0 && opt.mask_patterns >= 0,
           "batch size and bucket size must be positive, mask patterns >= 0");
  items_ = corpus.size() * std::max(1, opt.mask_patterns);
  BB_CHECK(items_ < (int64_t(1) << 32), "corpus x mask patterns exceeds 2^32 items");
  build_epoch(0);
}

void MlmBatches::build_epoch(int64_t epoch) {
  if (epoch == epoch_) return;
  const Philox rng{stream_key(seed_, 0xBA7C4)};
  order_.resize(items_);
  std::iota(order_.begin(), order_.end(), 0u);
  philox_shuffle(order_, rng, uint64_t(epoch) * 2);
  const int P = std::max(1, opt_.mask_patterns);
  bucket_into_batches(
      order_, epoch_batches_, [&](uint32_t item) { return corpus_.length(item / P); },
      opt_.batch_size, opt_.bucket_batches, rng, uint64_t(epoch) * 2 + 1);
  epoch_ = epoch;
}

void MlmBatches::batch(int64_t step, Batch& out) {
  const int64_t per_epoch = int64_t((items_ + opt_.batch_size - 1) / opt_.batch_size);
  const int64_t epoch = step / per_epoch, k = step % per_epoch;
  build_epoch(epoch);
  const int64_t b = epoch_batches_[k];
  const int64_t e = k + 1 < per_epoch ? epoch_batches_[k + 1] : items_;
  const int P = std::max(1, opt_.mask_patterns);
  const Philox mask_rng{stream_key(seed_, 0x3A5C)};
  out.clear();
  for (int64_t i = b; i < e; ++i) {
    const uint32_t item = order_[i];
    const int64_t u = item / P;
    const int off = out.num_tokens(), L = corpus_.length(u);
    out.ids.insert(out.ids.end(), corpus_.seq(u), corpus_.seq(u) + L);
    // BabyBERTa: pattern fixed per (utterance, k); HF: a fresh pattern per (epoch, utterance).
    const uint64_t pattern = opt_.mask_patterns > 0
                                 ? uint64_t(item)
                                 : uint64_t(epoch) * uint64_t(corpus_.size()) + uint64_t(u);
    mask_sequence(out.ids.data() + off, L, off, opt_.masking, mask_rng, pattern, out.rows,
                  out.labels);
    out.offsets.push_back(out.num_tokens());
  }
}

double MlmBatches::padding_fraction(int64_t epoch) {
  build_epoch(epoch);
  const int P = std::max(1, opt_.mask_patterns);
  return bucket_padding_fraction(order_, epoch_batches_,
                                 [&](uint32_t item) { return corpus_.length(item / P); });
}

}  // namespace bb
