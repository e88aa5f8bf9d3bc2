// babyberta score --model DIR [--method M] [--reduction sum|mean] [--per-token]: sentences on
// stdin -> JSONL on stdout, one line per sentence: {"sentence", "ids", the score under its name
// (score_field: mean_ce or sum_ce for holistic, pll or mean_pll for pll and pll-word-l2r,
// logprob or mean_logprob for causal)} and, with --per-token, "logprobs" and "pieces" of the
// scored tokens (causal: also "surprisal" in bits; the first token, <s>, has none), and with
// --words "words" and "word_logprobs": each whitespace word with the sum of its pieces'
// log-probabilities (probing/word_scores.h; no word-boundary correction, docs/training.md).
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

#include "cli/commands.h"
#include "cli/compute_options.h"
#include "models/model_kind.h"
#include "backend/threads.h"
#include "common/flag_names.h"
#include "training/precision_flag.h"
#include "training/flag_ranges.h"
#include "common/error.h"
#include "probing/scorer.h"
#include "probing/word_scores.h"

namespace bb::cli {

void add_score(CLI::App& app) {
  auto* cmd = app.add_subcommand("score", "Score sentences from stdin (JSONL out)");
  struct Args {
    std::string model, method, reduction;
    bool per_token = false, words = false;
    int threads = 1;
    std::string device = "cpu", precision = "fp32";
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--model", a->model, "Model directory")->required();
  cmd->add_option("--method", a->method,
                  "roberta: holistic (its default), pll or pll-word-l2r; gpt2: causal")
      ->check(one_of("scoring method", method_names()));
  cmd->add_option("--reduction", a->reduction,
                  "sum or mean over the scored tokens (default: holistic mean, pll and causal sum)")
      ->check(one_of("reduction", {"sum", "mean"}));
  cmd->add_flag("--words", a->words,
                "Also print each whitespace word (words) and the sum of its pieces' "
                "log-probabilities (word_logprobs); no word-boundary correction");
  cmd->add_flag("--per-token", a->per_token,
                "Also print each scored token's log-probability (logprobs) and piece (pieces)");
  add_compute_options(cmd, a->threads, a->device, a->precision);
  cmd->callback([a] {
    set_threads(a->threads);
    const Device device = usable_device(a->device);
    const Precision precision = parse_precision(a->precision);
    require_precision(precision, device);  // before any work
    const ModelKind kind = require_model_kind(a->model, ModelCommand::score).kind;
    const Method m = method_for(a->method, kind, "score");  // before any work
    Scorer scorer(a->model, 0, device);
    scorer.set_precision(precision);
    std::vector<std::string> lines;
    for (std::string line; std::getline(std::cin, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a CRLF file's line ending
      check_sentence_to_score(line, fmt::format("stdin:{}", lines.size() + 1), scorer.tokenizer(),
                              scorer.config().max_tokens());
      lines.push_back(line);
    }
    const Reduction r = a->reduction.empty() ? default_reduction(m) : parse_reduction(a->reduction);
    const auto scores = scorer.score(lines, m);
    // The score under a name that says which way is better: *_ce (holistic, cross-entropy: lower
    // is better), *pll (log-probability: higher is better).
    const std::string field = score_field(m, r);
    for (size_t i = 0; i < lines.size(); ++i) {
      const SentenceScore& sc = scores[i];
      nlohmann::json j{{"sentence", lines[i]}, {"ids", sc.ids},
                       {field, reduce_logprobs(sc.logprobs, m, r)}};
      if (a->words) {  // the scored pieces grouped into words at each "▁"
        std::vector<std::string> words;
        std::vector<double> word_logprobs;
        for (const WordScore& w : word_scores(sc, m, scorer.tokenizer(), scorer.config())) {
          words.push_back(w.word);
          word_logprobs.push_back(w.logprob);
        }
        j["words"] = words;
        j["word_logprobs"] = word_logprobs;
      }
      if (a->per_token) {
        // holistic scores every id; pll every id but <s> and </s>; causal every id but <s>
        const size_t skip = first_scored_id(m);
        std::vector<std::string> pieces;
        for (size_t t = 0; t < sc.logprobs.size(); ++t)
          pieces.push_back(scorer.tokenizer().piece(sc.ids[t + skip]));
        j["logprobs"] = sc.logprobs;
        j["pieces"] = pieces;
        if (m == Method::causal) {  // surprisal in bits: -log2 P
          std::vector<double> bits;
          for (double lp : sc.logprobs) bits.push_back(-lp / std::log(2.0));
          j["surprisal"] = bits;
        }
      }
      fmt::print("{}\n", j.dump());
    }
  });
}

}  // namespace bb::cli
