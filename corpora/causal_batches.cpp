#include "corpora/causal_batches.h"

#include <algorithm>
#include <numeric>

#include "corpora/next_token_rows.h"
#include "common/error.h"
#include "corpora/length_buckets.h"
#include "corpora/shuffle.h"

namespace bb {

Packing parse_packing(std::string_view name) {
  for (size_t i = 0; i < kPackingNames.size(); ++i)
    if (name == kPackingNames[i]) return Packing(i);
  fail("unknown packing '{}' (expected utterance or packed)", name);
}

CausalBatches::CausalBatches(const TokenizedCorpus& corpus, const CausalBatching& opt,
                             uint64_t seed)
    : corpus_(corpus), opt_(opt), seed_(seed) {
  BB_CHECK(corpus.size() > 0, "no utterances to make batches from");
  BB_CHECK(corpus.size() < (int64_t(1) << 32), "more than 2^32 utterances");
  BB_CHECK(opt.batch_size > 0 && opt.bucket_batches > 0 && opt.block >= 2,
           "batch size and bucket size must be positive, blocks at least 2 tokens");
  build_epoch(0);
}

void CausalBatches::build_epoch(int64_t epoch) {
  if (epoch == epoch_) return;
  const Philox rng{stream_key(seed_, 0xCA05A1)};
  const int64_t n = corpus_.size();
  std::vector<uint32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0u);
  philox_shuffle(order, rng, uint64_t(epoch) * 2);
  epoch_batches_.clear();
  if (opt_.packing == Packing::packed) {
    stream_.clear();
    for (uint32_t u : order)
      stream_.insert(stream_.end(), corpus_.seq(u), corpus_.seq(u) + corpus_.length(u));
    const int64_t blocks = (int64_t(stream_.size()) + opt_.block - 1) / opt_.block;
    for (int64_t b = 0; b < blocks; b += opt_.batch_size) epoch_batches_.push_back(b);
    philox_shuffle(epoch_batches_, rng, uint64_t(epoch) * 2 + 1);
    epoch_ = epoch;
    return;
  }
  bucket_into_batches(order, epoch_batches_, [&](uint32_t u) { return corpus_.length(u); },
                      opt_.batch_size, opt_.bucket_batches, rng, uint64_t(epoch) * 2 + 1);
  order_.swap(order);
  epoch_ = epoch;
}

void CausalBatches::batch(int64_t step, Batch& out) {
  const int64_t per_epoch = batches_per_epoch();
  const int64_t epoch = step / per_epoch, k = step % per_epoch;
  build_epoch(epoch);
  out.clear();
  if (opt_.packing == Packing::packed) {
    const int64_t total = int64_t(stream_.size()), P = opt_.block;
    for (int64_t b = epoch_batches_[size_t(k)]; b < epoch_batches_[size_t(k)] + opt_.batch_size;
         ++b) {
      const int64_t begin = b * P, end = std::min(total, begin + P);
      if (begin >= total) break;
      const int off = out.num_tokens();
      out.ids.insert(out.ids.end(), stream_.begin() + begin, stream_.begin() + end);
      for (int64_t t = begin; t < end; ++t)
        if (t + 1 < total && stream_[size_t(t + 1)] != opt_.bos_id) {
          out.rows.push_back(off + int(t - begin));
          out.labels.push_back(stream_[size_t(t + 1)]);
        }
      out.offsets.push_back(out.num_tokens());
    }
    return;
  }
  const int64_t b = epoch_batches_[size_t(k)];
  const int64_t e = k + 1 < per_epoch ? epoch_batches_[size_t(k) + 1] : int64_t(order_.size());
  for (int64_t i = b; i < e; ++i) {
    const uint32_t u = order_[size_t(i)];
    out.ids.insert(out.ids.end(), corpus_.seq(u), corpus_.seq(u) + corpus_.length(u));
    out.offsets.push_back(out.num_tokens());
  }
  set_next_token_rows(out);
}

double CausalBatches::padding_fraction(int64_t epoch) {
  build_epoch(epoch);
  if (opt_.packing == Packing::packed) return 0;  // blocks are full but for the epoch's last
  return bucket_padding_fraction(order_, epoch_batches_,
                                 [&](uint32_t u) { return corpus_.length(u); });
}

}  // namespace bb
