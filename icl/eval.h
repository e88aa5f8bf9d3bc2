// Shift evaluation of ICL models (the SSA paper's tests, after omyokun/SSA testoverlandx.py and
// testoverxandy.py): a grid of cells, each `sequences` fresh sequences drawn from the test
// distribution, teacher-forced (the true y tokens are in the input, as the authors ran it).
// Quantification cells vary the number of points and sigma_x; linear cells vary sigma_x and
// sigma_fn at a fixed number of points. Per cell:
//   errors      sequences with any wrong sign from point `from_point` on (quantification; the
//               authors' count; a non-finite prediction is wrong), or NaN
// (sequences shorter than from_point count no error and score 0, as the authors' [:, 3:]).
//   per_point   sign accuracy (quantification) or squared error (linear; / dims for
//               linear-regression) at each point, averaged over the sequences
//   score       errors / sequences (quantification), or the mean squared error over points
//               from_point.. and sequences (linear): lower is better for both
//   wrong_points             wrong signs from point from_point on, over all sequences
//   wrong_following_largest  of those, the predictions whose sign is the sign of the x with the
//                            largest |x| among x_1..x_i (softmax's collapse predicts from it)
//   largest_positive         points from from_point on whose largest-|x| so far is positive
//                            (the share the second count would reach by chance), with `counted`
//                            the points from from_point on (quantification only; else NaN)
// Baselines get the same cells: the exact rule (quantification), the majority predictor (always
// -1 for every, +1 for some), and for linear tasks per-prefix least squares (minimum norm), the
// averaging estimator (mean of y_j x_j) and the zero predictor.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "icl/model.h"
#include "icl/task.h"

namespace bb::icl {

struct EvalGrid {
  Task task = Task::every;
  int dims = 1;
  std::vector<int> points = {40};          // sequence lengths (points); linear: one
  std::vector<double> sigma_x = {1};       // x ~ N(0, sigma_x^2)
  std::vector<double> sigma_fn = {1};      // functions ~ N(0, sigma_fn^2) (linear tasks)
  int sequences = 64;
  int from_point = 4;                      // 1-based: the authors' [:, 3:]
  uint64_t seed = 1;
  // The authors' draws (icl/torch_draws.h) instead of independent ones: x of sequence i, point j
  // is sigma_x * randn after manual_seed(100 i + 10 j) (so sequences overlap: the same seed for
  // (i, j + 10) and (i + 1, j)); linear: each cell applies 100 functions (a, b) = randn(200) after
  // manual_seed(sigma_fn), times sigma_fn, to all its sequences, and its score is their mean.
  // The x values are PyTorch's bit for bit; the coefficients within 2 ulp (icl/torch_draws.h).
  bool authors_draws = false;
};

struct Cell {
  int points = 0;
  double sigma_x = 1, sigma_fn = 1;
  double errors = 0, score = 0;
  std::vector<double> per_point;
  double wrong_points = NAN, wrong_following_largest = NAN, largest_positive = NAN, counted = NAN;
};

struct EvalResult {
  std::string name;  // model label or baseline name
  bool baseline = false;
  int64_t steps = -1;  // updates the model was trained (eval.json "steps"; -1: unknown, null)
  std::vector<Cell> cells;  // grid order: points, then sigma_x, then sigma_fn
};

// A predictor: predictions (B, k) for sequences s (teacher-forced).
using Predictor = std::function<std::vector<float>(const Sequences& s)>;
// The model's predictions (B, k) for sequences s, `batch` sequences per forward pass (inference:
// one attention store, so long sequences fit).
std::vector<float> predict(Model<float>& model, const Sequences& s, int batch);

// Every cell of the grid for one predictor. The sequences of a cell are the same for every
// predictor (drawn from grid.seed and the cell's index). `after_cell`, if given, runs after each
// cell (a progress line).
EvalResult evaluate(const EvalGrid& grid, const std::string& name, bool baseline,
                    const Predictor& predict, const std::function<void()>& after_cell = {});
// The cells of the grid per predictor.
size_t cell_count(const EvalGrid& grid);
// The baselines that apply to grid.task.
std::vector<std::pair<std::string, Predictor>> baselines(Task task);

// The sequences of cell `index` (with authors_draws: sequences x 100 for linear tasks).
Sequences cell_sequences(const EvalGrid& grid, size_t index, int points, double sigma_x,
                         double sigma_fn);

nlohmann::json to_json(const EvalGrid& g, const std::vector<EvalResult>& results);
std::string to_csv(const std::vector<EvalResult>& results);
// eval.json, eval.csv, heatmaps (one per model: score over points x sigma_x, or sigma_x x
// sigma_fn) and error-versus-sigma curves (one line per model and baseline) into dir.
void write_eval(const std::filesystem::path& dir, const EvalGrid& g,
                const std::vector<EvalResult>& results);

}  // namespace bb::icl
