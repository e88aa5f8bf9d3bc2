#include "probing/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "common/philox.h"
#include "probing/results.h"
#include "probing/svg.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

double mcnemar_p(int b, int c) {
  if (b + c == 0) return 1.0;
  const double chi2 = std::pow(std::max(0.0, std::abs(double(b - c)) - 1.0), 2) / double(b + c);
  return std::erfc(std::sqrt(chi2 / 2));  // chi-square with 1 degree of freedom
}

std::vector<RunResult> load_runs(const std::vector<fs::path>& files) {
  BB_CHECK(!files.empty(), "compare: no result files given");
  std::vector<RunResult> runs;
  for (const fs::path& f : files) {
    RunResult r;
    r.path = f;
    r.header = parse_json(read_file(f), f.string());
    check_probe_result(r.header, f.string());
    r.seed = r.header["config"].value("seed", int64_t(0));
    for (auto& [name, v] : r.header["paradigms"].items()) {
      r.paradigms.push_back(name);
      r.accuracy[name] = v.at("accuracy").get<double>();
      r.phenomenon_of[name] = v.value("phenomenon", name);
    }
    // Learning curve: probe_overall lines that `train --probe-every` wrote next to the model.
    const fs::path metrics = fs::path(r.header.value("model", std::string())) / "metrics.jsonl";
    if (fs::exists(metrics)) {
      std::ifstream in(metrics);
      for (std::string line; std::getline(in, line);) {
        try {
          const json j = json::parse(line);
          if (j.contains("probe_overall"))
            r.curve[j.at("step").get<int64_t>()] = j.at("probe_overall").get<double>();
        } catch (const json::exception&) {
          // a torn last line: not a point
        }
      }
    }
    const fs::path pairs = fs::path(f).replace_extension(".pairs.jsonl");
    if (fs::exists(pairs)) r.outcomes = read_pair_outcomes(pairs);
    runs.push_back(std::move(r));
  }
  // Group by the attention label, plus whatever else differs between files.
  auto field = [](const RunResult& r, const std::string& k) -> std::string {
    if (k == "method") return r.header["method"].get<std::string>();
    if (k == "size")
      return fmt::format("{}L/{}H/{}d", r.header["config"].value("num_hidden_layers", 0),
                         r.header["config"].value("num_attention_heads", 0),
                         r.header["config"].value("hidden_size", 0));
    return fmt::format("{} steps", r.header["config"].value("steps", int64_t(0)));
  };
  for (const std::string k : {"method", "size", "steps"}) {
    std::set<std::string> values;
    for (const auto& r : runs) values.insert(field(r, k));
    for (auto& r : runs) {
      if (r.group.empty()) r.group = r.header["config"].value("label", std::string("model"));
      if (values.size() > 1) r.group += ", " + field(r, k);
    }
  }
  return runs;
}

namespace {

Stat stat_of(const std::vector<double>& v) {
  Stat s;
  s.n = int(v.size());
  for (double x : v) s.mean += x;
  s.mean /= std::max(1, s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / (s.n - 1));
  }
  return s;
}

}  // namespace

