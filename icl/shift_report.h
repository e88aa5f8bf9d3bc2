// The SSA paper's shift comparison, rebuilt from a results folder (results/icl-shift-cpu): the
// primary endpoint per (task, architecture) group, the curves over seeds, the saturation beside
// them and where wrong predictions point. Reads only files in the folder:
//   runs/NAME/run.json                 task, architecture (config), attention function, seed
//   endpoint/GROUP/eval.json           40 points, many sequences per sigma: the endpoint
//   grid/GROUP/eval.json               the authors' full grid (curves, lengths)
//   saturation/GROUP/saturation.json   mean max attention weight per layer by sigma
//   authors/GROUP/eval.json            the authors' draws (their recorded-MSE protocol)
// GROUP is TASK-ARCH; a model's name in those files is its run directory's name.
//
// Endpoint: sigma_50, the sigma at which the relative error first reaches `level` (0.5),
// linearly interpolated between neighbouring grid sigmas: quantification, the share of
// sequences with a wrong sign; linear tasks, along sigma of the function at the smallest sigma
// of x, the MSE divided by the zero predictor's MSE in the same cell. A run whose error is
// already at the level at the first sigma gets that sigma; one that never reaches it is
// censored (no value) and its group's test says so. SSA - softmax is tested by a paired t test
// over seeds (icl/experiment_report.h); the other functions against softmax are secondary.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/attention_function.h"

namespace bb::icl {

// The first sigma at which `error` reaches `level` (interpolated), NaN when it never does.
// sigmas ascending, error.size() == sigmas.size().
double crossing_sigma(const std::vector<double>& sigmas, const std::vector<double>& error,
                      double level);

// The exact two-sided sign test of b against a over the seeds both have: a value that is not
// finite is censored (beyond the grid: above any finite one); pairs without a direction (both
// censored, or equal) are dropped. higher: pairs where b is higher, of n.
struct SignTest {
  int higher = 0, n = 0;
  double p = 1;
};
SignTest censored_sign_test(const std::map<int, double>& a, const std::map<int, double>& b);

struct ShiftReportSettings {
  std::string reference = attention_function_name(AttentionFunction::softmax),
              primary = attention_function_name(AttentionFunction::ssa);
  double level = 0.5;
  int trained_points = 41;  // lengths above it rely on untrained positions
  // The folders of the endpoint and of the length grid; an `icl experiment` folder has neither
  // endpoint/ nor grid/ but eval/GROUP/eval.json (every length and sigma it evaluated), which
  // write_shift_report then reads for both.
  std::string endpoint = "endpoint", grid = "grid";
};

// report.md and the charts (DIR/charts/*.svg) of the folder (a results folder as above, or an
// `icl experiment` folder); returns the Markdown.
std::string write_shift_report(const std::filesystem::path& dir, const ShiftReportSettings& s);

}  // namespace bb::icl
