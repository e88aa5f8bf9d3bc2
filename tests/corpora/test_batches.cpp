// MLM batches: shapes, padding mask implied by packing, bucketing, epochs, resume.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "corpora/mlm_batches.h"

using namespace bb;

namespace {
TokenizedCorpus lengths_corpus(int n) {
  TokenizedCorpus c;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> s = {3};
    const int words = 1 + (i * 7919) % 23;  // lengths 3..25
    for (int w = 0; w < words; ++w) s.push_back(5 + (i + w) % 90);
    s.push_back(4);
    c.push(s);
  }
  return c;
}
}  // namespace

TEST_CASE("batches: 16 sequences, offsets, scored rows and labels consistent") {
  const TokenizedCorpus c = lengths_corpus(1000);
  MlmBatches batches(c, {.masking = {.vocab_size = 100}}, 1);
  CHECK(batches.items_per_epoch() == 10000);
  CHECK(batches.batches_per_epoch() == 625);
  Batch b;
  batches.batch(3, b);
  CHECK(b.num_seqs() == 16);
  CHECK(b.offsets.front() == 0);
  CHECK(b.offsets.back() == b.num_tokens());
  CHECK(b.rows.size() == b.labels.size());
  CHECK(b.num_rows() >= 16);  // every sequence has at least one masked token
  for (int s = 0; s < b.num_seqs(); ++s) {
    CHECK(b.ids[b.offsets[s]] == 3);
    CHECK(b.ids[b.offsets[s + 1] - 1] == 4);
  }
  for (int32_t r : b.rows) CHECK((b.ids[r] == 0 || b.ids[r] >= 5));
}

TEST_CASE("an epoch visits every (utterance, pattern) exactly once") {
  const TokenizedCorpus c = lengths_corpus(100);
  MlmBatches batches(c, {.batch_size = 7, .mask_patterns = 3, .bucket_batches = 4,
                         .masking = {.vocab_size = 100}}, 2);
  std::map<std::vector<int32_t>, int> seen;  // each sequence's unmasked ids -> count
  Batch b;
  int64_t seqs = 0;
  for (int64_t k = 0; k < batches.batches_per_epoch(); ++k) {
    batches.batch(k, b);
    seqs += b.num_seqs();
    std::vector<int32_t> ids = b.ids;
    for (int r = 0; r < b.num_rows(); ++r) ids[b.rows[r]] = b.labels[r];  // undo the masking
    for (int q = 0; q < b.num_seqs(); ++q)
      ++seen[{ids.begin() + b.offsets[q], ids.begin() + b.offsets[q + 1]}];
  }
  CHECK(seqs == 300);
  CHECK(batches.batches_per_epoch() == 43);  // ceil(300 / 7)
  // The 100 utterances are distinct; each comes once per mask pattern (short ones can get the
  // same mask from several patterns, so only the count per utterance is checked).
  CHECK(seen.size() == 100);
  for (int64_t i = 0; i < c.size(); ++i) CHECK(seen[{c.seq(i), c.seq(i) + c.length(i)}] == 3);
}

TEST_CASE("length bucketing reduces padding") {
  const TokenizedCorpus c = lengths_corpus(5000);
  MlmBatches bucketed(c, {.masking = {.vocab_size = 100}}, 1);
  MlmBatches plain(c, {.bucket_batches = 1, .masking = {.vocab_size = 100}}, 1);
  const double pb = bucketed.padding_fraction(), pp = plain.padding_fraction();
  MESSAGE("padding fraction: bucketed " << pb << ", unbucketed " << pp);
  CHECK(pb < 0.05);
  CHECK(pp > 0.3);
}

TEST_CASE("batches are a pure function of (seed, step): a resumed run sees the same ones") {
  const TokenizedCorpus c = lengths_corpus(300);
  const BatchingOptions opt{.masking = {.vocab_size = 100}};
  MlmBatches a(c, opt, 5), b(c, opt, 5), other(c, opt, 6);
  Batch x, y, z;
  a.batch(500, x);  // epoch 2 (188 batches per epoch)
  b.batch(500, y);  // fresh object, straight to the step
  other.batch(500, z);
  CHECK(x.ids == y.ids);
  CHECK(x.rows == y.rows);
  CHECK(x.ids != z.ids);
  a.batch(3, x);
  b.batch(3, y);
  CHECK(x.ids == y.ids);
}

TEST_CASE("BabyBERTa patterns repeat across epochs; HF patterns are fresh each visit") {
  TokenizedCorpus c;
  c.push({3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 4});
  auto masks = [&](int patterns) {
    MlmBatches m(c, {.batch_size = 1, .mask_patterns = patterns, .masking = {.vocab_size = 100}},
                 9);
    std::set<std::vector<int32_t>> distinct;
    Batch b;
    for (int step = 0; step < 40; ++step) {
      m.batch(step, b);
      distinct.insert(b.rows);
    }
    return distinct.size();
  };
  CHECK(masks(2) <= 2);
  CHECK(masks(0) > 10);
}
