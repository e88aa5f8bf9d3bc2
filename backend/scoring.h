// The attention scoring functions (backend/ops.h, scoring_forward): which function turns a row of
// scores s into attention probabilities P. Adding one = a value here + its forward/backward pair
// per backend + tests.
#pragma once

namespace bb {

enum class Scoring {
  softmax,  // P_j = exp(s_j) / sum_k exp(s_k)
  ssa,      // scaled signed averaging: P_j = f(s_j) / sum_k f(s_k), f(x) = (1 + b|x|)^(sign(x) n)
};

}  // namespace bb
