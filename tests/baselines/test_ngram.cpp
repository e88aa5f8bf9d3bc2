// The n-gram baselines (Kneser–Ney and Jelinek–Mercer): probabilities worked out by hand on a
// 3-sentence corpus, every distribution summing to 1 (vocabulary + </s> + <unk>), unseen words as
// <unk>, pair scoring.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "baselines/ngram.h"
#include "probing/results.h"

using namespace bb;

namespace {

using Words = std::vector<std::string_view>;

// The corpus: "a b", "a c", "b c". V = {a, b, c}; P_0 = 1/(|V| + 2) = 1/5.
NgramModel tiny_model(int order, NgramSmoothing smoothing = NgramSmoothing::kneser_ney) {
  NgramModel m({.order = order, .smoothing = smoothing, .discount = 0.75, .weight = 0.6});
  for (const Words& s : {Words{"a", "b"}, Words{"a", "c"}, Words{"b", "c"}}) m.add_sentence(s);
  m.finish();
  return m;
}

// Σ_w P(w | history) over </s>, <unk> and every training word (ids 1 .. num_ids-1).
double total(const NgramModel& m, const std::vector<int32_t>& history) {
  double sum = 0;
  for (int32_t w = NgramModel::kEos; w < m.num_ids(); ++w) sum += m.prob(history, w);
  return sum;
}

}  // namespace

TEST_CASE("bigram: a Kneser-Ney probability worked out by hand") {
  const NgramModel m = tiny_model(2);
  CHECK(m.vocab_size() == 3);
  CHECK(m.sentences() == 3);
  CHECK(m.tokens() == 9);
  const int32_t a = m.id("a"), b = m.id("b");
  // Bigram events: (<s> a) x2, (a b), (b </s>), (a c), (c </s>) x2, (<s> b), (b c).
  // Unigram continuation counts (distinct left neighbours): a 1 {<s>}, b 2 {a, <s>}, c 2 {a, b},
  // </s> 2 {b, c}; S_1 = 7, T_1 = 4, so P_1(w) = (c - 0.75)/7 + 0.75*4/7 * 1/5 = (c - 0.15)/7:
  // P_1(b) = 1.85/7.
  // History a: c(a b) = 1, c(a c) = 1, S_2 = 2, T_2 = 2:
  // P(b | a) = (1 - 0.75)/2 + 0.75*2/2 * 1.85/7 = 0.125 + 1.3875/7 = 2.2625/7.
  CHECK(m.prob({&a, 1}, b) == doctest::Approx(2.2625 / 7).epsilon(1e-12));
  // <unk> from history a: no count; 0.75*2/2 * P_1(<unk>) = 0.75 * (0.75*4/7 * 1/5) = 0.75*0.6/7.
  CHECK(m.prob({&a, 1}, NgramModel::kUnk) == doctest::Approx(0.75 * 0.6 / 7).epsilon(1e-12));
}

TEST_CASE("trigram: a Kneser-Ney probability worked out by hand") {
  const NgramModel m = tiny_model(3);
  const std::vector<int32_t> ab = {m.id("a"), m.id("b")};
  // Trigram events (two <s> of padding): (<s> <s> a) x2, (<s> a b), (a b </s>), (<s> a c),
  // (a c </s>), (<s> <s> b), (<s> b c), (b c </s>).
  // Bigram continuation counts (distinct tokens before the bigram): (b </s>) 1 {a}, (b c) 1 {<s>},
  // so history b has S_2 = 2, T_2 = 2. Unigram continuation counts over the bigram types:
  // </s> 2 {b, c}, as in the bigram case: P_1(</s>) = 1.85/7.
  // P_2(</s> | b) = (1 - 0.75)/2 + 0.75*2/2 * 1.85/7 = 2.2625/7.
  // History (a b): c(a b </s>) = 1, S_3 = 1, T_3 = 1:
  // P(</s> | a b) = (1 - 0.75)/1 + 0.75*1/1 * 2.2625/7 = (1.75 + 1.696875)/7 = 3.446875/7.
  CHECK(m.prob(ab, NgramModel::kEos) == doctest::Approx(3.446875 / 7).epsilon(1e-12));
  // History (<s> <s>): c(<s> <s> a) = 2, c(<s> <s> b) = 1, S_3 = 3, T_3 = 2. Bigram history <s>:
  // (<s> a) 1, (<s> b) 1: P_2(a | <s>) = 0.25/2 + 0.75 * 0.85/7 = 1.5125/7.
  // P(a | <s> <s>) = (2 - 0.75)/3 + 0.75*2/3 * 1.5125/7.
  CHECK(m.prob({}, m.id("a")) ==
        doctest::Approx(1.25 / 3 + 0.5 * 1.5125 / 7).epsilon(1e-12));
}

