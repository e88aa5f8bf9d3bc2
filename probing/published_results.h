// Published per-paradigm accuracies as probe results, for compare's reference groups: UnMasked's
// results/zorro.csv (phueb/UnMasked; one row per model run and scoring method, a column per Zorro
// paradigm in percent, `overall` their mean rounded to 2 decimals, `rep` the run). Each selected
// row becomes one result whose header says `"reference": true` (compare shows it beside the
// groups, mean ± sd over its runs, never compared), with the source file's sha256 and row. No
// number is retyped: the accuracies are the file's, the pair counts the suite's.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "probing/suite.h"

namespace bb {

struct UnmaskedSelection {
  std::string model = "BabyBERTa";     // the `model` column
  std::string corpora = "AO-CHILDES";  // the `corpora` column
  std::string method = "holistic";     // ours: holistic (UnMasked's holistic) or pll (its mlm)
  std::string source;                  // where the file comes from (repository@commit:path)
  std::string label;                   // the group's label (default "MODEL (UnMasked)")
};

// The selected rows of `csv` as probe result headers, in file order. Every paradigm column must be
// one of the suite's paradigms and every suite paradigm a column; `overall` must equal the mean
// of the row's paradigms (to its 2 decimals); else a one-line error naming file:line.
std::vector<nlohmann::json> unmasked_results(const std::filesystem::path& csv,
                                             const UnmaskedSelection& selection, const Suite& suite);

}  // namespace bb
