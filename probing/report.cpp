#include "probing/report.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "common/files.h"
#include "probing/svg.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

using Stats = std::vector<std::map<std::string, Stat>>;         // [group][name]
using Diffs = std::vector<std::map<std::string, Difference>>;    // [group - 1][name]

std::string pm(const Stat& s) {
  return s.n > 1 ? fmt::format("{:.1f} ± {:.1f}", s.mean, s.sd) : fmt::format("{:.1f}", s.mean);
}
std::string diff_str(const Difference& d) {
  return d.has_ci ? fmt::format("{:+.1f} [{:+.1f}, {:+.1f}]", d.diff, d.lo, d.hi)
                  : fmt::format("{:+.1f}", d.diff);
}
std::string p_str(double p) {
  if (p < 0) return "n/a";
  return p < 1e-4 ? "<1e-4" : fmt::format("{:.4f}", p);
}

// The markdown heading, explanation and table of runs.
std::string md_runs(const Comparison& c) {
  std::string md = "# Attention-function comparison\n\n";
  md += fmt::format("{} runs. Accuracy in percent, mean ± sd over seeds. Differences are each "
                    "group minus the baseline **{}**, with a 95% bootstrap interval over seeds "
                    "and pairs. McNemar: paired test per paradigm, runs matched by seed order, "
                    "discordant pairs pooled (b = baseline right / other wrong, c = the reverse).\n\n",
                    c.runs.size(), c.groups[0]);
  md += "## Runs\n\n| file | group | seed | steps | method | overall |\n|---|---|---|---|---|---|\n";
  for (const auto& r : c.runs)
    md += fmt::format("| {} | {} | {} | {} | {} | {:.1f} |\n", r.path.filename().string(), r.group,
                      r.seed, r.header["config"].value("steps", int64_t(0)),
                      r.header["method"].get<std::string>(), r.header.value("overall", 0.0));
  return md;
}

// "## title" and a table: one row per name, columns per group, differences per non-baseline
// group and, with `mcnemar`, the first non-baseline group's McNemar b/c and p.
std::string md_table(const Comparison& c, const std::string& title,
                     const std::vector<std::string>& names, const Stats& stats, const Diffs& diffs,
                     bool mcnemar) {
  const int G = int(c.groups.size());
  std::string md = "\n## " + title + "\n\n| " + (mcnemar ? "paradigm" : "phenomenon");
  for (const auto& g : c.groups) md += " | " + g;
  for (int g = 1; g < G; ++g) md += " | " + c.groups[g] + " − " + c.groups[0];
  if (mcnemar) md += " | McNemar b/c | p";
  md += " |\n|---";
  for (int i = 0; i < 2 * G - 1 + (mcnemar ? 2 : 0); ++i) md += "|---";
  md += "|\n";
  for (const auto& n : names) {
    md += "| " + n;
    for (int g = 0; g < G; ++g) md += " | " + pm(stats[g].at(n));
    for (int g = 1; g < G; ++g) md += " | " + diff_str(diffs[g - 1].at(n));
    if (mcnemar && G > 1) {
      const auto& d = diffs[0].at(n);
      md += fmt::format(" | {}/{} | {}", d.b, d.c, p_str(d.p));
    }
    md += " |\n";
  }
  return md;
}

std::string report_md(const Comparison& c, bool learning_curve) {
  const int G = int(c.groups.size());
  std::string md = md_runs(c);
  md += md_table(c, "Phenomena", c.phenomena, c.phenomenon, c.phenomenon_diff, false);
  md += "| **overall (mean over paradigms)**";
  for (int g = 0; g < G; ++g) md += " | **" + pm(c.overall[g]) + "**";
  for (int g = 1; g < G; ++g) md += " | **" + diff_str(c.overall_diff[g - 1]) + "**";
  md += " |\n";
  md += md_table(c, "Paradigms", c.paradigms, c.paradigm, c.paradigm_diff, true);
  md += "\n![phenomena](phenomena.svg)\n\n![paradigms](paradigms.svg)\n";
  if (learning_curve) md += "\n![learning curve](learning_curve.svg)\n";
  return md;
}

