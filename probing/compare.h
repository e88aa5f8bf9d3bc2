// Comparing probe results across attention functions: per paradigm and phenomenon the mean ± sd
// over seeds per group, and each group's difference to the baseline group of its stratum (the
// same method, size, steps and suite: results of different ones are never subtracted). The seed
// is the unit of replication:
//   - runs of the two groups are paired when they have the same seeds and each seed's runs the
//     same data-order settings (corpus, tokenizer, seed, batching, masking, dev split, steps: the
//     run.json settings probe copied into the result); then the paired t test on the per-seed
//     differences, else Welch's t test; its 95% t interval is the difference's interval;
//   - with fewer than kMinSeedsForClaims seeds in either group nothing is tested: "exploratory";
//   - p is Holm-corrected over the paradigms (and, separately, the phenomena) of each comparison;
//     "resolved" only when the corrected p < 0.05 and the interval excludes 0;
//   - every test carries the minimum detectable difference at 80% power (its n and df, from the
//     noncentral t): an estimate, since its standard error comes from the same few seeds;
//   - a secondary 95% bootstrap interval resamples seeds and pairs (pairs only with one seed).
#pragma once
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "common/statistics.h"

namespace bb {

struct RunResult {
  std::filesystem::path path;
  nlohmann::json header;
  std::string label;    // the attention label ("softmax", "ssa(n=2 frozen)", ...)
  std::string stratum;  // what else differs between the files given ("pll, 10000 steps"), or ""
  std::string group;    // label, then ", " stratum when there is one
  std::string stratum_but_method;  // the stratum without the scoring method (compare across kinds)
  int64_t seed = 0;
  std::vector<std::string> paradigms;                     // in file order
  std::map<std::string, std::string> phenomenon_of;
  std::map<std::string, double> accuracy;                 // paradigm -> percent
  std::map<std::string, std::vector<double>> outcomes;    // paradigm -> per pair (may be empty)
  std::map<std::string, std::vector<int>> pair_index;     // paradigm -> per pair, its index
  // paradigm -> pair index -> {good, bad} corpus counts of the differing word (n-gram references)
  std::map<std::string, std::map<int, std::array<int64_t, 2>>> word_counts;
  std::map<int64_t, double> curve;     // step -> overall accuracy, from the model's metrics.jsonl
  std::map<int64_t, double> dev_loss;  // step -> dev loss, from the same file
};

// The result files that paths name: result .json files as given (experiment's NAME.settings.json
// skipped), a directory's result .json files sorted; a pairs file or a directory without results
// is a one-line error.
std::vector<std::filesystem::path> result_files(const std::vector<std::filesystem::path>& paths);
// Loads F.json and its F.pairs.jsonl; groups are named by what differs between the files.
std::vector<RunResult> load_runs(const std::vector<std::filesystem::path>& files);

inline constexpr double kAlpha = 0.05;  // for "resolved": corrected p < kAlpha and 95% interval

inline constexpr int kMinSeedsForClaims = 3;  // per group; below: exploratory, no test

enum class SeedTest { none, paired, welch };
std::string seed_test_name(SeedTest t);  // "paired t", "Welch t", "none"

struct Difference {
  double diff = 0, lo = 0, hi = 0;  // group - baseline, 95% t interval of `test`
  bool has_ci = false;
  SeedTest test = SeedTest::none;
  int n = 0;                    // seeds: pairs (paired) or the smaller group (Welch)
  double df = 0, se = 0;
  double mde = NAN;             // minimum detectable difference, 80% power (an estimate)
  double p = -1, p_adj = -1;    // the test's two-sided p, Holm-corrected (-1: none)
  bool resolved = false;        // p_adj < kAlpha and the interval excludes 0
  double boot_lo = 0, boot_hi = 0;  // secondary: 95% bootstrap interval (seeds and pairs)
  bool has_boot = false;
};

// Group b against baseline a on per-seed values: the difference of means and, with at least
// kMinSeedsForClaims values on each side, the paired t test (a[i] and b[i] the same seed; needs
// equal sizes) or Welch's, with its 95% interval and minimum detectable difference. No Holm here.
Difference seed_difference(const std::vector<double>& a, const std::vector<double>& b, bool paired);

// compare --equivalence: an endpoint and its margin (probing/equivalence.h).
struct EquivalenceMargin {
  std::string endpoint;  // overall | dev_loss
  double margin = 0;
};

struct Comparison {
  std::string baseline;             // the baseline label ("softmax" unless chosen)
  std::vector<std::string> groups;  // baseline groups first, then in file order
  std::vector<std::string> labels, strata;  // [group]
  std::vector<int> seeds;                   // [group] number of runs
  std::vector<bool> paired;                 // [group] paired by seed with its baseline group
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
  // Word frequency (probing/word_frequency.h), from the first reference whose pairs record word
  // counts: [group][paradigm, and kAllParadigms pooled] the percent of the qualifying pairs won by
  // the sentence with the more frequent word; n 0 where a group has no pair files.
  std::string frequency_source;                  // that reference's file name ("": none)
  std::map<std::string, int> frequency_pairs;    // paradigm (and kAllParadigms) -> qualifying
  std::vector<std::map<std::string, Stat>> frequency_share;
  std::vector<RunResult> runs;
  // compare --primary: the endpoints a README fixed ("overall", phenomena, paradigms), tested
  // together in findings.md (probing/primary_endpoints.h); empty: none.
  std::vector<std::string> primary;
  // compare --equivalence: the margins fixed before the evaluation, tested in findings.md across
  // the two arms (strata) of the results; empty: none.
  std::vector<EquivalenceMargin> equivalence;
  // compare --across-kinds: the gpt2 groups no roberta group matched (none of the same function
  // and stratum but for the method); the report names them.
  std::vector<std::string> unmatched_across_kinds;
  bool compared(size_t g) const { return baseline_of[g] >= 0; }
};

// A run's overall accuracy: the mean over its paradigms (what the groups' overall averages).
double overall_accuracy(const RunResult& r);

// `baseline`: the attention label every other group of a stratum is compared with; with more than
// one group, a label no result has is a one-line error listing the labels.
// `across_kinds` (compare --across-kinds): instead, every gpt2 group is compared with the roberta
// group of the same function whose stratum is the same but for the scoring method (a causal LM is
// scored causal, an encoder holistic or pll); more than one such group is a one-line error (give
// one roberta method's results at a time). Paired by seed, though the kinds' batches differ.
Comparison compare_runs(std::vector<RunResult> runs, int bootstrap = 1000, uint64_t seed = 1,
                        const std::string& baseline =
                            attention_function_name(AttentionFunction::softmax),
                        bool across_kinds = false);
// The label compare --across-kinds gives as the baseline in its texts.
inline constexpr const char* kAcrossKindsBaseline =
    "the roberta group of the same function (paired by seed: the same corpus, tokenizer, seed and "
    "batch size, though a causal LM's batches are not the encoder's)";

}  // namespace bb
