#include "icl/shift_curves.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "common/error.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "icl/config.h"
#include "icl/task.h"

namespace bb::icl::shift {

namespace fs = std::filesystem;
using nlohmann::json;

Stats stats(const std::vector<double>& v) {
  std::vector<double> finite;
  for (double x : v)
    if (std::isfinite(x)) finite.push_back(x);
  return stat_of(finite);
}

std::string sign_test_text(const std::map<int, double>& a, const std::map<int, double>& b) {
  const SignTest t = censored_sign_test(a, b);
  return fmt::format("{} of {} pairs higher, sign test p {:.3f}", t.higher, t.n, t.p);
}

std::vector<RunInfo> read_runs(const fs::path& dir) {
  std::vector<RunInfo> runs;
  BB_CHECK(fs::is_directory(dir), "{}: no runs directory", dir.string());
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_directory()) continue;
    const fs::path path = e.path() / "run.json";
    const json j = read_json_file(path);
    BB_CHECK(j.value("kind", "") == "icl" && j.contains("config") && j.contains("train"),
             "{}: not an ICL run.json (expected \"kind\": \"icl\", \"config\" and \"train\")",
             path.string());
    // The function's label as the experiment named it ("ssa(n=2 frozen)": a variant is a group
    // of its own); a run with another learning rate for its values too.
    const Config c = config_from_json(j["config"], path.string());
    std::string function = attention_variant_label(c.attention, c.head_values);
    if (const double mult = j["train"].value("ssa_lr_mult", 1.0); mult != 1.0)
      function += fmt::format(" ({} {:g})", flag_name::ssa_lr_mult, mult);
    runs.push_back({e.path().filename().string(), j["train"].at("task").get<std::string>(),
                    j["config"].at("arch").get<std::string>(), function,
                    j["train"].at("seed").get<int>(), c.attention});
  }
  std::sort(runs.begin(), runs.end(), [](const RunInfo& a, const RunInfo& b) {
    return std::tie(a.task, a.arch, a.function, a.seed) < std::tie(b.task, b.arch, b.function, b.seed);
  });
  BB_CHECK(!runs.empty(), "{}: no runs", dir.string());
  return runs;
}

const json& EvalFile::cells(const std::string& name) const {
  const auto it = models.find(name);
  BB_CHECK(it != models.end(), "{}: no model named {}", path.string(), name);
  return it->second;
}

EvalFile read_eval(const fs::path& path) {
  const json j = read_json_file(path);
  EvalFile f{path, is_quantification(parse_task(j.at("task").get<std::string>())),
             j.at("from_point").get<int>(), j.at("sequences").get<int>(), {}, {}, {}};
  for (const auto& m : j.at("models")) {
    const std::string name = m.at("name").get<std::string>();
    f.models[name] = m.at("cells");
    if (m.at("baseline").get<bool>()) f.baselines.push_back(name);
    else f.steps[name] = m.contains("steps") && m["steps"].is_number_integer()
                             ? m["steps"].get<int64_t>() : -1;
  }
  return f;
}

SaturationFile read_saturation(const fs::path& path) {
  const json j = read_json_file(path);
  SaturationFile f{path, j.at("sigmas").get<std::vector<double>>(), j.at("sequences").get<int>(),
                   j.at("points").get<int>(), {}};
  for (const auto& m : j.at("models")) {
    std::vector<double> v;
    for (const auto& layers : m.at("mean_max_weight")) {
      double s = 0;
      for (const auto& x : layers) s += x.get<double>() / double(layers.size());
      v.push_back(s);
    }
    BB_CHECK(v.size() == f.sigmas.size(), "{}: model {} has {} values for {} sigmas",
             path.string(), m.at("name").get<std::string>(), v.size(), f.sigmas.size());
    f.mean_max[m.at("name").get<std::string>()] = std::move(v);
  }
  return f;
}

const std::vector<double>& SaturationFile::of(const std::string& model) const {
  const auto it = mean_max.find(model);
  BB_CHECK(it != mean_max.end(), "{}: no model named {}", path.string(), model);
  return it->second;
}

double number(const json& v) { return v.is_number() ? v.get<double>() : INFINITY; }

// The length nearest `points` among the cells.
int nearest_points(const json& cells, int points) {
  int best = -1;
  for (const auto& c : cells) {
    const int p = c.at("points").get<int>();
    if (best < 0 || std::abs(p - points) < std::abs(best - points)) best = p;
  }
  return best;
}

double smallest(const json& cells, const char* key) {
  double v = INFINITY;
  for (const auto& c : cells) v = std::min(v, c.at(key).get<double>());
  return v;
}