// CSV rows of one level: per name and group mean, sd, runs; for non-baseline groups the
// difference, its interval and (paradigms only) McNemar b, c, p.
std::string csv_rows(const Comparison& c, const std::string& level,
                     const std::vector<std::string>& names, const Stats& stats, const Diffs& diffs) {
  std::string csv;
  for (const auto& n : names)
    for (size_t g = 0; g < c.groups.size(); ++g) {
      const Stat& s = stats[g].at(n);
      csv += fmt::format("{},\"{}\",\"{}\",{:.4f},{:.4f},{}", level, n, c.groups[g], s.mean, s.sd, s.n);
      if (g == 0) {
        csv += ",,,,,,\n";
        continue;
      }
      const Difference& d = diffs[g - 1].at(n);
      const bool paradigm = level == "paradigm";
      csv += fmt::format(",{:.4f},{},{},{},{},{}\n", d.diff,
                         d.has_ci ? fmt::format("{:.4f}", d.lo) : "",
                         d.has_ci ? fmt::format("{:.4f}", d.hi) : "",
                         paradigm ? std::to_string(d.b) : "", paradigm ? std::to_string(d.c) : "",
                         paradigm && d.p >= 0 ? fmt::format("{:.6g}", d.p) : "");
    }
  return csv;
}

std::string report_csv(const Comparison& c) {
  std::string csv = "level,name,group,mean,sd,runs,diff_vs_baseline,ci_low,ci_high,mcnemar_b,"
                    "mcnemar_c,mcnemar_p\n";
  csv += csv_rows(c, "phenomenon", c.phenomena, c.phenomenon, c.phenomenon_diff);
  csv += csv_rows(c, "paradigm", c.paradigms, c.paradigm, c.paradigm_diff);
  for (size_t g = 0; g < c.groups.size(); ++g)
    csv += fmt::format("overall,\"overall\",\"{}\",{:.4f},{:.4f},{}{}\n", c.groups[g],
                       c.overall[g].mean, c.overall[g].sd, c.overall[g].n,
                       g == 0 ? ",,,,,," : fmt::format(",{:.4f},{:.4f},{:.4f},,,",
                                                       c.overall_diff[g - 1].diff,
                                                       c.overall_diff[g - 1].lo,
                                                       c.overall_diff[g - 1].hi));
  return csv;
}

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

// Per group, the mean over its runs' probe_overall at each probed step.
LineChart learning_curves(const Comparison& c) {
  const size_t G = c.groups.size();
  LineChart lc{"Overall accuracy during training", c.groups,
               std::vector<std::vector<std::pair<double, double>>>(G)};
  for (size_t g = 0; g < G; ++g) {
    std::map<int64_t, std::pair<double, int>> at;  // step -> (sum, count)
    for (const auto& r : c.runs)
      if (r.group == c.groups[g])
        for (const auto& [step, acc] : r.curve) at[step].first += acc, at[step].second += 1;
    for (const auto& [step, v] : at) lc.points[g].push_back({double(step), v.first / v.second});
  }
  return lc;
}

}  // namespace

void write_report(const fs::path& dir, const Comparison& c) {
  fs::create_directories(dir);
  const LineChart lc = learning_curves(c);
  bool curve = false;  // a chart only when some group has at least two points
  for (const auto& points : lc.points) curve |= points.size() >= 2;
  write_file_atomic(dir / "report.md", report_md(c, curve));
  write_file_atomic(dir / "report.csv", report_csv(c));
  write_file_atomic(dir / "phenomena.svg",
                    bars_svg(c, "Accuracy per phenomenon", c.phenomena, c.phenomenon));
  if (curve) write_file_atomic(dir / "learning_curve.svg", line_chart_svg(lc));
  write_file_atomic(dir / "paradigms.svg",
                    bars_svg(c, "Accuracy per paradigm", c.paradigms, c.paradigm));
}

}  // namespace bb