Comparison compare_runs(std::vector<RunResult> runs, int bootstrap, uint64_t seed) {
  Comparison c;
  for (const auto& r : runs)
    if (std::find(c.groups.begin(), c.groups.end(), r.group) == c.groups.end())
      c.groups.push_back(r.group);
  std::stable_sort(c.groups.begin(), c.groups.end(), [](const std::string& a, const std::string& b) {
    return a.rfind("softmax", 0) == 0 && b.rfind("softmax", 0) != 0;  // softmax is the baseline
  });
  for (const auto& r : runs)
    for (const auto& p : r.paradigms) {
      if (std::find(c.paradigms.begin(), c.paradigms.end(), p) == c.paradigms.end())
        c.paradigms.push_back(p);
      c.phenomenon_of[p] = r.phenomenon_of.at(p);
    }
  for (const auto& p : c.paradigms)
    if (std::find(c.phenomena.begin(), c.phenomena.end(), c.phenomenon_of[p]) == c.phenomena.end())
      c.phenomena.push_back(c.phenomenon_of[p]);
  std::sort(c.phenomena.begin(), c.phenomena.end());

  const int G = int(c.groups.size());
  std::vector<std::vector<const RunResult*>> members(G);
  for (const auto& r : runs)
    members[std::find(c.groups.begin(), c.groups.end(), r.group) - c.groups.begin()].push_back(&r);
  for (auto& m : members)
    std::sort(m.begin(), m.end(), [](auto* a, auto* b) { return a->seed < b->seed; });

  // Per run: phenomenon means and overall from its paradigm accuracies.
  auto phen_acc = [&](const RunResult& r, const std::string& ph) {
    double s = 0;
    int n = 0;
    for (const auto& p : r.paradigms)
      if (r.phenomenon_of.at(p) == ph) s += r.accuracy.at(p), ++n;
    return n ? s / n : std::nan("");
  };
  auto overall_acc = [&](const RunResult& r) {
    double s = 0;
    for (const auto& p : r.paradigms) s += r.accuracy.at(p);
    return s / double(r.paradigms.size());
  };
  c.paradigm.resize(G), c.phenomenon.resize(G), c.overall.resize(G);
  for (int g = 0; g < G; ++g) {
    for (const auto& p : c.paradigms) {
      std::vector<double> v;
      for (auto* r : members[g])
        if (r->accuracy.count(p)) v.push_back(r->accuracy.at(p));
      c.paradigm[g][p] = stat_of(v);
    }
    for (const auto& ph : c.phenomena) {
      std::vector<double> v;
      for (auto* r : members[g]) v.push_back(phen_acc(*r, ph));
      c.phenomenon[g][ph] = stat_of(v);
    }
    std::vector<double> v;
    for (auto* r : members[g]) v.push_back(overall_acc(*r));
    c.overall[g] = stat_of(v);
  }

  // Differences to the baseline, bootstrap over seeds and pairs, McNemar per paradigm.
  const Philox rng{stream_key(seed, 0xB007)};
  uint64_t draw = 0;
  auto uniform_int = [&](int n) {
    uint32_t w[4];
    rng.block(0, draw++, w);
    return int(w[0] % uint32_t(n));
  };
  c.paradigm_diff.resize(std::max(0, G - 1));
  c.phenomenon_diff.resize(std::max(0, G - 1));
  c.overall_diff.resize(std::max(0, G - 1));
  for (int g = 1; g < G; ++g) {
    const auto& A = members[0];
    const auto& B = members[g];
    // Pair-level outcomes are needed in every run for the bootstrap and McNemar.
    bool paired = true;
    for (const auto& p : c.paradigms) {
      const size_t n = A[0]->outcomes.count(p) ? A[0]->outcomes.at(p).size() : 0;
      paired &= n > 0;
      for (const auto& side : {A, B})
        for (auto* r : side) paired &= r->outcomes.count(p) && r->outcomes.at(p).size() == n;
    }
    std::map<std::string, std::vector<double>> reps;  // paradigm -> replicate differences
    if (paired) {
      for (int rep = 0; rep < bootstrap; ++rep) {
        std::vector<const RunResult*> a, b;
        for (size_t i = 0; i < A.size(); ++i) a.push_back(A[uniform_int(int(A.size()))]);
        for (size_t i = 0; i < B.size(); ++i) b.push_back(B[uniform_int(int(B.size()))]);
        for (const auto& p : c.paradigms) {
          const int n = int(A[0]->outcomes.at(p).size());
          double sa = 0, sb = 0;
          for (int k = 0; k < n; ++k) {
            const int idx = uniform_int(n);
            for (auto* r : a) sa += r->outcomes.at(p)[idx];
            for (auto* r : b) sb += r->outcomes.at(p)[idx];
          }
          reps[p].push_back(100.0 * (sb / (double(n) * b.size()) - sa / (double(n) * a.size())));
        }
      }
    }
    auto interval = [&](Difference& d, const std::vector<double>& r) {
      if (r.empty()) return;
      std::vector<double> s = r;
      std::sort(s.begin(), s.end());
      d.lo = s[size_t(0.025 * (s.size() - 1))];
      d.hi = s[size_t(0.975 * (s.size() - 1))];
      d.has_ci = true;
    };
    for (const auto& p : c.paradigms) {
      Difference d;
      d.diff = c.paradigm[g][p].mean - c.paradigm[0][p].mean;
      interval(d, reps[p]);
      if (paired) {
        for (size_t i = 0; i < std::min(A.size(), B.size()); ++i) {
          const auto& oa = A[i]->outcomes.at(p);
          const auto& ob = B[i]->outcomes.at(p);
          for (size_t k = 0; k < oa.size(); ++k) {
            d.b += oa[k] == 1.0 && ob[k] == 0.0;
            d.c += oa[k] == 0.0 && ob[k] == 1.0;
          }
        }
        d.p = mcnemar_p(d.b, d.c);
      }
      c.paradigm_diff[g - 1][p] = d;
    }
    auto combine = [&](const std::vector<std::string>& ps) {
      std::vector<double> r(paired ? bootstrap : 0, 0.0);
      for (size_t k = 0; k < r.size(); ++k) {
        for (const auto& p : ps) r[k] += reps[p][k];
        r[k] /= double(ps.size());
      }
      return r;
    };
    for (const auto& ph : c.phenomena) {
      std::vector<std::string> ps;
      for (const auto& p : c.paradigms)
        if (c.phenomenon_of[p] == ph) ps.push_back(p);
      Difference d;
      d.diff = c.phenomenon[g][ph].mean - c.phenomenon[0][ph].mean;
      interval(d, combine(ps));
      c.phenomenon_diff[g - 1][ph] = d;
    }
    Difference d;
    d.diff = c.overall[g].mean - c.overall[0].mean;
    interval(d, combine(c.paradigms));
    c.overall_diff[g - 1] = d;
  }
  c.runs = std::move(runs);
  return c;
}

