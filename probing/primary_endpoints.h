// compare --primary: the endpoints a results README fixed before the evaluation, tested together.
// For every compared group: each endpoint's difference to its baseline (its test, 95% interval,
// uncorrected p, detectable difference), Holm's correction over these endpoints alone (not over
// the level's phenomena or paradigms, as report.md's p), and what is resolved. Beside them, each
// reference group of several runs (a published model's runs) with the range of its runs' overall
// accuracy, and where each baseline group's mean stands against that range.
#pragma once
#include <string>
#include <vector>

#include "probing/compare.h"

namespace bb {

// The names --primary takes: "overall", a phenomenon or a paradigm of the comparison; else a
// one-line error listing the phenomena.
void check_primary_endpoints(const Comparison& c, const std::vector<std::string>& names);

// The findings.md section ("" without endpoints).
std::string primary_endpoints_md(const Comparison& c, const std::vector<std::string>& names);

}  // namespace bb
