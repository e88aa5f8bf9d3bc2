// Reading a one-utterance-per-line corpus (AO-CHILDES format) and turning it into token ids with
// BabyBERTa's filters: fewer than `min_words` whitespace-separated words (the final " ." counts)
// is dropped; longer than the model's max length (incl. <s>, </s>) is dropped, never truncated.
// Invalid UTF-8 lines are skipped and reported with their line numbers (--strict: an error).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace bb {

struct CorpusOptions {
  int min_words = 3;
  int max_tokens = 128;  // incl. <s> and </s>
  bool strict = false;   // invalid UTF-8 is an error instead of a warning
};

struct CorpusStats {
  int64_t lines = 0, kept = 0, empty = 0, invalid_utf8 = 0, too_few_words = 0, too_long = 0;
  std::vector<int64_t> invalid_lines;  // 1-based line numbers (all of them)
  nlohmann::json to_json() const;
  std::string summary() const;  // one line
};

// Lines of `path` that are valid UTF-8 and have at least min_words words, normalised.
std::vector<std::string> read_corpus_lines(const std::filesystem::path& path,
                                           const CorpusOptions& opt, const Normalizer& norm,
                                           CorpusStats& stats);
// Warns on stderr about lines skipped as invalid UTF-8, with their line numbers (the first 20).
void warn_invalid_lines(const std::filesystem::path& corpus, const CorpusStats& stats);

// Token ids of every kept utterance, back to back: utterance i is ids[offsets[i], offsets[i+1]).
struct TokenizedCorpus {
  std::vector<int32_t> ids;
  std::vector<int64_t> offsets = {0};
  CorpusStats stats;
  int64_t size() const { return int64_t(offsets.size()) - 1; }
  int length(int64_t i) const { return int(offsets[i + 1] - offsets[i]); }
  const int32_t* seq(int64_t i) const { return ids.data() + offsets[i]; }
  void push(const std::vector<int32_t>& seq);
};

// Reads, filters and tokenises; the result is cached next to `cache` (when not empty) and reused
// while the corpus bytes, the tokenizer fingerprint and the options are unchanged.
TokenizedCorpus load_tokenized_corpus(const std::filesystem::path& path, const Tokenizer& tok,
                                      const CorpusOptions& opt,
                                      const std::filesystem::path& cache = {});

// The normalised text of the utterances load_tokenized_corpus keeps, in the same order (so that
// is_dev_utterance splits them the same way): read_corpus_lines, then the same max-length filter
// with `tok`. Without a tokenizer (nullptr) there is no max-length filter: it counts pieces.
std::vector<std::string> read_kept_utterances(const std::filesystem::path& path,
                                              const Tokenizer* tok, const CorpusOptions& opt,
                                              CorpusStats& stats);

// Deterministic held-out split: utterance i (0-based, among the kept ones) goes to dev when a hash
// of (seed, i) falls below `fraction`.
bool is_dev_utterance(int64_t i, double fraction, uint64_t seed);
// The split of every utterance by is_dev_utterance. Returns (train, dev).
std::pair<TokenizedCorpus, TokenizedCorpus> split_dev(const TokenizedCorpus& all, double fraction,
                                                      uint64_t seed);

}  // namespace bb
