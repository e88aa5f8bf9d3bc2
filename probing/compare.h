// Comparing probe results across attention functions: per paradigm and phenomenon the mean ± sd
// over seeds per group, and each group's difference to the baseline group of its stratum (the
// same method, size, steps and suite: results of different ones are never subtracted) with
//   - a 95% bootstrap interval resampling seeds and pairs (with one seed per group it resamples
//     pairs only: seed variance is then not estimated); results without pair outcomes get
//     Welch's t interval over seeds instead (at least 2 seeds per group),
//   - Welch's t-test on the per-seed accuracies (the seed is the unit of replication; at least
//     2 seeds per group), Holm-corrected over the paradigms (and, separately, the phenomena) of
//     each comparison,
//   - "resolved" only when the corrected p < 0.05 and the interval excludes 0.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/attention_function.h"

namespace bb {

struct RunResult {
  std::filesystem::path path;
  nlohmann::json header;
  std::string label;    // the attention label ("softmax", "ssa(n=2 frozen)", ...)
  std::string stratum;  // what else differs between the files given ("pll, 10000 steps"), or ""
  std::string group;    // label, then ", " stratum when there is one
  int64_t seed = 0;
  std::vector<std::string> paradigms;                     // in file order
  std::map<std::string, std::string> phenomenon_of;
  std::map<std::string, double> accuracy;                 // paradigm -> percent
  std::map<std::string, std::vector<double>> outcomes;    // paradigm -> per pair (may be empty)
  std::map<int64_t, double> curve;     // step -> overall accuracy, from the model's metrics.jsonl
  std::map<int64_t, double> dev_loss;  // step -> dev loss, from the same file
};

// Loads F.json and its F.pairs.jsonl; groups are named by what differs between the files.
std::vector<RunResult> load_runs(const std::vector<std::filesystem::path>& files);

inline constexpr double kAlpha = 0.05;  // for "resolved": corrected p < kAlpha and 95% interval

struct Stat {
  double mean = 0, sd = 0;
  int n = 0;
};
struct Difference {
  double diff = 0, lo = 0, hi = 0;  // group - baseline, 95% interval
  bool has_ci = false;
  bool seed_interval = false;  // the interval is Welch's t interval over seeds (no pair outcomes
                               // to bootstrap), not the bootstrap's
  double p = -1, p_adj = -1;  // Welch's t-test on per-seed values, Holm-corrected (-1: none)
  bool resolved = false;      // p_adj < kAlpha and the interval excludes 0
};

struct Comparison {
  std::string baseline;             // the baseline label ("softmax" unless chosen)
  std::vector<std::string> groups;  // baseline groups first, then in file order
  std::vector<std::string> labels, strata;  // [group]
  std::vector<int> seeds;                   // [group] number of runs
  std::vector<int> baseline_of;  // [group] the group it is compared with; -1: none (a baseline,
                                 // or no baseline in its stratum)
  std::vector<std::string> paradigms, phenomena;
  std::map<std::string, std::string> phenomenon_of;
  // [group][name]
  std::vector<std::map<std::string, Stat>> paradigm, phenomenon;
  std::vector<Stat> overall;
  // [group][name], set where baseline_of[group] >= 0
  std::vector<std::map<std::string, Difference>> paradigm_diff, phenomenon_diff;
  std::vector<Difference> overall_diff;
  std::vector<RunResult> runs;
  bool compared(size_t g) const { return baseline_of[g] >= 0; }
};

// `baseline`: the attention label every other group of a stratum is compared with; with more than
// one group, a label no result has is a one-line error listing the labels.
Comparison compare_runs(std::vector<RunResult> runs, int bootstrap = 1000, uint64_t seed = 1,
                        const std::string& baseline =
                            attention_function_name(AttentionFunction::softmax));

}  // namespace bb
