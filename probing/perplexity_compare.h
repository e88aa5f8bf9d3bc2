// compare-perplexity: the seed-level comparison of `babyberta perplexity` files (runs/
// perplexity_run.h), the perplexity endpoints of a results README (e.g. SSA − softmax in and out of
// distribution). Files are grouped by model kind and attention function; within each kind every
// function is compared with the baseline function, on each input (by its name across models; the
// sentences must be the same, by their sha256), by the difference of mean perplexity (function −
// baseline: negative is lower perplexity): the paired t test over seeds when both groups have the
// same seeds, else Welch's, 95% interval, detectable difference (probing/compare.h,
// seed_difference), Holm over the inputs of that kind and function (the family of endpoints it
// answers). Kinds are never compared with each other: a causal LM's perplexity and a masked LM's
// pseudo-perplexity are different measures.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/statistics.h"
#include "probing/compare.h"

namespace bb {

enum class PerplexityUnit { word, token };
PerplexityUnit parse_perplexity_unit(const std::string& name);  // "word" | "token"

struct PerplexityFile {
  std::string file, kind, attention, measure;
  std::optional<int64_t> seed;
  struct Input {
    double per_word = 0, per_token = 0;
    std::string sha256;
  };
  std::map<std::string, Input> inputs;  // by input name
};

// One perplexity file, checked: a one-line error naming the file and the field otherwise.
PerplexityFile read_perplexity_file(const std::filesystem::path& path);

struct PerplexityContrast {
  std::string kind, measure, input, function, baseline;
  std::vector<int64_t> seeds;  // the function group's seeds (sorted)
  Stat base, other;            // mean perplexity of each group
  Difference d;                // other − base; p_adj: Holm over the kind's inputs for `function`
};

struct PerplexityComparison {
  std::string baseline;
  PerplexityUnit unit = PerplexityUnit::word;
  std::vector<PerplexityContrast> contrasts;  // by kind, function, input
  std::vector<std::string> files;             // as given
};

// `baseline`: the function every other one is compared with, within each kind; a kind without it,
// a function group with two files of one seed, or files of one input with different sentences is
// a one-line error.
PerplexityComparison compare_perplexities(const std::vector<PerplexityFile>& files,
                                          const std::string& baseline, PerplexityUnit unit);

// The report: a markdown table (one row per contrast: n, test, means, difference, interval, p,
// Holm's p, detectable difference, verdict) and the same as CSV; deterministic (no times, no
// absolute paths beyond the files' names as given).
std::string perplexity_report_md(const PerplexityComparison& c);
std::string perplexity_report_csv(const PerplexityComparison& c);

}  // namespace bb
