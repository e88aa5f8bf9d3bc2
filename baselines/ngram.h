// N-gram reference models (orders 1 to 3) for the probing suites: interpolated Kneser–Ney with
// one absolute discount D at every order (Chen & Goodman 1999, eq. 25, without the modified
// three-discount variant), or Jelinek–Mercer linear interpolation with one weight λ at every order
// (Chen & Goodman 1999, eq. 6).
//
// Tokens are interned to ids: <s> = 0, </s> = 1, <unk> = 2, the words seen in training from 3 on.
// A sentence w_1..w_m is scored as w_1..w_m </s>, each token predicted from the n-1 tokens before
// it, where positions before the sentence are <s> (n-1 of them). Predicted tokens are the words
// seen in training, </s> and <unk> (never <s>); a word unseen in training is <unk>.
//
// For order k of an order-n model, with history h (k-1 tokens) and its shortened history h'
// (h without its first token):
//   P_k(w | h) = max(c_k(h w) - D, 0) / S_k(h)  +  D * T_k(h) / S_k(h) * P_{k-1}(w | h')
//   S_k(h) = sum over w of c_k(h w),   T_k(h) = |{w : c_k(h w) > 0}|
//   P_0(w) = 1 / (|V| + 2), uniform over the |V| training words, </s> and <unk>
// and P_k(w | h) = P_{k-1}(w | h') when S_k(h) = 0 (a history never seen at order k).
// c_n is the raw count of the n-gram; for k < n, c_k is the continuation count
// N1+(• h w) = |{v : c_{k+1}(v h w) > 0}|, the number of distinct tokens seen before h w.
// Every count that enters is at least 1 and D < 1, so each level sums to (S - D*T)/S + D*T/S = 1
// over the predicted tokens; P(<unk> | h) is the mass the discounts leave for P_0, i.e. the product
// of the levels' D*T/S times 1/(|V|+2).
//
// Jelinek–Mercer: every order's c_k is the raw count of the k-gram (padding included), and
//   P_k(w | h) = λ * c_k(h w) / S_k(h)  +  (1 - λ) * P_{k-1}(w | h')
// with the same P_0 and the same fall-through for a history never seen; each level sums to
// λ + (1 - λ) = 1, and P(<unk> | h) is (1 - λ) per seen level times 1/(|V|+2).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace bb {

enum class NgramSmoothing { kneser_ney, jelinek_mercer };

struct NgramOptions {
  int order = 3;          // 1 unigram, 2 bigram, 3 trigram
  NgramSmoothing smoothing = NgramSmoothing::kneser_ney;
  double discount = 0.75;  // Kneser–Ney's D, in (0, 1)
  double weight = 0.6;     // Jelinek–Mercer's λ, in (0, 1)
};

class NgramModel {
 public:
  static constexpr int32_t kBos = 0, kEos = 1, kUnk = 2;
  static constexpr int kMaxOrder = 3;

  explicit NgramModel(NgramOptions opt);

  // Counting: every training sentence (without <s>, </s>), then finish() once.
  void add_sentence(std::span<const std::string_view> words);
  void finish();  // derives the lower orders' counts and the history totals of every order

  // Scoring (after finish()).
  int32_t id(std::string_view word) const;  // kUnk for a word not seen in training
  // P(w | history): the last order-1 ids of `history` are used; fewer are padded with <s>.
  double prob(std::span<const int32_t> history, int32_t w) const;
  // Summed natural-log probability of words_1..m and </s>.
  double log_prob(std::span<const std::string_view> words) const;

  const NgramOptions& options() const { return opt_; }
  int64_t vocab_size() const { return int64_t(words_.size()) - 3; }  // training word types
  int32_t num_ids() const { return int32_t(words_.size()); }  // <s>, </s>, <unk> and the words
  int64_t sentences() const { return sentences_; }
  int64_t tokens() const { return tokens_; }  // words counted, </s> included

 private:
  // An n-gram of at most 3 ids, 21 bits each, as one key (the order is known from the map).
  static uint64_t key(std::span<const int32_t> ids);
  double level_prob(int k, const int32_t* h, int32_t w) const;  // P_k(w | h[0..k-1))

  struct History {
    int64_t sum = 0;    // S_k(h)
    int64_t types = 0;  // T_k(h)
  };
  NgramOptions opt_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> words_;  // by id
  // counts_[k-1]: k-gram -> c_k; histories_[k-1]: (k-1)-gram -> S_k, T_k (T_k: Kneser–Ney only).
  std::vector<std::unordered_map<uint64_t, int64_t>> counts_;
  std::vector<std::unordered_map<uint64_t, History>> histories_;
  int64_t sentences_ = 0, tokens_ = 0;
  bool finished_ = false;
};

}  // namespace bb
