#include "icl/training_length_report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <regex>

#include "common/error.h"
#include "common/files.h"
#include "common/statistics.h"
#include "common/svg.h"
#include "icl/experiment_report.h"
#include "icl/shift_curves.h"
#include "icl/trained_values.h"

namespace bb::icl {

namespace fs = std::filesystem;
using namespace shift;

namespace {

// endpoint/GROUP/step-N directories holding an eval.json, by N ascending.
std::vector<std::pair<int64_t, fs::path>> step_dirs(const fs::path& group) {
  std::vector<std::pair<int64_t, fs::path>> out;
  std::error_code ec;
  if (!fs::is_directory(group, ec)) return out;
  static const std::regex re("step-([0-9]{1,18})");
  for (const auto& e : fs::directory_iterator(group)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (e.is_directory() && std::regex_match(name, m, re) && fs::exists(e.path() / "eval.json"))
      out.emplace_back(std::stoll(m[1]), e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every model entry of an evaluation at step N must say it was trained N updates.
void check_steps(const EvalFile& f, int64_t step) {
  for (const auto& [name, steps] : f.steps)
    BB_CHECK(steps == step, "{}: model {} records steps {}, expected {} (its folder's step)",
             f.path.string(), name, steps < 0 ? std::string("(none)") : std::to_string(steps),
             step);
}

// value[function][seed][step]
using BySeedStep = std::map<std::string, std::map<int, std::map<int64_t, double>>>;

// Function b minus function a, paired by the seeds both have at `step`, tested as the ICL
// experiment's report tests (icl/experiment_report.h: at least kMinSeeds pairs, the interval
// clipped to `range`).
PairedDifference paired(const BySeedStep& v, const std::string& a, const std::string& b,
                        int64_t step, DifferenceRange range) {
  std::vector<double> x, y;
  if (!v.count(a) || !v.count(b)) return {};
  for (const auto& [seed, steps] : v.at(a)) {
    const auto other = v.at(b).find(seed);
    if (other == v.at(b).end() || !steps.count(step) || !other->second.count(step)) continue;
    // a pair with a non-finite value (a diverged cell) is left out, as from the means
    if (!std::isfinite(steps.at(step)) || !std::isfinite(other->second.at(step))) continue;
    x.push_back(steps.at(step));
    y.push_back(other->second.at(step));
  }
  return paired_difference(x, y, range);
}

std::string difference_text(const PairedDifference& d) {
  if (d.n == 0) return "– (no seed in common)";
  if (d.no_variance)
    return fmt::format("{:+.3f} (n = {}; no variance: not testable)", d.mean, d.n);
  if (!d.tested) return fmt::format("{:+.3f} (n = {}: not tested)", d.mean, d.n);
  return fmt::format("{:+.3f} {} (n = {})", d.mean, interval_text(d, 3), d.n);
}

std::string p_text(const PairedDifference& d) { return d.tested ? fmt::format("{:.3g}", d.p) : "–"; }

std::string detectable_cell(const PairedDifference& d) {
  return d.tested ? detectable_text(d, 3, "the range") : "–";
}

// Secondary: the saturation grid at every checkpoint that has one (saturation/GROUP/step-N/): per
// function, the mean over layers of the mean largest attention weight in a row at the smallest
// and the largest sigma, and sigma_90 (where it first reaches 0.9), mean ± sd over seeds.
void saturation_by_step(const fs::path& dir, const Group& g,
                        const std::vector<std::pair<int64_t, fs::path>>& steps, std::string& md) {
  bool header = false;
  for (const auto& [step, endpoint] : steps) {
    const fs::path path =
        dir / "saturation" / group_name(g) / fmt::format("step-{}", step) / "saturation.json";
    if (!fs::exists(path)) continue;
    const SaturationFile f = read_saturation(path);
    if (!header) {
      md += fmt::format(
          "\nSaturation (secondary; `saturation/{}/step-N/`): the mean over layers of the mean "
          "largest attention weight in a row ({} sequences of {} points per σ) at the smallest and "
          "the largest σ of x, and σ₉₀, the σ at which it first reaches 0.9 (runs that never do "
          "counted apart), mean ± sd over seeds:\n\n| updates | function | at σ {:g} | at σ {:g} "
          "| σ₉₀ |\n|---|---|---|---|---|\n",
          group_name(g), f.sequences, f.points, f.sigmas.front(), f.sigmas.back());
      header = true;
    }
    for (const std::string& fn : g.functions) {
      std::vector<double> first, last, s90;
      for (const RunInfo& r : g.runs.at(fn)) {
        if (!f.mean_max.count(r.name)) continue;
        const std::vector<double>& w = f.of(r.name);
        first.push_back(w.front()), last.push_back(w.back());
        s90.push_back(crossing_sigma(f.sigmas, w, 0.9));
      }
      const Stats reached = stats(s90);
      md += fmt::format("| {} | {} | {} ({}) | {} | {}{} |\n", step, fn, mean_sd(stats(first)),
                        first.size(), mean_sd(stats(last)), mean_sd(reached, "{:.2f}"),
                        reached.n < int(s90.size())
                            ? fmt::format(" ({} of {} reach 0.9)", reached.n, s90.size())
                            : "");
    }
  }
}

std::vector<double> values_at(const BySeedStep& v, const std::string& f, int64_t step) {
  std::vector<double> out;
  if (!v.count(f)) return out;
  for (const auto& [seed, steps] : v.at(f))
    if (steps.count(step)) out.push_back(steps.at(step));
  return out;
}

// The grid an evaluation's endpoint is computed on, as the report states it: the length used,
// the sigma values, the sequences per cell and the first counted point.
struct Grid {
  int points = 0, sequences = 0, from_point = 0;
  std::vector<double> sigmas;
  bool operator==(const Grid&) const = default;
};

Grid grid_of(const EvalFile& f, const std::string& model) {
  return {nearest_points(f.cells(model), 40), f.sequences, f.from_point,
          xs(by_sigma(f, model, false))};
}

std::string grid_text(const Grid& g) {
  return fmt::format("{} points, σ of x = {:g}…{:g} ({} values), {} sequences per σ, errors "
                     "counted from point {}",
                     g.points, g.sigmas.front(), g.sigmas.back(), g.sigmas.size(), g.sequences,
                     g.from_point);
}

// "n" of a cell: the finite values, and those that are not (a diverged run) said apart.
std::string count_text(const std::vector<double>& v) {
  const auto finite = std::count_if(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  return finite == std::ptrdiff_t(v.size())
             ? fmt::format("{}", v.size())
             : fmt::format("{}; {} not finite, left out", finite, v.size() - size_t(finite));
}

}  // namespace

bool is_training_length_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir / "endpoint", ec)) return false;
  for (const auto& g : fs::directory_iterator(dir / "endpoint"))
    if (g.is_directory() && !step_dirs(g.path()).empty()) return true;
  return false;
}

double mean_error_over_sigma(const std::vector<std::pair<double, double>>& curve) {
  if (curve.empty()) return NAN;
  double sum = 0;
  for (const auto& [sigma, error] : curve) sum += error;
  return sum / double(curve.size());
}

std::string write_training_length_report(const fs::path& dir, const ShiftReportSettings& s) {
  const std::vector<RunInfo> runs = read_runs(dir / "runs");
  const std::vector<Group> groups = groups_of(runs, s);
  std::string md = fmt::format(
      "# ICL: does the answer change with training?\n\n"
      "Written by `babyberta icl report --dir` from this folder's files alone (runs/*/run.json, "
      "endpoint/GROUP/step-N/eval.json). **Primary endpoint** (fixed in README.md before the "
      "checkpoints were evaluated): a run's mean error over the σ grid at the length nearest 40 "
      "points (quantification: the share of sequences with a wrong sign from the evaluation's "
      "first counted point on), {} − {} paired by seed with a t test, at the last checkpoint. "
      "Secondary: the same at the earlier checkpoints, every other group against {}, and σ₅₀ "
      "(the σ at which the error first reaches {:g}; censored: never within the grid).\n\n"
      "Cells: mean ± sd over seeds (n). A difference: mean [95% t interval] (n pairs, any with a "
      "non-finite value left out; tested with at least {} pairs); p: its paired t test, "
      "uncorrected; detectable: the smallest difference these seeds could have detected (80% "
      "power, two-sided 5%). An interval containing 0 is "
      "inconclusive, never \"no effect\". {}\n",
      s.primary, s.reference, s.reference, s.level, kMinSeeds, kClippedIntervalNote);
  fs::create_directories(dir / "charts");
  for (const Group& g : groups) {
    const std::string name = group_name(g);
    const auto steps = step_dirs(dir / "endpoint" / name);
    md += fmt::format("\n## {}, {}\n\n", g.task, g.arch);
    if (steps.empty()) {
      md += fmt::format("No evaluations (endpoint/{}/step-N/eval.json).\n", name);
      continue;
    }
    BySeedStep value, sigma50;
    DifferenceRange range;  // a share's difference lies in [-1, 1]; an MSE's is unbounded
    std::optional<Grid> grid;  // every run at every step on the same grid, or refused
    std::vector<std::string> missing;  // "NAME (step N)" for a run an evaluation lacks
    for (const auto& [step, path] : steps) {
      const EvalFile f = read_eval(path / "eval.json");
      check_steps(f, step);
      if (f.quant) range = {-1, 1};
      for (const std::string& fn : g.functions)
        for (const RunInfo& r : g.runs.at(fn)) {
          if (!f.models.count(r.name)) {
            missing.push_back(fmt::format("{} (step {})", r.name, step));
            continue;
          }
          const Grid here = grid_of(f, r.name);
          if (!grid) grid = here;
          BB_CHECK(here == *grid, "{}: model {} is evaluated on another grid ({}) than the "
                   "folder's first ({}); evaluate every checkpoint on one grid",
                   (path / "eval.json").string(), r.name, grid_text(here), grid_text(*grid));
          const Curve c = by_sigma(f, r.name, false);
          value[fn][r.seed][step] = mean_error_over_sigma(c);
          sigma50[fn][r.seed][step] = crossing_sigma(xs(c), ys(c), s.level);
        }
    }
    const int64_t last = steps.back().first;
    if (grid) md += fmt::format("Evaluated on: {}.\n\n", grid_text(*grid));
    if (!missing.empty())
      md += fmt::format(
          "**Not in the evaluations** (left out of every mean and pair there): {}.\n\n",
          fmt::join(missing, ", "));
    // The verdict first.
    const PairedDifference primary = paired(value, s.reference, s.primary, last, range);
    if (value.count(s.reference) && value.count(s.primary)) {
      md += fmt::format("**Primary, after {} updates**: {} − {} = {}", last, s.primary,
                        s.reference, difference_text(primary));
      if (!primary.tested)
        md += ".\n\n";
      else if (primary.resolved)
        md += fmt::format(", p {}: resolved, {} {}.\n\n", p_text(primary), s.primary,
                          primary.mean < 0 ? "lower (fewer errors)" : "higher (more errors)");
      else
        md += fmt::format(", p {}: inconclusive ({}).\n\n", p_text(primary),
                          detectable_text(primary, 3, "the range"));
    }
    // Per checkpoint: each function's endpoint, and each function against the reference.
    md += "| updates |";
    for (const std::string& fn : g.functions) md += fmt::format(" {} |", fn);
    for (const std::string& fn : g.functions)
      if (fn != s.reference) md += fmt::format(" {} − {} | p | detectable |", fn, s.reference);
    md += "\n|---|";
    for (size_t i = 0; i < g.functions.size(); ++i) md += "---|";
    for (const std::string& fn : g.functions)
      if (fn != s.reference) md += "---|---|---|";
    md += "\n";
    for (const auto& [step, path] : steps) {
      md += fmt::format("| {} |", step);
      for (const std::string& fn : g.functions) {
        const std::vector<double> v = values_at(value, fn, step);
        md += fmt::format(" {} ({}) |", mean_sd(stats(v)), count_text(v));
      }
      for (const std::string& fn : g.functions) {
        if (fn == s.reference) continue;
        const PairedDifference d = paired(value, s.reference, fn, step, range);
        md += fmt::format(" {} | {} | {} |", difference_text(d), p_text(d), detectable_cell(d));
      }
      md += "\n";
    }
    // Secondary: sigma_50 by checkpoint.
    md += fmt::format("\nσ₅₀ (secondary; censored runs left out of the mean, counted apart):\n\n"
                      "| updates |");
    for (const std::string& fn : g.functions) md += fmt::format(" {} |", fn);
    md += "\n|---|";
    for (size_t i = 0; i < g.functions.size(); ++i) md += "---|";
    md += "\n";
    for (const auto& [step, path] : steps) {
      md += fmt::format("| {} |", step);
      for (const std::string& fn : g.functions) {
        const std::vector<double> v = values_at(sigma50, fn, step);
        const auto censored = std::count_if(v.begin(), v.end(),
                                            [](double x) { return !std::isfinite(x); });
        md += fmt::format(" {}{} |", mean_sd(stats(v), "{:.2f}"),
                          censored ? fmt::format(", {} censored", censored) : "");
      }
      md += "\n";
    }
    saturation_by_step(dir, g, steps, md);
    // Chart: the endpoint against updates, each function's mean with its seeds as thin lines.
    LineChart c;
    c.title = fmt::format("{}, {}: mean error over σ by updates", g.task, g.arch);
    c.note = "mean over seeds (thick), each seed (thin)";
    c.x_label = "updates", c.y_label = "mean error over σ", c.percent = false, c.chance = NAN;
    for (const std::string& fn : g.functions) {
      c.groups.push_back(fn);
      std::vector<std::pair<double, double>> mean;
      for (const auto& [step, path] : steps) {
        const Stats st = stats(values_at(value, fn, step));
        if (st.n > 0) mean.emplace_back(double(step), st.mean);
      }
      c.points.push_back(mean);
      std::vector<std::vector<std::pair<double, double>>> seeds;
      for (const auto& [seed, by_step] : value[fn]) {
        std::vector<std::pair<double, double>> line;
        for (const auto& [step, v] : by_step)
          if (std::isfinite(v)) line.emplace_back(double(step), v);
        seeds.push_back(line);
      }
      c.thin.push_back(seeds);
    }
    const std::string chart = fmt::format("endpoint-by-updates-{}.svg", name);
    write_file_atomic(dir / "charts" / chart, line_chart_svg(c));
    md += fmt::format("\n![{}](charts/{})\n", c.title, chart);
    md += trained_values_section(dir / "runs", g, "the run's last model");
  }
  write_file_atomic(dir / "report.md", md);
  return md;
}

}  // namespace bb::icl
