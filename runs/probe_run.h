// A probe: score a suite's minimal pairs with a model and write the result files (`probe`, train
// --probe-every, experiment).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "probing/results.h"

namespace bb {

struct ProbeArgs {
  std::string model, suite, out, tie_rule = "half", order = "bad-first";
  std::string method = {};     // empty: the model kind's default (roberta holistic, gpt2 causal)
  std::string reduction = {};  // sum or mean; empty: the method's default (holistic mean, pll sum)
  int threads = 1;
  std::string device = "cpu";
  std::string precision = "fp32";  // --precision: fp32 or bf16 (backend/precision.h)
  int pairs_per_paradigm = 0;  // 0: all
  bool quiet = false;
  std::vector<std::string> suites = {};  // several suites as one; when empty, `suite`
  std::string format = "auto";           // auto or zorro (see SuiteFormat)
  int batch_tokens = 0;                  // 0: the device's default
  bool header = false, no_header = false;  // force a TSV/CSV header row either way (default: detect)
};

// What every probe result's F.json header holds (probe adds the training record and the device):
// model, config, method, tie_rule, suite, pairs_per_paradigm and the provenance (git revision,
// suite files with their sha256, threads, date, seconds, sentences per second).
struct ResultHeader {
  std::string model;
  nlohmann::json config;
  std::string method;
  TieRule ties;
  std::vector<std::filesystem::path> suites;  // as given
  const Suite& suite;
  int pairs_per_paradigm;  // 0: all
  int threads;
  double seconds;
  size_t sentences;  // scored
};
nlohmann::json result_header(const ResultHeader& r);

// Scores, writes OUT (+ .pairs.jsonl) when out is set, and returns the summary.
ProbeSummary run_probe(const ProbeArgs& a);

}  // namespace bb
