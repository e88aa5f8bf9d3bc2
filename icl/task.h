// The in-context-learning tasks (the SSA paper's, after omyokun/SSA `scratch/src/tasks.py`):
// sequences of k points x_1..x_k with labels y_1..y_k, drawn on the fly from a Philox key, so a
// run needs no data files and any batch is a pure function of (key, counter).
//   every              y_i = +1 if every x_1..x_i > 0, else -1   (1-d; the authors' cumprod)
//   some               y_i = +1 if some x_j > 0, j <= i, else -1
//   mixed              every or some, chosen per batch with probability 1/2
//   linear             y_i = a x_i + b, a, b ~ N(0, sigma_fn^2)     (1-d)
//   linear-regression  y_i = w . x_i, w ~ N(0, sigma_fn^2 I_d)      (Garg et al. 2022)
// x ~ N(0, sigma_x^2) per coordinate. Tokens: x_i = (x_i), y_i = (y_i, 0, ..., 0) (the authors'
// _combine). Quantification is trained with binary cross-entropy on (y + 1)/2, the others with
// squared error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.h"

namespace bb::icl {

enum class Task { every, some, mixed, linear, linear_regression };
std::string task_name(Task t);
Task parse_task(const std::string& s);  // one-line error listing the names
std::vector<std::string> task_names();
bool is_quantification(Task t);  // every, some, mixed
ops::PointLoss task_loss(Task t);

struct Spread {
  double sigma_x = 1, sigma_fn = 1;  // x's and the function's standard deviations
};

struct Sequences {
  int B = 0, k = 0, dims = 1;
  Task drawn = Task::every;  // the task of this batch (every or some when mixed)
  std::vector<float> x;      // (B, k, dims)
  std::vector<float> y;      // (B, k): +-1 or values
  std::vector<float> z;      // (B, 2k, dims): the interleaved tokens
  std::vector<float> targets() const;  // (B, k): (y + 1)/2 for quantification, else y
};

// B sequences of k points, from Philox(key) at counter (hi = batch_id, lo = sequence and slot).
Sequences draw_sequences(Task task, int B, int k, int dims, Spread spread, uint64_t key,
                         uint64_t batch_id);
// The labels of points x (k, dims) under `task` (every/some: of x[.][0]); a, b or w: the function.
void label_quantification(Task task, const float* x, int k, float* y);

}  // namespace bb::icl
