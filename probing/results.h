// From sentence scores to minimal-pair accuracies: per pair an outcome (1 correct, 0 wrong, a tie
// per the tie rule), per paradigm the accuracy in percent, per phenomenon the mean of its
// paradigms, overall the mean over paradigms (and over phenomena). Written as probe's JSON and a
// pairs.jsonl that compare's paired statistics read.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "probing/scorer.h"
#include "probing/suite.h"

namespace bb {

enum class TieRule { half, wrong };
TieRule parse_tie_rule(const std::string& s);
std::string tie_rule_name(TieRule t);

struct PairOutcome {
  std::string paradigm;
  int index;
  double good, bad, outcome;
};

struct ProbeSummary {
  std::vector<PairOutcome> pairs;
  nlohmann::json paradigms;  // name -> {accuracy, pairs, ties}
  nlohmann::json phenomena;  // name -> mean accuracy of its paradigms
  double overall = 0, overall_by_phenomenon = 0;
};

ProbeSummary summarize(const Suite& suite, const std::vector<double>& good,
                       const std::vector<double>& bad, Method method, TieRule ties);

// Writes F.json (with `header`: model, config, method, tie_rule, provenance) and F.pairs.jsonl.
void write_probe_results(const std::filesystem::path& json_path, nlohmann::json header,
                         const ProbeSummary& s);
std::filesystem::path pairs_path_for(const std::filesystem::path& json_path);

}  // namespace bb
