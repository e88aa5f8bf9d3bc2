// Does the shift comparison change with training? (results/icl-training-length, issue 47 part 3.)
// `icl report --dir DIR` writes this report when DIR holds evaluations per checkpoint:
//   runs/NAME/run.json                       task, architecture, function, seed (and
//                                            --ssa-lr-mult: its own group when not 1)
//   endpoint/GROUP/step-N/eval.json          40 points, sigma 1..29, many sequences: each run's
//                                            model after N updates (named by its run; "steps" N)
//   saturation/GROUP/step-N/saturation.json  (optional) the saturation grid of the same models
// Primary endpoint (fixed before the checkpoints were evaluated): the mean error share over the
// sigma grid at 40 points (quantification: the share of sequences with a wrong sign; the mean
// over the grid's sigma values, i.e. the area under the error curve divided by their number,
// never censored), the primary function minus the reference paired by seed with a t test, at the
// last checkpoint. Secondary: the same at the other checkpoints, sigma_50 (icl/shift_report.h) at
// every one, every other group (SSA with --ssa-lr-mult) against the reference, and the
// saturation at every checkpoint. The report states the grid (every run at every step must share
// it) and names every run an evaluation lacks.
#pragma once
#include <filesystem>
#include <string>

#include "icl/shift_report.h"

namespace bb::icl {

// Whether DIR holds evaluations per checkpoint (endpoint/GROUP/step-N/eval.json).
bool is_training_length_folder(const std::filesystem::path& dir);

// The mean error over a sigma curve's points (the primary endpoint of one run at one step).
double mean_error_over_sigma(const std::vector<std::pair<double, double>>& curve);

// report.md and charts/endpoint-by-updates-GROUP.svg; returns the Markdown.
std::string write_training_length_report(const std::filesystem::path& dir,
                                         const ShiftReportSettings& s);

}  // namespace bb::icl
