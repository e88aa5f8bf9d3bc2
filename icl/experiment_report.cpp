#include "icl/experiment_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "probing/statistics.h"

namespace bb::icl {

PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b) {
  const PairedTest t = paired_t_test(a, b);  // probing/statistics.h
  PairedDifference d;
  d.n = t.n;
  d.mean = d.lo = d.hi = t.mean;
  if (t.n < kMinSeeds) return d;
  d.tested = true;
  d.sd = t.sd;
  d.detectable = minimum_detectable_difference(t.se, t.df);  // 80% power, from the noncentral t
  d.lo = t.lo, d.hi = t.hi;
  // every pair differing by the same non-zero amount has no variance: not a chance difference
  d.p = t.p >= 0 ? t.p : 0.0;
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
