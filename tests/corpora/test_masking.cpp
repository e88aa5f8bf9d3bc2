// Masking statistics over many draws, determinism, resampled empty patterns.
#include <doctest/doctest.h>

#include "corpora/masking.h"

using namespace bb;

namespace {
struct Counts {
  int64_t positions = 0, masked = 0, to_mask = 0, to_random = 0, unchanged = 0, specials_hit = 0;
};

Counts draw(const MaskingOptions& opt, int draws, int L) {
  const Philox rng{42};
  Counts c;
  for (int d = 0; d < draws; ++d) {
    std::vector<int32_t> ids(L);
    ids[0] = 3, ids[L - 1] = 4;
    for (int t = 1; t < L - 1; ++t) ids[t] = 100 + t;
    const auto orig = ids;
    std::vector<int32_t> rows, labels;
    mask_sequence(ids.data(), L, 0, opt, rng, uint64_t(d), rows, labels);
    c.positions += L - 2;
    c.masked += int64_t(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      const int t = rows[k];
      if (t == 0 || t == L - 1) ++c.specials_hit;
      CHECK(labels[k] == orig[t]);
      if (ids[t] == opt.mask_id) ++c.to_mask;
      else if (ids[t] == orig[t]) ++c.unchanged;
      else ++c.to_random;
    }
    CHECK(ids[0] == 3);
    CHECK(ids[L - 1] == 4);
  }
  return c;
}
}  // namespace

TEST_CASE("BabyBERTa masking: 15% of tokens, 90% <mask>, 10% random, 0% unchanged") {
  const MaskingOptions opt;  // BabyBERTa's defaults
  const Counts c = draw(opt, 20000, 30);
  // 560,000 positions: the rate's standard error is 0.0005; tolerate 6 sigma (+ the resampling
  // of empty patterns, which adds (0.85^28) ~ 1% of a mask per draw at this length).
  CHECK(double(c.masked) / c.positions == doctest::Approx(0.15).epsilon(0.02));
  CHECK(double(c.to_mask) / c.masked == doctest::Approx(0.9).epsilon(0.01));
  CHECK(double(c.to_random) / c.masked == doctest::Approx(0.1).epsilon(0.06));
  CHECK(double(c.unchanged) / c.masked < 0.001);  // only a random draw of the same token
  CHECK(c.specials_hit == 0);
}

TEST_CASE("HF masking: 80% <mask>, 10% random, 10% unchanged") {
  const MaskingOptions opt{.mask_frac = 0.8, .random_frac = 0.1};
  const Counts c = draw(opt, 20000, 30);
  CHECK(double(c.to_mask) / c.masked == doctest::Approx(0.8).epsilon(0.01));
  CHECK(double(c.to_random + c.unchanged) / c.masked == doctest::Approx(0.2).epsilon(0.03));
  CHECK(double(c.unchanged) / c.masked == doctest::Approx(0.1).epsilon(0.06));
}

TEST_CASE("empty patterns are redrawn: every sequence with a maskable token gets a mask") {
  const MaskingOptions opt;
  const Philox rng{7};
  for (int d = 0; d < 500; ++d) {
    std::vector<int32_t> ids = {3, 50, 4}, rows, labels;
    mask_sequence(ids.data(), 3, 10, opt, rng, uint64_t(d), rows, labels);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0] == 11);
    CHECK(labels[0] == 50);
  }
  std::vector<int32_t> just_specials = {3, 4}, rows, labels;
  mask_sequence(just_specials.data(), 2, 0, opt, rng, 0, rows, labels);
  CHECK(rows.empty());
}

TEST_CASE("masking is a pure function of (key, pattern)") {
  const MaskingOptions opt;
  auto run = [&](uint64_t key, uint64_t pattern) {
    std::vector<int32_t> ids(40, 77), rows, labels;
    ids[0] = 3, ids[39] = 4;
    mask_sequence(ids.data(), 40, 0, opt, Philox{key}, pattern, rows, labels);
    return ids;
  };
  CHECK(run(1, 5) == run(1, 5));
  CHECK(run(1, 5) != run(1, 6));
  CHECK(run(1, 5) != run(2, 5));
}
