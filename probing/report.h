// The comparison report in a directory: report.md (runs, per-phenomenon and per-paradigm tables
// of mean ± sd per group and differences to the baseline), report.csv (the same numbers, one row
// per level, name and group), phenomena.svg, paradigms.svg and, when runs were probed while
// training, learning_curve.svg.
#pragma once
#include <filesystem>

#include "probing/compare.h"

namespace bb {

void write_report(const std::filesystem::path& dir, const Comparison& c);

}  // namespace bb
