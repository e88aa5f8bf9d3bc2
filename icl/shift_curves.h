// The results folder `icl report` reads, as the report's sections use it: the runs (run.json),
// each eval.json's cells, and error curves by sigma and by length with their mean ± sd over seeds.
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "icl/shift_report.h"
#include "common/statistics.h"
#include "common/svg.h"

namespace bb::icl::shift {

struct RunInfo {
  std::string name, task, arch;
  std::string function;  // its group's label: "ssa", "ssa(n=2 frozen)", "ssa (--ssa-lr-mult 10)"
  int seed = 0;
  AttentionFunction attention = AttentionFunction::softmax;  // the function itself
};

// (x, value) points of one model, x ascending.
using Curve = std::vector<std::pair<double, double>>;

using Stats = Stat;  // mean, sd (n - 1) and n, as compare's
// Mean and sd of the finite values (probing's stat_of; none: mean NaN, n 0).
Stats stats(const std::vector<double>& v);
std::string sign_test_text(const std::map<int, double>& a, const std::map<int, double>& b);

// DIR/*/run.json, sorted by (task, arch, function, seed); fails on a non-ICL run.json.
std::vector<RunInfo> read_runs(const std::filesystem::path& dir);

// One eval.json: each model's (and baseline's) cells.
struct EvalFile {
  std::filesystem::path path;
  bool quant = true;
  int from_point = 4, sequences = 0;
  std::map<std::string, nlohmann::json> models;  // name -> cells
  std::vector<std::string> baselines;            // in file order
  std::map<std::string, int64_t> steps;  // model (not baseline) -> "steps" (-1: null or absent)
  const nlohmann::json& cells(const std::string& name) const;
};
EvalFile read_eval(const std::filesystem::path& path);

// One saturation.json (`babyberta saturation`): per model, the mean over layers of the mean largest
// attention weight in a row, by sigma of x.
struct SaturationFile {
  std::filesystem::path path;
  std::vector<double> sigmas;
  int sequences = 0, points = 0;
  std::map<std::string, std::vector<double>> mean_max;  // model -> by sigma
  // The model's curve; fails naming the file when it has no such model.
  const std::vector<double>& of(const std::string& model) const;
};
SaturationFile read_saturation(const std::filesystem::path& path);

double number(const nlohmann::json& v);  // a score; null (a diverged cell): infinity
// The length nearest `points` among the cells.
int nearest_points(const nlohmann::json& cells, int points);
double smallest(const nlohmann::json& cells, const char* key);
// Error by sigma at the length nearest 40 points: quantification, the score by sigma of x;
// linear, the score divided by the zero predictor's by sigma of the function at the smallest
// sigma of x (`relative`), or the score itself.
Curve by_sigma(const EvalFile& f, const std::string& name, bool relative);
// Error by length at the smallest sigma of x (and of the function).
Curve by_length(const EvalFile& f, const std::string& name);
std::vector<double> xs(const Curve& c);
std::vector<double> ys(const Curve& c);
// Per x, the mean and sd over curves (all on the same x values).
std::vector<Stats> pointwise(const std::vector<Curve>& curves);
std::string mean_sd(const Stats& s, const char* spec = "{:.3f}");

struct Group {
  std::string task, arch;
  std::vector<std::string> functions;                 // reference, primary, then the rest
  std::map<std::string, std::vector<RunInfo>> runs;   // function -> runs by seed
};
std::vector<Group> groups_of(const std::vector<RunInfo>& runs, const ShiftReportSettings& s);
std::string group_name(const Group& g);

// A line chart with whiskers of ± 1 sd: one line per function (mean over its seeds) and one per
// baseline.
LineChart mean_chart(const std::string& title, const std::string& note, const std::string& x_label,
                     const std::string& y_label, bool percent,
                     const std::vector<std::pair<std::string, std::vector<Curve>>>& lines);

}  // namespace bb::icl::shift
