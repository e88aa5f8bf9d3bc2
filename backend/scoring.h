// The attention scoring functions (backend/ops.h, scoring_forward): which function turns a row of
// scores s into attention weights P. Adding one = a value here + its forward/backward pair per
// backend + tests. Formulas and references: README.md ("Attention functions").
#pragma once

namespace bb {

enum class Scoring {
  softmax,     // P_j = exp(s_j) / sum_k exp(s_k)
  ssa,         // scaled signed averaging: P_j = f(s_j) / sum_k f(s_k), f(x) = (1 + b|x|)^(sign(x) n)
  softmax_t,   // softmax(s / tau), tau > 0 trainable per head
  sparsemax,   // P = [s - tau]_+ with tau such that sum P = 1 (Martins & Astudillo 2016)
  entmax15,    // P = [z - tau]_+^2, z = s/2, sum P = 1 (1.5-entmax, Peters et al. 2019)
  sa_softmax,  // softmax(s)_j (s_j - lo) / (hi - lo + 1e-6); rows do not sum to 1 (Zheng et al. 2025)
  cosformer,   // s = relu(q) relu(k)^T (no 1/sqrt(d)), P_ij = s_ij c_ij / max(sum_j s_ij c_ij, 1e-6),
               // c_ij = cos(pi (i - j) / (2M)), M the sequence length (Qin et al. 2022)
};

inline constexpr Scoring kAllScorings[] = {Scoring::softmax,   Scoring::ssa,
                                           Scoring::softmax_t, Scoring::sparsemax,
                                           Scoring::entmax15,  Scoring::sa_softmax,
                                           Scoring::cosformer};

// How many trainable values per head a function has: the ops' v0, v1 (effective values).
//   ssa: v0 = b = exp(raw0) > 0, v1 = n = 1 + exp(raw1) > 1;  softmax_t: v0 = tau = exp(raw0) > 0.
constexpr int head_value_count(Scoring k) {
  return k == Scoring::ssa ? 2 : k == Scoring::softmax_t ? 1 : 0;
}

// cosformer scores ReLU features without 1/sqrt(d); every other function scores q k^T / sqrt(d).
constexpr bool scores_relu_features(Scoring k) { return k == Scoring::cosformer; }

}  // namespace bb
