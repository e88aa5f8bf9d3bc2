#include "probing/equivalence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/error.h"
#include "common/split_list.h"
#include "common/statistics.h"

namespace bb {

namespace {

// The run's value of an endpoint; dev_loss: its last metrics line's (and the step, for pairing).
double value_of(const RunResult& r, const std::string& endpoint, int64_t* step) {
  if (endpoint == "overall") return overall_accuracy(r);
  BB_CHECK(!r.dev_loss.empty(),
           "--equivalence dev_loss: {} has no dev loss (its model's metrics.jsonl, or "
           "metrics-NAME.jsonl beside it, with dev_loss lines; holistic results only)",
           r.path.string());
  *step = r.dev_loss.rbegin()->first;
  return r.dev_loss.rbegin()->second;
}

// A signed value: accuracy points to 2 decimals, losses to 4.
std::string number(const std::string& endpoint, double x) {
  return endpoint == "overall" ? fmt::format("{:+.2f}", x) : fmt::format("{:+.4f}", x);
}

}  // namespace

std::vector<EquivalenceMargin> parse_equivalence(const std::string& spec) {
  std::vector<EquivalenceMargin> out;
  std::set<std::string> seen;
  for (const std::string& item : split_list(spec, "--equivalence")) {
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    BB_CHECK(eq != std::string::npos && (name == "overall" || name == "dev_loss"),
             "--equivalence: '{}': expected ENDPOINT=MARGIN with ENDPOINT overall or dev_loss "
             "(e.g. overall=1.0,dev_loss=0.02)", item);
    double margin = 0;
    try {
      size_t used = 0;
      margin = std::stod(item.substr(eq + 1), &used);
      BB_CHECK(used == item.size() - eq - 1, "");
    } catch (const std::exception&) {
      fail("--equivalence: '{}': the margin is not a number", item);
    }
    BB_CHECK(std::isfinite(margin) && margin > 0, "--equivalence: '{}': the margin must be > 0",
             item);
    BB_CHECK(seen.insert(name).second, "--equivalence: {} given twice", name);
    out.push_back({name, margin});
  }
  return out;
}

std::string equivalence_md(const Comparison& c, const std::vector<EquivalenceMargin>& margins) {
  if (margins.empty()) return "";
  // the two arms: the first trained result's stratum, and the only other one
  std::vector<std::string> arms;
  for (const RunResult& r : c.runs)
    if (r.stratum != "reference" && std::find(arms.begin(), arms.end(), r.stratum) == arms.end())
      arms.push_back(r.stratum);
  BB_CHECK(arms.size() == 2,
           "--equivalence needs results of exactly two arms that differ in one setting (the "
           "strata), found {}: {}", arms.size(),
           arms.empty() ? std::string("none") : fmt::format("{}", fmt::join(arms, "; ")));
  const std::string& ref = arms[0];
  const std::string& other = arms[1];
  std::map<std::pair<std::string, int64_t>, const RunResult*> reference;
  for (const RunResult& r : c.runs)
    if (r.stratum == ref)
      BB_CHECK(reference.emplace(std::pair{r.label, r.seed}, &r).second,
               "--equivalence: two results of {} seed {} in the arm \"{}\" ({})", r.label, r.seed,
               ref, r.path.string());
  std::string md = fmt::format(
      "\n## Equivalence: {} − {}\n\nFixed before the evaluation: {}. Pairs: the runs of the same "
      "attention label and seed in the two arms. Two one-sided paired t tests (TOST, α = 0.05 "
      "each side): equivalent exactly when the 90% t interval of the mean paired difference lies "
      "inside ±margin; otherwise \"not shown equivalent\" (which is not a difference either).\n\n"
      "| endpoint | margin | pairs | mean difference | 90% interval | TOST p | result |\n"
      "|---|---|---|---|---|---|---|\n",
      other, ref,
      fmt::format("{}", fmt::join([&] {
                    std::vector<std::string> v;
                    for (const auto& m : margins) v.push_back(fmt::format("{} ±{}", m.endpoint, m.margin));
                    return v;
                  }(), ", ")));
  std::string per_label;
  for (const EquivalenceMargin& m : margins) {
    std::vector<double> a, b;
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_label;
    for (const RunResult& r : c.runs) {
      if (r.stratum != other) continue;
      const auto it = reference.find({r.label, r.seed});
      BB_CHECK(it != reference.end(), "--equivalence: {} seed {} ({}) has no run of the same label "
               "and seed in the arm \"{}\"", r.label, r.seed, r.path.string(), ref);
      int64_t step_a = -1, step_b = -1;
      const double va = value_of(*it->second, m.endpoint, &step_a);
      const double vb = value_of(r, m.endpoint, &step_b);
      BB_CHECK(step_a == step_b, "--equivalence dev_loss: {} ends at step {}, its pair {} at {}",
               r.path.string(), step_b, it->second->path.string(), step_a);
      a.push_back(va), b.push_back(vb);
      by_label[r.label].first.push_back(va), by_label[r.label].second.push_back(vb);
    }
    const EquivalenceTest e = equivalence_test(a, b, m.margin);
    md += fmt::format(
        "| {} | ±{} | {} | {} | {} | {} | {} |\n", m.endpoint, m.margin, e.n,
        number(m.endpoint, e.mean),
        e.p >= 0 ? fmt::format("[{}, {}]", number(m.endpoint, e.lo),
                               number(m.endpoint, e.hi))
                 : std::string("–"),
        e.p >= 0 ? fmt::format("{:.3f}", e.p) : std::string("–"),
        e.p < 0           ? "not tested (fewer than 2 pairs)"
        : e.equivalent    ? "**equivalent** within the margin"
                          : "not shown equivalent");
    for (const auto& [label, ab] : by_label) {
      const PairedTest t = paired_t_test(ab.first, ab.second);
      per_label += fmt::format("| {} | {} | {} | {} | {} |\n", m.endpoint, label, t.n,
                               number(m.endpoint, t.mean),
                               t.p >= 0 ? fmt::format("[{}, {}]", number(m.endpoint, t.lo),
                                                      number(m.endpoint, t.hi))
                                        : std::string("–"));
    }
  }
  md += "\nBy attention label (descriptive; 95% paired t intervals):\n\n| endpoint | label | pairs | "
        "mean difference | 95% interval |\n|---|---|---|---|---|\n" + per_label;
  return md;
}

}  // namespace bb
