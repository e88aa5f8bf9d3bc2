// How far word frequency alone could explain a paradigm's accuracy. In a minimal pair whose two
// sentences (normalised text, whitespace-separated words) have the same number of words and differ
// at exactly one position ("this purple thing" / "this purple things"), a model that prefers the
// more frequent word decides the pair without any grammar. A word-unit n-gram reference records,
// per such pair, the training corpus's counts of the two words there (PairOutcome::word_counts).
//
// Frequency share, per paradigm and run: of the pairs with word counts whose two counts differ
// ("qualifying"), the percent whose winner is the sentence with the more frequent word, where the
// winner is the good sentence with weight `outcome` (1 right, 0 wrong, 0.5 a tie):
//   share = 100 / |Q| * sum over q in Q of (count_good > count_bad ? outcome_q : 1 - outcome_q).
// 50 is what frequency-blind decisions give on average; 100 means every qualifying pair went to
// the more frequent word. Per group: mean ± sd over its runs; "all" pools every paradigm's pairs.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probing/compare.h"

namespace bb {

// The words of normalised text (single spaces, none at either end); views into `s`.
std::vector<std::string_view> split_words(std::string_view s);

// The two words {good's, bad's} where the sentences differ, when they have as many words and
// differ at exactly one position; otherwise nothing.
std::optional<std::pair<std::string_view, std::string_view>> differing_word(
    std::span<const std::string_view> good, std::span<const std::string_view> bad);

inline constexpr const char* kAllParadigms = "all";  // the pooled row of the frequency shares

// Fills c.frequency_* from the first reference result (n-gram, method "ngram") whose pairs record
// word counts; without one they stay empty. Pairs are matched by paradigm and index.
void add_frequency_shares(Comparison& c);

// report.md's section: a table of paradigms (and "all") × groups, or one line saying why there is
// none.
std::string frequency_md(const Comparison& c);

}  // namespace bb
