// babyberta perplexity: a model's perplexity on texts, in distribution (a run's own dev split) and
// out of it (any text file, or the good sentences of a suite such as BLiMP), per token and per word
// (tokenizers differ; words compare across them).
//   gpt2     perplexity: exp of the mean -log P(w_t | w_<t) over every token after <s>, </s>
//            included (the causal method); words: the whitespace words plus one for </s>
//   roberta  pseudo-perplexity (Salazar et al. 2020): exp of the mean -log P(w_t | the rest) with
//            each token but <s>, </s> masked once (pll); words: the whitespace words
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace bb {

struct PerplexityArgs {
  std::string model;
  std::vector<std::string> texts;    // text files: one sentence per line (blank lines skipped)
  std::vector<std::string> good_of;  // suites (a dir or file): their good sentences
  std::vector<std::string> dev_of;   // runs: their dev split, rebuilt from run.json
  std::string out;                   // F.json (empty: none)
  int threads = 1;
  std::string device = "cpu", precision = "fp32";
  bool quiet = false;
};

// {"model", "kind", "measure" (perplexity | pseudo-perplexity), "method", "attention" (the
// model's function label), "seed" (a train run's --seed; absent for other model directories),
// "inputs": [{"source", "input" (its name across models: the path, "good sentences of SUITE" or
// "dev split"), "sentences_sha256", "sentences", "tokens", "words", "nll_per_token",
// "perplexity_per_token", "perplexity_per_word"}]}; written atomically to args.out when given.
nlohmann::ordered_json run_perplexity(const PerplexityArgs& a);

// The dev utterances of a train run (normalised, as trained on): its run.json's corpus (the last
// session's), --dev-fraction and --dev-seed (the seed where the run predates --dev-seed) over the
// utterances its filters keep with its tokenizer. A run trained with --no-dev has none: an error.
std::vector<std::string> dev_utterances(const std::string& run_dir);

}  // namespace bb
