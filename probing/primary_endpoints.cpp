#include "probing/primary_endpoints.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"
#include "common/statistics.h"

namespace bb {

namespace {

bool is_paradigm(const Comparison& c, const std::string& n) {
  return std::find(c.paradigms.begin(), c.paradigms.end(), n) != c.paradigms.end();
}
bool is_phenomenon(const Comparison& c, const std::string& n) {
  return std::find(c.phenomena.begin(), c.phenomena.end(), n) != c.phenomena.end();
}

const Difference& difference_of(const Comparison& c, size_t g, const std::string& n) {
  if (n == "overall") return c.overall_diff[g];
  if (is_phenomenon(c, n)) return c.phenomenon_diff[g].at(n);
  return c.paradigm_diff[g].at(n);
}

// A run's overall accuracy: its file's `overall`, else the mean of its paradigms.
double run_overall(const RunResult& r) {
  if (r.header.contains("overall")) return r.header["overall"].get<double>();
  double s = 0;
  for (const auto& [p, a] : r.accuracy) s += a / double(r.accuracy.size());
  return s;
}

}  // namespace

void check_primary_endpoints(const Comparison& c, const std::vector<std::string>& names) {
  for (const std::string& n : names)
    BB_CHECK(n == "overall" || is_phenomenon(c, n) || is_paradigm(c, n),
             "--primary: '{}' is neither overall nor a phenomenon or paradigm of these results "
             "(phenomena: {})", n, fmt::join(c.phenomena, ", "));
}

std::string primary_endpoints_md(const Comparison& c, const std::vector<std::string>& names) {
  if (names.empty()) return "";
  check_primary_endpoints(c, names);
  std::string md = fmt::format(
      "\n## Primary endpoints\n\nFixed before the evaluation: {}. Each difference is the group "
      "minus its baseline in accuracy points with its test's 95% interval and uncorrected p; "
      "Holm's correction runs over these {} endpoints alone (report.md's p are corrected over a "
      "whole level instead). Resolved: the Holm p < 0.05 and the interval excludes 0. An "
      "endpoint without a test (fewer than {} seeds, or no variance) counts with p = 1.\n",
      fmt::join(names, ", "), names.size(), kMinSeedsForClaims);
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.compared(g)) continue;
    std::vector<double> p;
    for (const std::string& n : names) {
      const Difference& d = difference_of(c, g, n);
      p.push_back(d.test != SeedTest::none && d.has_ci && d.p >= 0 ? d.p : 1.0);
    }
    const std::vector<double> holm = holm_adjust(p);
    md += fmt::format("\n### {} − {}\n\n| endpoint | difference | test | p | p (Holm over {}) | "
                      "detectable | resolved |\n|---|---|---|---|---|---|---|\n",
                      c.groups[g], c.groups[size_t(c.baseline_of[g])], names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const Difference& d = difference_of(c, g, names[i]);
      const bool tested = d.test != SeedTest::none && d.has_ci && d.p >= 0;
      const bool resolved = tested && holm[i] < 0.05 && (d.lo > 0 || d.hi < 0);
      md += fmt::format(
          "| {} | {:+.1f}{} | {} | {} | {} | {} | {} |\n", names[i], d.diff,
          tested ? fmt::format(" [{:+.1f}, {:+.1f}]", d.lo, d.hi) : "",
          tested ? fmt::format("{}, {} seeds", seed_test_name(d.test), d.n)
                 : "none (exploratory or no variance)",
          tested ? fmt::format("{:.3f}", d.p) : "–", tested ? fmt::format("{:.3f}", holm[i]) : "–",
          tested && std::isfinite(d.mde) ? fmt::format("≈ {:.1f}", d.mde) : "–",
          resolved ? "**yes**" : tested ? "no: inconclusive" : "not tested");
    }
  }
  // Reference groups of several runs: the range of their runs' overall accuracy.
  std::map<std::string, std::vector<double>> reference;
  for (const RunResult& r : c.runs)
    if (r.stratum == "reference") reference[r.group].push_back(run_overall(r));
  bool header = false;
  for (const auto& [group, v] : reference) {
    if (v.size() < 2) continue;
    if (!header) md += "\n### Against the reference groups\n\n";
    header = true;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const Stat s = stat_of(v);
    md += fmt::format("- **{}**: overall {:.1f} ± {:.1f} over {} runs, from {:.2f} to {:.2f}.",
                      group, s.mean, s.sd, v.size(), *lo, *hi);
    for (size_t g = 0; g < c.groups.size(); ++g) {
      if (c.labels[g] != c.baseline || c.strata[g] == "reference") continue;
      const double m = c.overall[g].mean;
      md += fmt::format(" {} ({} seeds, mean {:.1f}): {}.", c.groups[g], c.overall[g].n, m,
                        m < *lo   ? fmt::format("below its lowest run by {:.1f} points", *lo - m)
                        : m > *hi ? fmt::format("above its highest run by {:.1f} points", m - *hi)
                                  : std::string("within its range"));
    }
    md += "\n";
  }
  return md;
}

}  // namespace bb
