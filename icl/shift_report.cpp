#include "icl/shift_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "icl/experiment_report.h"
#include "icl/shift_curves.h"
#include "icl/trained_values.h"
#include "common/statistics.h"
#include "icl/task.h"
#include "common/svg.h"

namespace bb::icl {

namespace fs = std::filesystem;
using nlohmann::json;

double crossing_sigma(const std::vector<double>& sigmas, const std::vector<double>& error,
                      double level) {
  BB_CHECK(sigmas.size() == error.size(), "internal: {} sigmas, {} errors", sigmas.size(),
           error.size());
  for (size_t i = 0; i < sigmas.size(); ++i) {
    // a non-finite error (a diverged cell) has reached any level, at its own sigma
    if (!(std::isnan(error[i]) || error[i] >= level)) continue;
    if (i == 0 || !std::isfinite(error[i])) return sigmas[i];
    const double a = error[i - 1], b = error[i];
    return sigmas[i - 1] + (sigmas[i] - sigmas[i - 1]) * (level - a) / (b - a);
  }
  return NAN;
}

SignTest censored_sign_test(const std::map<int, double>& a, const std::map<int, double>& b) {
  SignTest t;
  for (const auto& [seed, vb] : b) {
    const auto it = a.find(seed);
    if (it == a.end()) continue;
    const double va = it->second;
    const bool ca = !std::isfinite(va), cb = !std::isfinite(vb);
    if ((ca && cb) || (!ca && !cb && va == vb)) continue;  // no direction: dropped
    ++t.n;
    t.higher += cb || (!ca && vb > va);
  }
  const int k = std::min(t.higher, t.n - t.higher);
  double tail = 0;  // P(X <= k), X ~ Binomial(n, 1/2)
  for (int i = 0; i <= k; ++i)
    tail += std::exp(std::lgamma(t.n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(t.n - i + 1.0) -
                     t.n * std::log(2.0));
  t.p = std::min(1.0, 2 * tail);
  return t;
}

namespace {

using namespace shift;

class Writer {
 public:
  Writer(const fs::path& dir, const ShiftReportSettings& s) : dir_(dir), s_(s) {
    fs::create_directories(dir / "charts");
  }

  std::string group(const Group& g) {
    const std::string name = group_name(g);
    md_ = fmt::format("\n## {} ({})\n", g.task, g.arch);
    const EvalFile endpoint = read_eval(dir_ / s_.endpoint / name / "eval.json");
    quant_ = endpoint.quant;
    endpoint_section(g, endpoint);
    if (fs::exists(dir_ / s_.grid / name / "eval.json"))
      length_section(g, read_eval(dir_ / s_.grid / name / "eval.json"));
    if (fs::exists(dir_ / "saturation" / name / "saturation.json")) saturation_section(g);
    if (quant_) direction_section(g, endpoint);
    if (fs::exists(dir_ / "authors" / name / "eval.json"))
      authors_section(g, read_eval(dir_ / "authors" / name / "eval.json"));
    md_ += trained_values_section(dir_ / "runs", g);
    return md_;
  }

  // The primary endpoints of every group together: each group's test is uncorrected; Holm's
  // correction over all of them (a group whose fixed rule did not test counts with p = 1), and
  // the smallest p an exact sign test over that many pairs could give.
  std::string primary_summary() const {
    if (primaries_.size() < 2) return "";
    const size_t m = primaries_.size();
    std::vector<double> p;
    for (const Primary& e : primaries_) p.push_back(e.p >= 0 ? e.p : 1.0);
    const std::vector<double> holm = holm_adjust(p);  // common/statistics.h
    std::string md = fmt::format(
        "\n## The primary endpoints together\n\nEach group's primary comparison ({} − {} in σ₅₀) "
        "above is one of these {} tests, its p uncorrected (a bold interval there excludes 0 "
        "uncorrected). Holm's correction over all {} (a group whose rule fixed before the runs did "
        "not test counts with p = 1) decides what is resolved; the last column is the smallest "
        "two-sided p an exact sign test over the group's pairs could give, whatever the data.\n\n"
        "| group | {} − {} | p (uncorrected) | p (Holm over {}) | resolved | smallest sign-test p |\n"
        "|---|---|---|---|---|---|\n", s_.primary, s_.reference, m, m, s_.primary, s_.reference, m);
    for (size_t i = 0; i < m; ++i) {
      const Primary& e = primaries_[i];
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", e.group, e.difference,
                        e.p >= 0 ? fmt::format("{:.3f}", e.p) : "not tested",
                        e.p >= 0 ? fmt::format("{:.3f}", holm[i]) : "–",
                        e.p >= 0 && holm[i] < 0.05 && e.excludes_zero ? "**yes**" : "no",
                        e.pairs > 0 ? fmt::format("{:.4f}", std::min(1.0, 2 * std::pow(0.5, e.pairs)))
                                    : "–");
    }
    return md;
  }

 private:
  struct Primary {
    std::string group, difference;
    double p = -1;  // the fixed rule's test; -1: not tested
    bool excludes_zero = false;
    int pairs = 0;
  };
  std::vector<Primary> primaries_;
  fs::path dir_;
  ShiftReportSettings s_;
  std::string md_;
  bool quant_ = true;
  std::map<std::string, std::vector<double>> sigma50_;  // function -> per seed (this group)

  // Per function its runs' curves by sigma, then one line per baseline (relative: the zero
  // predictor, whose ratio to itself is 1, left out).
  std::vector<std::pair<std::string, std::vector<Curve>>> sigma_lines(const Group& g,
                                                                     const EvalFile& f,
                                                                     bool relative) const {
    std::vector<std::pair<std::string, std::vector<Curve>>> lines;
    for (const std::string& fn : g.functions) {
      std::vector<Curve> curves;
      for (const RunInfo& r : g.runs.at(fn)) curves.push_back(by_sigma(f, r.name, relative));
      lines.emplace_back(fn, std::move(curves));
    }
    for (const std::string& b : f.baselines)
      if (!relative || b != "zero")
        lines.emplace_back(b + " (baseline)", std::vector<Curve>{by_sigma(f, b, relative)});
    return lines;
  }

  std::string error_name() const {
    return quant_ ? "share of sequences with a wrong sign" : "MSE / the zero predictor's MSE";
  }

  void write_chart(const std::string& file, const LineChart& c) {
    write_file_atomic(dir_ / "charts" / file, line_chart_svg(c));
    md_ += fmt::format("\n![{}](charts/{})\n", c.title, file);
  }

  void endpoint_section(const Group& g, const EvalFile& f) {
    const std::string axis = quant_ ? "σ of x" : "σ of the function";
    md_ += fmt::format(
        "\n### Primary endpoint: σ₅₀\n\nσ₅₀ is the {} at which the {} first reaches {:g} "
        "({} points, {} sequences per σ, interpolated linearly between grid σs; `{}/{}/`). "
        "Higher is better. {} − {} is the primary comparison (paired by seed, 95% t interval); "
        "the other functions against {} are secondary.\n\n| function | seeds | σ₅₀ by seed | mean ± "
        "sd | − {} (paired) |\n|---|---|---|---|---|\n",
        axis, error_name(), s_.level, nearest_points(f.cells(g.runs.begin()->second[0].name), 40),
        f.sequences, s_.endpoint, group_name(g), s_.primary, s_.reference, s_.reference, s_.reference);
    sigma50_.clear();
    std::map<std::string, std::map<int, double>> by_seed;
    // A σ₅₀ lies on the σ grid: a difference of two within ± its span.
    const Curve grid = by_sigma(f, g.runs.begin()->second[0].name, true);
    const double span = grid.back().first - grid.front().first;
    for (const std::string& fn : g.functions) {
      std::string cells;
      for (const RunInfo& r : g.runs.at(fn)) {
        const Curve c = by_sigma(f, r.name, true);
        const double v = crossing_sigma(xs(c), ys(c), s_.level);
        sigma50_[fn].push_back(v);
        by_seed[fn][r.seed] = v;
        cells += fmt::format("{}{}", cells.empty() ? "" : ", ",
                             std::isfinite(v) ? fmt::format("{:.2f}", v) : fmt::format("> {:g}", c.back().first));
      }
      std::string diff = "";
      if (fn != s_.reference && by_seed.count(s_.reference)) {
        std::vector<double> a, b;  // pairs where both functions reach the level
        int one_side = 0, both = 0, pairs = 0;
        for (const auto& [seed, v] : by_seed[fn])
          if (by_seed[s_.reference].count(seed)) {
            const double ref = by_seed[s_.reference][seed];
            ++pairs;
            if (std::isfinite(v) && std::isfinite(ref)) a.push_back(ref), b.push_back(v);
            else if (std::isfinite(v) || std::isfinite(ref)) ++one_side;
            else ++both;
          }
        auto tested = [&](const PairedDifference& d) {
          if (d.no_variance)
            return fmt::format("{:+.2f} (no variance: every seed pair differs by exactly this; not "
                               "testable)", d.mean);
          if (!d.tested) return fmt::format("{:+.2f} ({} paired seeds: exploratory, no test)", d.mean, d.n);
          return fmt::format("{}{:+.2f} {}{}, p {:.3f}, {} pairs{}", d.resolved ? "**" : "", d.mean,
                             interval_text(d, 2), d.resolved ? "**" : "", d.p, d.n,
                             d.resolved ? std::string()
                                        : "; inconclusive, " + detectable_text(d, 2, fmt::format(
                                              "the σ grid's span of {:g}", span)));
        };
        if (one_side > 0)
          diff = fmt::format("not tested (the rule fixed before the runs): in {} of {} pairs one "
                             "function reaches the level on the grid and the other does not; post "
                             "hoc, the signs (a censored σ₅₀ is above any reached one): {}",
                             one_side, pairs, sign_test_text(by_seed[s_.reference], by_seed[fn]));
        else if (both > 0)  // the rule fixed before the runs: a censored pair means no test
          diff = fmt::format("not tested (the rule fixed before the runs): in {} of {} pairs neither "
                             "function reaches the level on the grid; post hoc, without those "
                             "pairs (a tie beyond the grid): {}", both, pairs,
                             tested(paired_difference(a, b, {-span, span})));
        else
          diff = tested(paired_difference(a, b, {-span, span}));
        if (fn == s_.primary) {
          diff += " (primary)";
          Primary e{fmt::format("{} ({})", g.task, g.arch), "not tested (the rule fixed before the runs)"};
          if (one_side == 0 && both == 0) {
            const PairedDifference d = paired_difference(a, b, {-span, span});
            e.pairs = d.n;
            e.difference = d.tested ? fmt::format("{:+.2f} {}", d.mean, interval_text(d, 2))
                                    : fmt::format("{:+.2f} (no test)", d.mean);
            if (d.tested) e.p = d.p, e.excludes_zero = d.resolved;
          }
          primaries_.push_back(e);
        }
      }
      const Stats st = stats(sigma50_[fn]);
      const int runs = int(g.runs.at(fn).size());
      md_ += fmt::format("| {} | {} | {} | {}{} | {} |\n", fn, runs, cells, mean_sd(st, "{:.2f}"),
                         st.n < runs ? fmt::format(" (the {} reached)", st.n) : "", diff);
    }
    for (const std::string& b : f.baselines) {
      if (b == "zero") continue;
      const Curve c = by_sigma(f, b, true);
      const double v = crossing_sigma(xs(c), ys(c), s_.level);
      md_ += fmt::format("| {} (baseline) | | {} | | |\n", b,
                         std::isfinite(v) ? fmt::format("{:.2f}", v) : fmt::format("> {:g}", c.back().first));
    }
    // The curve: table at a few sigmas and a chart of every sigma.
    const auto lines = sigma_lines(g, f, true);
    curve_table(fmt::format("{} by {} ({} points), mean ± sd over seeds", error_name(), axis,
                            nearest_points(f.cells(g.runs.begin()->second[0].name), 40)),
                axis, lines);
    write_chart(group_name(g) + "-error-by-sigma.svg",
                mean_chart(fmt::format("{} ({}): error versus {}", g.task, g.arch, axis),
                           fmt::format("{}; whiskers ± 1 sd over seeds", error_name()), axis,
                           quant_ ? "sequences with an error (%)" : "MSE / zero predictor's",
                           quant_, lines));
  }

  // A table of mean ± sd at up to 12 of the curve's x values.
  void curve_table(const std::string& caption, const std::string& axis,
                   const std::vector<std::pair<std::string, std::vector<Curve>>>& lines) {
    const Curve& first = lines.front().second.front();
    std::vector<size_t> rows;
    const size_t step = std::max<size_t>(1, (first.size() + 11) / 12);
    for (size_t i = 0; i < first.size(); i += step) rows.push_back(i);
    if (rows.back() != first.size() - 1) rows.push_back(first.size() - 1);
    md_ += fmt::format("\n{}:\n\n| {} |", caption, axis);
    for (const auto& [name, curves] : lines) md_ += fmt::format(" {} |", name);
    md_ += "\n|---|";
    for (size_t i = 0; i < lines.size(); ++i) md_ += "---|";
    md_ += "\n";
    std::vector<std::vector<Stats>> st;
    for (const auto& [name, curves] : lines) st.push_back(pointwise(curves));
    for (size_t i : rows) {
      md_ += fmt::format("| {:g} |", first[i].first);
      for (const auto& s : st) md_ += fmt::format(" {} |", mean_sd(s[i]));
      md_ += "\n";
    }
  }

  // The grid may lack some of the group's runs (an evaluation not yet redone after more runs
  // were trained): their functions are left out and named.
  void length_section(const Group& g, const EvalFile& f) {
    std::vector<std::string> missing;
    const RunInfo* first = nullptr;
    for (const std::string& fn : g.functions)
      for (const RunInfo& r : g.runs.at(fn)) {
        if (!f.models.count(r.name)) missing.push_back(r.name);
        else if (!first) first = &r;
      }
    if (!first) return;
    const json& cells0 = f.cells(first->name);
    std::set<int> lengths;
    for (const auto& c : cells0) lengths.insert(c.at("points").get<int>());
    if (lengths.size() < 2) return;
    md_ += fmt::format(
        "\n### Error versus length (`{}/{}/`, {} sequences per cell, σ of x {:g})\n\nMean "
        "{} over lengths up to the trained {} points and over longer ones (which rely on "
        "position embeddings never trained), mean ± sd over seeds:\n\n| function | ≤ {} points "
        "| > {} points |\n|---|---|---|\n",
        s_.grid, group_name(g), f.sequences, smallest(cells0, "sigma_x"),
        quant_ ? "share of sequences with a wrong sign" : "MSE", s_.trained_points,
        s_.trained_points, s_.trained_points);
    std::vector<std::pair<std::string, std::vector<Curve>>> lines;
    auto row = [&](const std::string& label, const std::vector<Curve>& curves) {
      std::vector<double> in, out;
      for (const Curve& c : curves) {
        double si = 0, so = 0;
        int ni = 0, no = 0;
        for (const auto& [k, v] : c) (k <= s_.trained_points ? (si += v, ++ni) : (so += v, ++no));
        in.push_back(ni ? si / ni : NAN), out.push_back(no ? so / no : NAN);
      }
      md_ += fmt::format("| {} | {} | {} |\n", label, mean_sd(stats(in)), mean_sd(stats(out)));
    };
    for (const std::string& fn : g.functions) {
      std::vector<Curve> curves;
      for (const RunInfo& r : g.runs.at(fn))
        if (f.models.count(r.name)) curves.push_back(by_length(f, r.name));
      if (curves.empty()) continue;
      row(fn, curves);
      lines.emplace_back(fn, std::move(curves));
    }
    for (const std::string& b : f.baselines) {
      const std::vector<Curve> one{by_length(f, b)};
      row(b + " (baseline)", one);
      lines.emplace_back(b + " (baseline)", one);
    }
    if (!missing.empty())
      md_ += fmt::format("\nNot in `{}/{}/` (not evaluated on the grid yet): {}.\n", s_.grid,
                         group_name(g), fmt::join(missing, ", "));
    write_chart(group_name(g) + "-error-by-length.svg",
                mean_chart(fmt::format("{} ({}): error versus length", g.task, g.arch),
                           fmt::format("trained up to {} points; whiskers ± 1 sd over seeds",
                                       s_.trained_points),
                           "points per sequence", quant_ ? "sequences with an error (%)" : "MSE",
                           quant_, lines));
  }

  void saturation_section(const Group& g) {
    const SaturationFile j = read_saturation(dir_ / "saturation" / group_name(g) / "saturation.json");
    const std::vector<double>& sigmas = j.sigmas;
    md_ += fmt::format(
        "\n### Saturation beside the errors (`saturation/{}/`)\n\nThe mean over layers of the mean "
        "largest attention weight in a row ({} sequences of {} points per σ); σ₉₀ is the σ of x at "
        "which it first reaches 0.9, beside σ₅₀ from the endpoint:\n\n| function | max weight at "
        "σ {:g} | at σ {:g} | σ₉₀ (max weight) | σ₅₀ (errors) |\n|---|---|---|---|---|\n",
        group_name(g), j.sequences, j.points, sigmas.front(), sigmas.back());
    std::vector<std::pair<std::string, std::vector<Curve>>> lines;
    for (const std::string& fn : g.functions) {
      std::vector<Curve> curves;
      std::vector<double> first, last, s90;
      for (const RunInfo& r : g.runs.at(fn)) {
        const std::vector<double>& weight = j.of(r.name);
        Curve c;
        for (size_t i = 0; i < sigmas.size(); ++i) c.emplace_back(sigmas[i], weight[i]);
        first.push_back(weight.front()), last.push_back(weight.back());
        s90.push_back(crossing_sigma(sigmas, weight, 0.9));
        curves.push_back(std::move(c));
      }
      int reached = 0;
      for (double v : s90) reached += std::isfinite(v);
      const Stats s50 = stats(sigma50_[fn]);
      md_ += fmt::format("| {} | {} | {} | {} ({} of {} runs reach 0.9) | {}{} |\n", fn,
                         mean_sd(stats(first)), mean_sd(stats(last)),
                         mean_sd(stats(s90), "{:.2f}"), reached, s90.size(), mean_sd(s50, "{:.2f}"),
                         s50.n < int(sigma50_[fn].size()) ? fmt::format(" (the {} reached)", s50.n) : "");
      lines.emplace_back(fn, std::move(curves));
    }
    LineChart c = mean_chart(fmt::format("{} ({}): attention saturation versus σ of x", g.task, g.arch),
                             "mean over layers of the mean row maximum; whiskers ± 1 sd over seeds",
                             "σ of x", "mean max attention weight", false, lines);
    write_chart(group_name(g) + "-max-weight-by-sigma.svg", c);
  }

  // Where wrong predictions point: the sign of the largest |x| seen so far.
  void direction_section(const Group& g, const EvalFile& f) {
    md_ += fmt::format(
        "\n### Where the wrong predictions point (`{}/{}/`, every σ)\n\nOf the wrong "
        "signs from point {} on, the share whose sign is that of the largest |x| among x₁…x_i; "
        "beside it, the share of all those points whose largest |x| is positive, which the first "
        "share would be if wrong predictions ignored the largest value{}:\n\n| function | wrong "
        "predictions | follow the largest \\|x\\| | largest \\|x\\| positive (all points) "
        "|\n|---|---|---|---|\n",
        s_.endpoint, group_name(g), f.from_point,
        g.task == "every" ? " (on `every` nearly every error is a +1, so the comparison between "
                            "functions is the evidence, not the share alone)"
                          : "");
    for (const std::string& fn : g.functions) {
      double wrong = 0, follow = 0, positive = 0, counted = 0;
      std::vector<double> shares;
      for (const RunInfo& r : g.runs.at(fn)) {
        double w = 0, fo = 0;
        for (const auto& c : f.cells(r.name)) {
          w += c.at("wrong_points").get<double>(), fo += c.at("wrong_following_largest").get<double>();
          positive += c.at("largest_positive").get<double>(), counted += c.at("counted_points").get<double>();
        }
        wrong += w, follow += fo;
        shares.push_back(w > 0 ? 100 * fo / w : NAN);
      }
      md_ += fmt::format("| {} | {:.0f} | {:.1f}% (by seed {}%) | {:.1f}% |\n", fn, wrong,
                         wrong > 0 ? 100 * follow / wrong : NAN, mean_sd(stats(shares), "{:.1f}"),
                         counted > 0 ? 100 * positive / counted : NAN);
    }
  }

  void authors_section(const Group& g, const EvalFile& f) {
    const std::string axis = quant_ ? "σ of x" : "σ of the function";
    md_ += fmt::format("\n### The authors' draws (`authors/{}/`, their notebook's protocol)\n",
                       group_name(g));
    const auto lines = sigma_lines(g, f, false);
    curve_table(fmt::format("{} by {}, from point {} on, mean ± sd over seeds",
                            quant_ ? "share of sequences with a wrong sign" : "MSE", axis, f.from_point),
                axis, lines);
  }
};

}  // namespace

std::string write_shift_report(const fs::path& dir, const ShiftReportSettings& settings) {
  ShiftReportSettings s = settings;
  if (!fs::exists(dir / s.endpoint) && fs::exists(dir / "eval"))  // an icl experiment's folder
    s.endpoint = s.grid = "eval";
  const std::vector<RunInfo> runs = read_runs(dir / "runs");
  const std::vector<Group> groups = groups_of(runs, s);
  std::string md = fmt::format(
      "# In-context learning under distribution shift: the comparison\n\nGenerated by `babyberta "
      "icl report --dir` on this folder, from its files alone. {} runs in {} group{} (task, "
      "architecture); a seed fixes the data stream and the initialisation, so runs of one group "
      "are paired by seed. Differences whose interval contains 0 are inconclusive, given with the "
      "smallest difference the seeds could have detected: the true difference a two-sided 5% "
      "paired t test detects with 80% power, from the noncentral t distribution with the seeds' "
      "standard error and degrees of freedom (a little larger than (t₀.₉₇₅ + t₀.₈) × the "
      "standard error); with fewer than {} paired seeds nothing is tested. {}\n",
      runs.size(), groups.size(), groups.size() == 1 ? "" : "s", kMinSeeds, kClippedIntervalNote);
  Writer w(dir, s);
  for (const Group& g : groups) md += w.group(g);
  md += w.primary_summary();
  write_file_atomic(dir / "report.md", md);
  return md;
}

}  // namespace bb::icl
