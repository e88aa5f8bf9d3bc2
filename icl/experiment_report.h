// The comparison report of an ICL experiment (cli/icl_experiment.cpp): for each (task,
// architecture) group, each function's score per sigma of x at one length, over seeds, and its
// difference to a reference function (softmax) paired by seed, with a t interval. The seed is the
// unit of replication; a difference is tested only with at least kMinSeeds paired seeds, and one
// whose interval contains 0 is "inconclusive", reported with the smallest difference the seeds
// could have detected (80% power, two-sided 5%, from the noncentral t: common/statistics.h).
#pragma once
#include <cmath>
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
  bool no_variance = false;             // every pair differs by exactly `mean`: not testable
  bool lo_clipped = false, hi_clipped = false;  // the t interval left the range: clipped to it
  bool beyond_range = false;            // `detectable` exceeds what the range allows
};

// The values a difference of the measure can take: a share's difference lies in [-1, 1], a σ₅₀
// difference within ± the σ grid's span; unbounded by default.
struct DifferenceRange {
  double lo = -INFINITY, hi = INFINITY;
};

// mean(b_s - a_s) over seeds s present in both, with its t interval clipped to `range`. With at
// least kMinSeeds pairs it is tested unless every pair differs by the same amount (no variance).
PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b,
                                   DifferenceRange range = {});
// "[lo, hi]" with `digits` decimals, an end clipped to the range marked ‡.
std::string interval_text(const PairedDifference& d, int digits);
// "detectable ±x", or "detectable: beyond the range (±x > span)" where no true difference the
// range allows could be detected.
std::string detectable_text(const PairedDifference& d, int digits, const std::string& range_name);
// The sentence that explains ‡ and "beyond", for a report's header.
extern const char* const kClippedIntervalNote;

struct GroupReport {
  std::string title;  // "every, full, 40 points"
  std::string score;  // what the score is ("share of sequences with a wrong sign ...")
  double score_max = INFINITY;  // the score lies in [0, score_max] (a share: 1)
  std::vector<double> sigmas;
  std::vector<SeedScores> runs;
};

// Markdown: per group a table of each function's mean score per sigma (over seeds, with the
// seed range) and of its paired difference to `reference`.
std::string experiment_markdown(const std::vector<GroupReport>& groups,
                                const std::string& reference);

}  // namespace bb::icl
