#include "icl/experiment_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/statistics.h"

namespace bb::icl {

PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b,
                                   DifferenceRange range) {
  const PairedTest t = paired_t_test(a, b);  // common/statistics.h
  PairedDifference d;
  d.n = t.n;
  d.mean = d.lo = d.hi = t.mean;
  if (t.n < kMinSeeds) return d;
  d.sd = t.sd;
  if (!(t.se > 0)) {  // every pair differs by the same amount: no t interval, no test
    d.no_variance = true;
    return d;
  }
  d.tested = true;
  d.detectable = minimum_detectable_difference(t.se, t.df);  // 80% power, from the noncentral t
  d.beyond_range = d.detectable > std::max(range.hi, -range.lo);
  d.lo = t.lo, d.hi = t.hi;
  if (d.lo < range.lo) d.lo = range.lo, d.lo_clipped = true;
  if (d.hi > range.hi) d.hi = range.hi, d.hi_clipped = true;
  d.p = t.p;
  d.resolved = t.lo > 0 || t.hi < 0;
  return d;
}

const char* const kClippedIntervalNote =
    "An interval end marked ‡ is where the t interval left the values the difference can take "
    "(±1 for a share; ± the grid's span for a σ): clipped to them, it says only that the seeds "
    "allow any difference up to that end. A detectable difference \"beyond the range\" is larger "
    "than any difference the measure allows: these seeds could not have detected one.";

std::string interval_text(const PairedDifference& d, int digits) {
  return fmt::format("[{:+.{}f}{}, {:+.{}f}{}]", d.lo, digits, d.lo_clipped ? "‡" : "", d.hi,
                     digits, d.hi_clipped ? "‡" : "");
}

std::string detectable_text(const PairedDifference& d, int digits, const std::string& range_name) {
  if (d.beyond_range)
    return fmt::format("detectable: beyond {} (±{:.{}f})", range_name, d.detectable, digits);
  return fmt::format("detectable ±{:.{}f}", d.detectable, digits);
}

std::string experiment_markdown(const std::vector<GroupReport>& groups,
                                const std::string& reference) {
  std::string md = fmt::format(
      "# ICL experiment\n\nScores: lower is better. Each function's mean over seeds "
      "[lowest, highest seed]; the difference to {} is paired by seed, with a 95% t interval over "
      "seeds (at least {} seeds). An interval containing 0 is inconclusive: beside it, the "
      "smallest difference these seeds could have detected (80% power, two-sided 5%). {}\n",
      reference, kMinSeeds, kClippedIntervalNote);
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
        const PairedDifference d =
            paired_difference(a, b, {-(g.score_max), g.score_max});  // scores in [0, score_max]
        if (d.no_variance)
          md += fmt::format(" {:+.3f} (no variance: every seed pair differs by exactly this; not "
                            "testable) |", d.mean);
        else if (!d.tested)
          md += fmt::format(" {:+.3f} ({} paired seeds: no test) |", d.mean, d.n);
        else if (d.resolved)
          md += fmt::format(" **{:+.3f}** {} |", d.mean, interval_text(d, 3));
        else
          md += fmt::format(" {:+.3f} {} inconclusive ({}) |", d.mean, interval_text(d, 3),
                            detectable_text(d, 3, "the range"));
      }
      md += "\n";
    }
  }
  return md;
}

}  // namespace bb::icl
