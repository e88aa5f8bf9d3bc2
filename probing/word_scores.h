// Word-level and region scores from a sentence's per-token scores (probing/scorer.h), for
// `score --words` and Python's word_score / conditional_score (minicons' names).
#pragma once
#include <string>
#include <vector>

#include "encoder/config.h"
#include "probing/scorer.h"
#include "tokenizer/tokenizer.h"

namespace bb {

struct WordScore {
  std::string word;  // the pieces joined (byte-fallback pieces as their bytes), "▁" dropped
  double logprob;    // the sum of its pieces' log-probabilities under the method
};

// The scored pieces of `s` grouped into whitespace words: a piece beginning with "▁" begins a
// word; <s> and </s> are no words (a causal score's </s> stays in the sentence's score only).
// No word-boundary correction (Oh & Schuler 2024; Pimentel & Meister 2024): a word's sum leaves
// out the probability that the word ends there.
std::vector<WordScore> word_scores(const SentenceScore& s, Method m, const Tokenizer& tok,
                                   const Config& c);

// The number of ids of `prefix` as it begins `prefix + " " + continuation`: <s> and the prefix's
// pieces. A usage error when the prefix is empty, or when the joined sentence does not begin with
// the prefix's own pieces (a piece spanning the boundary), naming `where`.
size_t prefix_ids(const Tokenizer& tok, const std::string& prefix, const SentenceScore& joined,
                  const std::string& where);

// The log-probabilities of the joined sentence's pieces from id `begin` up to </s> (left out):
// the continuation's tokens under the method, each seeing the whole sentence as the method does
// (causal: the tokens before it; pll: every other token; holistic: all of them). A usage error
// naming `where` when the continuation has no piece.
std::vector<double> continuation_logprobs(const SentenceScore& joined, Method m, size_t begin,
                                          const std::string& where);

}  // namespace bb
