#include "probing/report_charts.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "common/svg.h"

namespace bb {

namespace {

using Stats = std::vector<std::map<std::string, Stat>>;  // [group][name]

// Bars [group][name] of mean ± sd.
std::string bars_svg(const Comparison& c, const std::string& title,
                     const std::vector<std::string>& names, const Stats& stats) {
  BarChart b{title, names, c.groups, {}, {}};
  for (size_t g = 0; g < c.groups.size(); ++g) {
    b.mean.emplace_back(), b.sd.emplace_back();
    for (const auto& n : names) {
      b.mean.back().push_back(stats[g].at(n).mean);
      b.sd.back().push_back(stats[g].at(n).sd);
    }
  }
  return bar_chart_svg(b);
}

// Per phenomenon, each compared group minus its baseline with the 95% interval; filled points are
// resolved differences.
std::string differences_svg(const Comparison& c) {
  DifferenceChart d;
  d.title = "Difference to " + c.baseline + " per phenomenon (points)";
  d.note = "whiskers: 95% t interval over seeds (paired by seed, else Welch); filled: resolved "
           "(Holm-corrected p < 0.05 and the interval excludes 0); hollow: unresolved or untested";
  d.categories = c.phenomena;
  d.categories.push_back("overall");
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.compared(g)) continue;
    d.groups.push_back(c.groups[g] + " − " + c.groups[size_t(c.baseline_of[g])]);
    d.diff.emplace_back(), d.lo.emplace_back(), d.hi.emplace_back();
    d.has_ci.emplace_back(), d.resolved.emplace_back();
    for (const auto& ph : d.categories) {
      const Difference& x = ph == "overall" && !c.phenomenon_diff[g].count(ph)
                                ? c.overall_diff[g] : c.phenomenon_diff[g].at(ph);
      d.diff.back().push_back(x.diff);
      d.lo.back().push_back(x.lo);
      d.hi.back().push_back(x.hi);
      d.has_ci.back().push_back(x.has_ci);
      d.resolved.back().push_back(x.resolved);
    }
  }
  return difference_chart_svg(d);
}

// Per group, the mean over its runs of a metrics.jsonl series at each step (every group drawn).
LineChart group_curves(const Comparison& c, std::map<int64_t, double> RunResult::*series) {
  LineChart lc;
  lc.groups = c.groups;
  lc.points.resize(c.groups.size());
  for (size_t g = 0; g < c.groups.size(); ++g) {
    std::map<int64_t, std::pair<double, int>> at;  // step -> (sum, count)
    for (const auto& r : c.runs)
      if (r.group == c.groups[g])
        for (const auto& [step, v] : r.*series) at[step].first += v, at[step].second += 1;
    for (const auto& [step, v] : at)
      lc.points[g].push_back({double(step), v.first / double(v.second)});
  }
  return lc;
}

bool has_curve(const LineChart& lc) {
  for (const auto& points : lc.points)
    if (points.size() >= 2) return true;
  return false;
}

}  // namespace

std::vector<ReportChart> report_charts(const Comparison& c) {
  std::vector<ReportChart> charts = {
      {"phenomena.svg", bars_svg(c, "Accuracy per phenomenon", c.phenomena, c.phenomenon)},
      {"paradigms.svg", bars_svg(c, "Accuracy per paradigm", c.paradigms, c.paradigm)}};
  for (size_t g = 0; g < c.groups.size(); ++g)
    if (c.compared(g)) {
      charts.push_back({"differences.svg", differences_svg(c)});
      break;
    }
  LineChart acc = group_curves(c, &RunResult::curve);
  acc.title = "Overall accuracy during training (--probe-every)";
  acc.note = "mean over each group's runs at each probed step";
  if (has_curve(acc)) charts.push_back({"learning_curve.svg", line_chart_svg(acc)});
  LineChart dev = group_curves(c, &RunResult::dev_loss);
  dev.title = "Dev loss during training";
  dev.note = "mean over each group's runs at each evaluation (metrics.jsonl)";
  dev.y_label = "dev loss (cross-entropy, nats)";
  dev.percent = false;
  dev.chance = std::nan("");
  if (has_curve(dev)) charts.push_back({"dev_loss.svg", line_chart_svg(dev)});
  return charts;
}

}  // namespace bb