// Error by sigma at the length nearest 40 points: quantification, the score by sigma of x;
// linear, the score divided by the zero predictor's by sigma of the function at the smallest
// sigma of x (`relative`), or the score itself.
Curve by_sigma(const EvalFile& f, const std::string& name, bool relative) {
  const json& cells = f.cells(name);
  const int points = nearest_points(cells, 40);
  const double sx = smallest(cells, "sigma_x");
  Curve out;
  for (size_t i = 0; i < cells.size(); ++i) {
    const json& c = cells[i];
    if (c.at("points").get<int>() != points) continue;
    if (f.quant) {
      out.emplace_back(c.at("sigma_x").get<double>(), number(c.at("score")));
    } else if (c.at("sigma_x").get<double>() == sx) {
      double v = number(c.at("score"));
      if (relative) v /= number(f.cells("zero").at(i).at("score"));
      out.emplace_back(c.at("sigma_fn").get<double>(), v);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Error by length at the smallest sigma of x (and of the function).
Curve by_length(const EvalFile& f, const std::string& name) {
  const json& cells = f.cells(name);
  const double sx = smallest(cells, "sigma_x");
  const double sf = f.quant ? 0 : smallest(cells, "sigma_fn");
  Curve out;
  for (const auto& c : cells)
    if (c.at("sigma_x").get<double>() == sx && (f.quant || c.at("sigma_fn").get<double>() == sf))
      out.emplace_back(c.at("points").get<double>(), number(c.at("score")));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> xs(const Curve& c) {
  std::vector<double> v;
  for (const auto& p : c) v.push_back(p.first);
  return v;
}
std::vector<double> ys(const Curve& c) {
  std::vector<double> v;
  for (const auto& p : c) v.push_back(p.second);
  return v;
}

// Per x, the mean and sd over curves (all on the same x values).
std::vector<Stats> pointwise(const std::vector<Curve>& curves) {
  std::vector<Stats> out;
  if (curves.empty()) return out;
  for (size_t i = 0; i < curves[0].size(); ++i) {
    std::vector<double> v;
    for (const Curve& c : curves) v.push_back(c.at(i).second);
    out.push_back(stats(v));
  }
  return out;
}

std::string mean_sd(const Stats& s, const char* spec) {
  if (s.n == 0) return "–";
  const std::string m = fmt::format(fmt::runtime(spec), s.mean);
  return s.n > 1 ? m + " ± " + fmt::format(fmt::runtime(spec), s.sd) : m;
}

std::vector<Group> groups_of(const std::vector<RunInfo>& runs, const ShiftReportSettings& s) {
  std::map<std::pair<std::string, std::string>, Group> by;
  for (const RunInfo& r : runs) {
    Group& g = by[{r.task, r.arch}];
    g.task = r.task, g.arch = r.arch;
    g.runs[r.function].push_back(r);
  }
  std::vector<Group> out;
  for (auto& [key, g] : by) {
    for (const std::string& f : {s.reference, s.primary})
      if (g.runs.count(f)) g.functions.push_back(f);
    for (const auto& [f, rs] : g.runs)
      if (f != s.reference && f != s.primary) g.functions.push_back(f);
    out.push_back(std::move(g));
  }
  return out;
}

// A line chart with whiskers of ± 1 sd: one line per function (mean over its seeds, each seed a
// thin line under it) and one per baseline.
LineChart mean_chart(const std::string& title, const std::string& note, const std::string& x_label,
                     const std::string& y_label, bool percent,
                     const std::vector<std::pair<std::string, std::vector<Curve>>>& lines) {
  LineChart c;
  c.title = title, c.note = note, c.x_label = x_label, c.y_label = y_label, c.percent = percent;
  c.chance = NAN;
  for (const auto& [name, curves] : lines) {
    const std::vector<Stats> st = pointwise(curves);
    std::vector<std::pair<double, double>> pts;
    std::vector<double> spread;
    for (size_t i = 0; i < st.size(); ++i) {
      const double k = percent ? 100 : 1;
      pts.emplace_back(curves[0][i].first, k * st[i].mean);
      spread.push_back(k * st[i].sd);
    }
    c.groups.push_back(curves.size() > 1 ? fmt::format("{} ({} seeds)", name, curves.size()) : name);
    c.points.push_back(std::move(pts));
    c.spread.push_back(std::move(spread));
    std::vector<std::vector<std::pair<double, double>>> seeds;
    if (curves.size() > 1)
      for (const Curve& one : curves) {
        std::vector<std::pair<double, double>> line;
        for (const auto& [x, y] : one)
          if (std::isfinite(y)) line.emplace_back(x, (percent ? 100 : 1) * y);
        seeds.push_back(std::move(line));
      }
    c.thin.push_back(std::move(seeds));
  }
  return c;
}

std::string group_name(const Group& g) { return g.task + "-" + g.arch; }

}  // namespace bb::icl::shift