namespace {

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

}  // namespace

void write_report(const fs::path& dir, const Comparison& c) {
  fs::create_directories(dir);
  const int G = int(c.groups.size());
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
  auto table = [&](const std::string& title, const std::vector<std::string>& names,
                   const std::vector<std::map<std::string, Stat>>& stats,
                   const std::vector<std::map<std::string, Difference>>& diffs, bool mcnemar) {
    md += "\n## " + title + "\n\n| " + (mcnemar ? "paradigm" : "phenomenon");
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
  };
  table("Phenomena", c.phenomena, c.phenomenon, c.phenomenon_diff, false);
  md += "| **overall (mean over paradigms)**";
  for (int g = 0; g < G; ++g) md += " | **" + pm(c.overall[g]) + "**";
  for (int g = 1; g < G; ++g) md += " | **" + diff_str(c.overall_diff[g - 1]) + "**";
  md += " |\n";
  table("Paradigms", c.paradigms, c.paradigm, c.paradigm_diff, true);
  md += "\n![phenomena](phenomena.svg)\n\n![paradigms](paradigms.svg)\n";
  write_file_atomic(dir / "report.md", md);

  std::string csv = "level,name,group,mean,sd,runs,diff_vs_baseline,ci_low,ci_high,mcnemar_b,"
                    "mcnemar_c,mcnemar_p\n";
  auto rows = [&](const std::string& level, const std::vector<std::string>& names,
                  const std::vector<std::map<std::string, Stat>>& stats,
                  const std::vector<std::map<std::string, Difference>>& diffs) {
    for (const auto& n : names)
      for (int g = 0; g < G; ++g) {
        const Stat& s = stats[g].at(n);
        csv += fmt::format("{},\"{}\",\"{}\",{:.4f},{:.4f},{}", level, n, c.groups[g], s.mean, s.sd, s.n);
        if (g == 0) csv += ",,,,,,\n";
        else {
          const Difference& d = diffs[g - 1].at(n);
          csv += fmt::format(",{:.4f},{},{},{},{},{}\n", d.diff,
                             d.has_ci ? fmt::format("{:.4f}", d.lo) : "",
                             d.has_ci ? fmt::format("{:.4f}", d.hi) : "",
                             level == "paradigm" ? std::to_string(d.b) : "",
                             level == "paradigm" ? std::to_string(d.c) : "",
                             level == "paradigm" && d.p >= 0 ? fmt::format("{:.6g}", d.p) : "");
        }
      }
  };
  rows("phenomenon", c.phenomena, c.phenomenon, c.phenomenon_diff);
  rows("paradigm", c.paradigms, c.paradigm, c.paradigm_diff);
  for (int g = 0; g < G; ++g)
    csv += fmt::format("overall,\"overall\",\"{}\",{:.4f},{:.4f},{}{}\n", c.groups[g],
                       c.overall[g].mean, c.overall[g].sd, c.overall[g].n,
                       g == 0 ? ",,,,,," : fmt::format(",{:.4f},{:.4f},{:.4f},,,",
                                                       c.overall_diff[g - 1].diff,
                                                       c.overall_diff[g - 1].lo,
                                                       c.overall_diff[g - 1].hi));
  write_file_atomic(dir / "report.csv", csv);

  auto chart = [&](const std::string& title, const std::vector<std::string>& names,
                   const std::vector<std::map<std::string, Stat>>& stats) {
    BarChart b{title, names, c.groups, {}, {}};
    for (int g = 0; g < G; ++g) {
      b.mean.emplace_back(), b.sd.emplace_back();
      for (const auto& n : names) {
        b.mean.back().push_back(stats[g].at(n).mean);
        b.sd.back().push_back(stats[g].at(n).sd);
      }
    }
    return bar_chart_svg(b);
  };
  write_file_atomic(dir / "phenomena.svg", chart("Accuracy per phenomenon", c.phenomena, c.phenomenon));
  // Learning curves (mean over a group's runs at each probed step), when runs were probed while
  // training.
  LineChart lc{"Overall accuracy during training", c.groups, std::vector<std::vector<std::pair<double, double>>>(G)};
  bool any = false;
  for (int g = 0; g < G; ++g) {
    std::map<int64_t, std::pair<double, int>> at;
    for (const auto& r : c.runs)
      if (r.group == c.groups[g])
        for (const auto& [step, acc] : r.curve) at[step].first += acc, at[step].second += 1;
    for (const auto& [step, v] : at) lc.points[g].push_back({double(step), v.first / v.second});
    any |= lc.points[g].size() >= 2;
  }
  if (any) {
    write_file_atomic(dir / "learning_curve.svg", line_chart_svg(lc));
    write_file_atomic(dir / "report.md", md + "\n![learning curve](learning_curve.svg)\n");
  }
  write_file_atomic(dir / "paradigms.svg", chart("Accuracy per paradigm", c.paradigms, c.paradigm));
}

}  // namespace bb
