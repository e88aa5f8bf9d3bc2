#include "baselines/ngram.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace bb {

namespace {
constexpr int kIdBits = 21;  // ids below 2^21 (2,097,152 types): three fit in one 64-bit key
constexpr uint64_t kIdMask = (uint64_t(1) << kIdBits) - 1;
}  // namespace

NgramModel::NgramModel(NgramOptions opt)
    : opt_(opt), words_{"<s>", "</s>", "<unk>"}, counts_(size_t(opt.order)),
      histories_(size_t(opt.order)) {
  BB_CHECK(opt.order >= 1 && opt.order <= kMaxOrder, "n-gram order {} (expected 1, 2 or 3)",
           opt.order);
  BB_CHECK(opt.discount > 0 && opt.discount < 1, "n-gram discount {} (expected one in (0, 1))",
           opt.discount);
  BB_CHECK(opt.weight > 0 && opt.weight < 1, "n-gram interpolation weight {} (expected one in "
           "(0, 1))", opt.weight);
}

uint64_t NgramModel::key(std::span<const int32_t> ids) {
  uint64_t k = 0;
  for (int32_t id : ids) k = (k << kIdBits) | uint64_t(id);
  return k;
}

void NgramModel::add_sentence(std::span<const std::string_view> words) {
  BB_CHECK(!finished_, "internal: NgramModel::add_sentence after finish()");
  const int n = opt_.order;
  std::vector<int32_t> seq(size_t(n - 1), kBos);  // (n-1 + m + 1): <s>.. w_1..w_m </s>
  for (std::string_view w : words) {
    auto [it, fresh] = ids_.try_emplace(std::string(w), int32_t(words_.size()));
    if (fresh) {
      BB_CHECK(words_.size() < kIdMask, "n-gram vocabulary over {} types", kIdMask);
      words_.emplace_back(w);
    }
    seq.push_back(it->second);
  }
  seq.push_back(kEos);
  for (size_t i = size_t(n - 1); i < seq.size(); ++i)
    ++counts_[size_t(n - 1)][key({seq.data() + i + 1 - size_t(n), size_t(n)})];
  ++sentences_;
  tokens_ += int64_t(words.size()) + 1;
}

void NgramModel::finish() {
  BB_CHECK(!finished_, "internal: NgramModel::finish twice");
  // Lower orders, top down from the (k+1)-grams ending in g: Kneser–Ney's continuation count
  // c_k(g) = how many distinct types, Jelinek–Mercer's raw count c_k(g) = the sum of their counts
  // (every predicted token's k-gram is the suffix of its (k+1)-gram, padding included).
  // A (k+1)-gram's last k ids are its key's low k*21 bits.
  const bool raw = opt_.smoothing == NgramSmoothing::jelinek_mercer;
  for (int k = opt_.order - 1; k >= 1; --k) {
    const uint64_t suffix_mask = (uint64_t(1) << (kIdBits * k)) - 1;
    for (const auto& [gram, c] : counts_[size_t(k)])
      counts_[size_t(k - 1)][gram & suffix_mask] += raw ? c : 1;
  }
  // S_k(h) and T_k(h): a k-gram's history is its key without the last id.
  for (int k = 1; k <= opt_.order; ++k)
    for (const auto& [gram, c] : counts_[size_t(k - 1)]) {
      History& h = histories_[size_t(k - 1)][gram >> kIdBits];
      h.sum += c;
      h.types += 1;
    }
  finished_ = true;
}

int32_t NgramModel::id(std::string_view word) const {
  const auto it = ids_.find(std::string(word));
  return it == ids_.end() ? kUnk : it->second;
}

double NgramModel::level_prob(int k, const int32_t* h, int32_t w) const {
  const double lower =
      k == 1 ? 1.0 / double(vocab_size() + 2) : level_prob(k - 1, h + 1, w);  // P_{k-1}(w | h')
  const uint64_t hk = key({h, size_t(k - 1)});
  const auto hist = histories_[size_t(k - 1)].find(hk);
  if (hist == histories_[size_t(k - 1)].end()) return lower;  // S_k(h) = 0
  const auto& counts = counts_[size_t(k - 1)];
  const auto c = counts.find((hk << kIdBits) | uint64_t(w));
  const double count = c == counts.end() ? 0.0 : double(c->second), S = double(hist->second.sum);
  switch (opt_.smoothing) {
    case NgramSmoothing::kneser_ney: {
      const double D = opt_.discount, T = double(hist->second.types);
      return (std::max(count - D, 0.0) + D * T * lower) / S;
    }
    case NgramSmoothing::jelinek_mercer:
      return opt_.weight * count / S + (1 - opt_.weight) * lower;
  }
  fail("internal: unknown n-gram smoothing {}", int(opt_.smoothing));
}

double NgramModel::prob(std::span<const int32_t> history, int32_t w) const {
  BB_CHECK(finished_, "internal: NgramModel::prob before finish()");
  BB_CHECK(w > kBos && w < num_ids(), "internal: n-gram prediction of id {} (expected 1 to {})",
           w, num_ids() - 1);
  int32_t h[kMaxOrder - 1] = {kBos, kBos};  // the last order-1 ids, <s> where history is short
  const size_t n1 = size_t(opt_.order - 1), have = std::min(n1, history.size());
  std::copy(history.end() - ptrdiff_t(have), history.end(), h + (n1 - have));
  return level_prob(opt_.order, h, w);
}

double NgramModel::log_prob(std::span<const std::string_view> words) const {
  std::vector<int32_t> seq;
  for (std::string_view w : words) seq.push_back(id(w));
  seq.push_back(kEos);
  double sum = 0;
  for (size_t i = 0; i < seq.size(); ++i)
    sum += std::log(prob({seq.data(), i}, seq[i]));
  return sum;
}

}  // namespace bb
