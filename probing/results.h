// From sentence scores to minimal-pair accuracies: per pair an outcome (1 correct, 0 wrong, a tie
// per the tie rule), per paradigm the accuracy in percent, per phenomenon the mean of its
// paradigms, overall the mean over paradigms (and over phenomena). Written as probe's JSON and a
// pairs.jsonl that compare's paired statistics read.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/files.h"
#include "probing/scorer.h"
#include "probing/suite.h"

namespace bb {

enum class TieRule { half, wrong };
TieRule parse_tie_rule(const std::string& s);
std::string tie_rule_name(TieRule t);

struct PairOutcome {
  std::string paradigm;
  int index;
  double good, bad, outcome;                 // the two scores; 1 right, 0 wrong, 0.5 a tie (half)
  std::string good_sentence, bad_sentence;
  // Word-unit n-gram references only: the training corpus's counts {good, bad} of the word where
  // the two sentences differ, for pairs that differ in exactly one word position
  // (probing/word_frequency.h).
  std::optional<std::array<int64_t, 2>> word_counts;
};

struct ProbeSummary {
  std::vector<PairOutcome> pairs;
  nlohmann::json paradigms;  // name -> {accuracy, pairs, ties}
  nlohmann::json phenomena;  // name -> mean accuracy of its paradigms
  double overall = 0, overall_by_phenomenon = 0;
  std::vector<std::string> notes;  // the suite's notes (a header row read, keys ignored, ...)
};

// higher_wins: a pair is right when good's score is the higher one (else the lower one).
ProbeSummary summarize(const Suite& suite, const std::vector<double>& good,
                       const std::vector<double>& bad, bool higher_wins, TieRule ties);
inline ProbeSummary summarize(const Suite& suite, const std::vector<double>& good,
                              const std::vector<double>& bad, Method method, TieRule ties) {
  return summarize(suite, good, bad, higher_is_better(method), ties);
}

// Writes F.json (with `header`: model, config, method, tie_rule, provenance) and F.pairs.jsonl.
void write_probe_results(const std::filesystem::path& json_path, nlohmann::json header,
                         const ProbeSummary& s);
std::filesystem::path pairs_path_for(const std::filesystem::path& json_path);
// Checks a probe result read back (F.json) before anything uses it: an object with "paradigms"
// (a non-empty object of {accuracy: percent in [0, 100], pairs: integer > 0, ties: integer in
// [0, pairs], phenomenon: string}), "config" (an object; seed, steps and the layer sizes integers,
// label a string, when present) and "method" (a string); "model" a string and "overall" a
// number when present. Errors name the file and the field.
void check_probe_result(const nlohmann::json& header, const std::string& file);
// F.pairs.jsonl read back, per paradigm in file order.
struct PairRecords {
  std::map<std::string, std::vector<double>> outcomes;  // each in [0, 1]
  std::map<std::string, std::vector<int>> index;        // each pair's index within its paradigm
  // paradigm -> pair index -> {good, bad} counts, where the file records them (PairOutcome)
  std::map<std::string, std::map<int, std::array<int64_t, 2>>> word_counts;
};
PairRecords read_pair_records(const std::filesystem::path& pairs);

// Before any scoring: F.json and F.pairs.jsonl must spare what the command reads (`reads`:
// check_output_spares, a usage error); then creates F.json's directory and a scratch file in it
// (removed again), so an unwritable --out fails at once with one line naming the path.
void check_results_writable(const std::filesystem::path& json_path,
                            const std::vector<ReadPath>& reads = {});
// "8L/8H/256d" of a result's config (RobertaConfig's names, or GPT2Config's for a gpt2 model).
std::string model_size_label(const nlohmann::json& config);

}  // namespace bb
