// compare --equivalence: whether two arms of a study that differ in one setting (the strata of
// the results given: fp32 against bf16, say) are equivalent within margins fixed beforehand, by
// two one-sided paired t tests (common/statistics.h, equivalence_test) over the pairs of runs with
// the same attention label and seed. The reference arm is the stratum of the first result file
// given; the other arm must be the only other one. Endpoints: "overall" (Zorro accuracy, points)
// and "dev_loss" (the final dev loss in each run's model's metrics.jsonl, read as the learning
// curves are). A result equivalent within its margin is said so; any other is "not shown
// equivalent", never "equivalent" or "no difference".
#pragma once
#include <string>
#include <vector>

#include "probing/compare.h"

namespace bb {

// "overall=1.0,dev_loss=0.02": one-line errors name the item and what was expected.
std::vector<EquivalenceMargin> parse_equivalence(const std::string& spec);
// The findings.md section ("" without margins); one-line errors for arms that do not pair.
std::string equivalence_md(const Comparison& c, const std::vector<EquivalenceMargin>& margins);

}  // namespace bb
