// The comparison report's charts (SVG): accuracy bars per phenomenon and paradigm (± sd over
// seeds), each compared group's differences per phenomenon with their intervals, and, from the
// runs' metrics.jsonl, accuracy and dev loss during training.
#pragma once
#include <string>
#include <vector>

#include "probing/compare.h"

namespace bb {

struct ReportChart {
  std::string file;  // "phenomena.svg", ...
  std::string svg;
};

// phenomena.svg and paradigms.svg always; differences.svg when a group is compared with a
// baseline; learning_curve.svg and dev_loss.svg when some group has points at two steps or more.
std::vector<ReportChart> report_charts(const Comparison& c);

}  // namespace bb
