// The comparison report of an ICL experiment (cli/icl_experiment.cpp): for each (task,
// architecture) group, each function's score per sigma of x at one length, over seeds, and its
// difference to a reference function (softmax) paired by seed, with a t interval. The seed is the
// unit of replication; a difference is tested only with at least kMinSeeds paired seeds, and one
// whose interval contains 0 is "inconclusive", reported with the smallest difference the seeds
// could have detected (80% power, two-sided 5%, from the noncentral t: probing/statistics.h).
#pragma once
#include <string>
#include <vector>

namespace bb::icl {

inline constexpr int kMinSeeds = 3;

// One trained model's scores in one group: score[i] at sigmas[i] (lower is better).
struct SeedScores {
  std::string function;
  int seed = 0;
  std::vector<double> score;
};

struct PairedDifference {
  int n = 0;                            // paired seeds
  double mean = 0, lo = 0, hi = 0;      // of function - reference; interval: 95% t
  double detectable = 0;                // smallest difference detectable with these seeds
  double sd = 0, p = -1;                // sd of the per-seed differences; two-sided p (-1: none)
  bool tested = false, resolved = false;
};

// mean(b_s - a_s) over seeds s present in both, with its t interval.
PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b);

struct GroupReport {
  std::string title;  // "every, full, 40 points"
  std::string score;  // what the score is ("share of sequences with a wrong sign ...")
  std::vector<double> sigmas;
  std::vector<SeedScores> runs;
};

// Markdown: per group a table of each function's mean score per sigma (over seeds, with the
// seed range) and of its paired difference to `reference`.
std::string experiment_markdown(const std::vector<GroupReport>& groups,
                                const std::string& reference);

}  // namespace bb::icl