TEST_CASE("trigram: a Jelinek-Mercer probability worked out by hand") {
  const NgramModel m = tiny_model(3, NgramSmoothing::jelinek_mercer);
  const std::vector<int32_t> ab = {m.id("a"), m.id("b")};
  // Raw counts, padding included. Unigrams over the 9 predicted tokens: a 2, b 2, c 2, </s> 3:
  // P_1(</s>) = 0.6 * 3/9 + 0.4 * 1/5 = 0.28. Bigrams with history b: (b </s>) 1, (b c) 1:
  // P_2(</s> | b) = 0.6 * 1/2 + 0.4 * 0.28 = 0.412. Trigrams with history (a b): (a b </s>) 1:
  // P(</s> | a b) = 0.6 * 1/1 + 0.4 * 0.412 = 0.7648.
  CHECK(m.prob(ab, NgramModel::kEos) == doctest::Approx(0.7648).epsilon(1e-12));
  // <unk> is never counted: 0.4 per level times 1/5.
  CHECK(m.prob(ab, NgramModel::kUnk) == doctest::Approx(0.4 * 0.4 * 0.4 / 5).epsilon(1e-12));
  // History (c a) was never seen: P(b | c a) = P_2(b | a) = 0.6 * 1/2 + 0.4 * P_1(b), P_1(b) =
  // 0.6 * 2/9 + 0.4/5.
  const std::vector<int32_t> ca = {m.id("c"), m.id("a")};
  CHECK(m.prob(ca, m.id("b")) ==
        doctest::Approx(0.3 + 0.4 * (1.2 / 9 + 0.08)).epsilon(1e-12));
}

TEST_CASE("every distribution sums to 1 over the vocabulary, </s> and <unk>") {
  for (const NgramSmoothing smoothing : {NgramSmoothing::kneser_ney,
                                         NgramSmoothing::jelinek_mercer})
  for (int order = 1; order <= 3; ++order) {
    CAPTURE(int(smoothing));
    CAPTURE(order);
    const NgramModel m = tiny_model(order, smoothing);
    const int32_t s = NgramModel::kBos, a = m.id("a"), b = m.id("b"), c = m.id("c"),
                  unk = NgramModel::kUnk;
    for (const std::vector<int32_t>& h : std::vector<std::vector<int32_t>>{
             {}, {s, a}, {a, b}, {b, c}, {a, c}, {c, c}, {unk, a}, {a, unk}, {unk, unk}, {c}}) {
      CAPTURE(h.size());
      CHECK(total(m, h) == doctest::Approx(1.0).epsilon(1e-12));
    }
  }
}

TEST_CASE("a word not seen in training is <unk> and gets <unk>'s probability") {
  for (int order = 1; order <= 3; ++order) {
    CAPTURE(order);
    const NgramModel m = tiny_model(order);
    CHECK(m.id("zebra") == NgramModel::kUnk);
    CHECK(m.id("<unk>") == NgramModel::kUnk);
    const double p_unk = m.prob({}, NgramModel::kUnk);
    CHECK(p_unk > 0);
    const int32_t unk = NgramModel::kUnk;
    const double expected = std::log(p_unk) + std::log(m.prob({&unk, 1}, NgramModel::kEos));
    CHECK(m.log_prob(Words{"zebra"}) == doctest::Approx(expected).epsilon(1e-12));
    CHECK(m.log_prob(Words{"zebra"}) == m.log_prob(Words{"giraffe"}));
  }
  // Unigram: P(<unk>) = 0.75 * T / S * 1/(|V| + 2) with 9 tokens, 4 types (a, b, c, </s>).
  CHECK(tiny_model(1).prob({}, NgramModel::kUnk) == doctest::Approx(0.75 * 4 / 9 / 5));
}

TEST_CASE("a sentence's score is its summed log-probability with </s>; the higher one wins") {
  const NgramModel m = tiny_model(2);
  const int32_t s = NgramModel::kBos, a = m.id("a"), b = m.id("b");
  const double by_hand = std::log(m.prob({&s, 1}, a)) + std::log(m.prob({&a, 1}, b)) +
                         std::log(m.prob({&b, 1}, NgramModel::kEos));
  CHECK(m.log_prob(Words{"a", "b"}) == doctest::Approx(by_hand).epsilon(1e-12));
  CHECK(m.log_prob(Words{"a", "b"}) > m.log_prob(Words{"b", "a"}));

  Suite suite;
  suite.paradigms = {"order-words"};
  suite.pairs = {{"a b", "b a", "order-words", "order", 0}, {"b a", "a b", "order-words", "order", 1},
                 {"a b", "a b", "order-words", "order", 2}};
  std::vector<double> good, bad;
  auto score = [&](const std::string& t) {
    return t == "a b" ? m.log_prob(Words{"a", "b"}) : m.log_prob(Words{"b", "a"});
  };
  for (const MinimalPair& p : suite.pairs) good.push_back(score(p.good)), bad.push_back(score(p.bad));
  const ProbeSummary sum = summarize(suite, good, bad, /*higher_wins=*/true, TieRule::half);
  CHECK(sum.pairs[0].outcome == 1.0);  // the more probable sentence is the good one
  CHECK(sum.pairs[1].outcome == 0.0);
  CHECK(sum.pairs[2].outcome == 0.5);  // a tie counts half
  CHECK(sum.paradigms["order-words"]["accuracy"].get<double>() == doctest::Approx(50.0));
}

TEST_CASE("bad options are errors") {
  CHECK_THROWS_WITH(NgramModel({.order = 4}), doctest::Contains("expected 1, 2 or 3"));
  CHECK_THROWS_WITH(NgramModel({.order = 2, .discount = 1.0}), doctest::Contains("(0, 1)"));
  CHECK_THROWS_WITH(NgramModel({.order = 2, .weight = 0.0}), doctest::Contains("weight 0"));
}
