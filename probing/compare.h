// Comparing probe results across attention functions (and any other differing setting): per
// paradigm and phenomenon the mean ± sd over seeds per group, the difference to the baseline
// group with a 95% bootstrap interval (resampling seeds and pairs), and a paired McNemar test per
// paradigm (runs matched by seed order, discordant pairs pooled).
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace bb {

struct RunResult {
  std::filesystem::path path;
  nlohmann::json header;
  std::string group;
  int64_t seed = 0;
  std::vector<std::string> paradigms;                     // in file order
  std::map<std::string, std::string> phenomenon_of;
  std::map<std::string, double> accuracy;                 // paradigm -> percent
  std::map<std::string, std::vector<double>> outcomes;    // paradigm -> per pair (may be empty)
  std::map<int64_t, double> curve;  // step -> overall accuracy, from the model's metrics.jsonl
};

// Loads F.json and its F.pairs.jsonl; groups are named by what differs between the files.
std::vector<RunResult> load_runs(const std::vector<std::filesystem::path>& files);

struct Stat {
  double mean = 0, sd = 0;
  int n = 0;
};
struct Difference {
  double diff = 0, lo = 0, hi = 0;  // group - baseline, 95% bootstrap interval
  bool has_ci = false;
  int b = 0, c = 0;   // McNemar discordant counts: baseline right & group wrong, and vice versa
  double p = -1;      // McNemar p-value (-1: not applicable)
};

struct Comparison {
  std::vector<std::string> groups;  // groups[0] is the baseline
  std::vector<std::string> paradigms, phenomena;
  std::map<std::string, std::string> phenomenon_of;
  // [group][name]
  std::vector<std::map<std::string, Stat>> paradigm, phenomenon;
  std::vector<Stat> overall;
  // [group - 1][name] for groups after the baseline
  std::vector<std::map<std::string, Difference>> paradigm_diff, phenomenon_diff;
  std::vector<Difference> overall_diff;
  std::vector<RunResult> runs;
};

Comparison compare_runs(std::vector<RunResult> runs, int bootstrap = 1000, uint64_t seed = 1);
double mcnemar_p(int b, int c);

}  // namespace bb
