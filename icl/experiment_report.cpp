#include "icl/experiment_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "probing/statistics.h"

namespace bb::icl {

PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b) {
  PairedDifference d;
  const size_t n = std::min(a.size(), b.size());
  d.n = int(n);
  if (n == 0) return d;
  std::vector<double> diff(n);
  for (size_t i = 0; i < n; ++i) diff[i] = b[i] - a[i];
  double mean = 0;
  for (double x : diff) mean += x / double(n);
  d.mean = d.lo = d.hi = mean;
  if (int(n) < kMinSeeds) return d;
  double ss = 0;
  for (double x : diff) ss += (x - mean) * (x - mean);
  const double se = std::sqrt(ss / double(n - 1) / double(n)), df = double(n - 1);
  const double t975 = student_t_quantile(0.05, df);
  d.tested = true;
  d.lo = mean - t975 * se, d.hi = mean + t975 * se;
  d.detectable = minimum_detectable_difference(se, df);  // 80% power, from the noncentral t
  d.sd = std::sqrt(ss / double(n - 1));
  d.p = se > 0 ? student_t_two_sided_p(mean / se, df) : (mean == 0 ? 1.0 : 0.0);
  d.resolved = d.lo > 0 || d.hi < 0;
  return d;
}

std::string experiment_markdown(const std::vector<GroupReport>& groups,
                                const std::string& reference) {
  std::string md = fmt::format(
      "# ICL experiment\n\nScores: lower is better. Each function's mean over seeds "
      "[lowest, highest seed]; the difference to {} is paired by seed, with a 95% t interval over "
      "seeds (at least {} seeds). An interval containing 0 is inconclusive: beside it, the "
      "smallest difference these seeds could have detected (80% power, two-sided 5%).\n",
      reference, kMinSeeds);
  for (const GroupReport& g : groups) {
    std::set<std::string> functions;
    for (const SeedScores& r : g.runs) functions.insert(r.function);
    // function -> seed -> scores
    std::map<std::string, std::map<int, const SeedScores*>> by;
    for (const SeedScores& r : g.runs) by[r.function][r.seed] = &r;
    md += fmt::format("\n## {}\n\nScore: {}.\n\n| sigma |", g.title, g.score);
    for (const std::string& f : functions) md += fmt::format(" {} |", f);
    for (const std::string& f : functions)
      if (f != reference && by.count(reference)) md += fmt::format(" {} − {} |", f, reference);
    md += "\n|---|";
    for (size_t i = 0; i < functions.size(); ++i) md += "---|";
    for (const std::string& f : functions)
      if (f != reference && by.count(reference)) md += "---|";
    md += "\n";
    for (size_t si = 0; si < g.sigmas.size(); ++si) {
      md += fmt::format("| {:g} |", g.sigmas[si]);
      for (const std::string& f : functions) {
        double mean = 0, lo = INFINITY, hi = -INFINITY;
        for (const auto& [seed, r] : by[f]) {
          const double v = r->score[si];
          mean += v / double(by[f].size()), lo = std::min(lo, v), hi = std::max(hi, v);
        }
        md += fmt::format(" {:.3f} [{:.3f}, {:.3f}] |", mean, lo, hi);
      }
      for (const std::string& f : functions) {
        if (f == reference || !by.count(reference)) continue;
        std::vector<double> a, b;
        for (const auto& [seed, r] : by[f])
          if (by[reference].count(seed)) a.push_back(by[reference][seed]->score[si]), b.push_back(r->score[si]);
        const PairedDifference d = paired_difference(a, b);
        if (!d.tested)
          md += fmt::format(" {:+.3f} ({} paired seeds: no test) |", d.mean, d.n);
        else if (d.resolved)
          md += fmt::format(" **{:+.3f}** [{:+.3f}, {:+.3f}] |", d.mean, d.lo, d.hi);
        else
          md += fmt::format(" {:+.3f} [{:+.3f}, {:+.3f}] inconclusive (detectable ±{:.3f}) |",
                            d.mean, d.lo, d.hi, d.detectable);
      }
      md += "\n";
    }
  }
  return md;
}

}  // namespace bb::icl
