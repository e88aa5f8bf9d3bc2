// Attention saturation (the SSA paper's Theorems 1 and 2, measured): how a scoring function's
// weights over a row collapse onto one key when the scores are magnified (every score times
// lambda) or when one key's score is raised by delta. Rows are the score rows of a trained
// model's unmodified forward pass (each layer's own rows; later layers are not re-run), or random
// rows (analytic). Works for every function of backend/attention_function.h through
// ops::attention_function_forward:
//   - cosFormer's weights come from ReLU features, s = relu(q) relu(k)^T: magnifying q and k by
//     lambda multiplies s by lambda^2, which leaves its weights unchanged (its curve is flat);
//     the boost is added to s itself.
//   - sa-softmax's rows do not sum to 1: the measures are taken on the row renormalised to 1,
//     and its raw row sum is reported beside them.
// Rows of a single key, and rows whose weights at the model's own scores sum to 0, have no
// distribution and are skipped; the same rows are measured under every scale and boost.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/attention_function.h"

namespace bb {

struct SaturationSettings {
  std::vector<double> scales{0.5, 1, 2, 4, 8, 16, 32};  // lambda
  std::vector<double> boosts{0, 1, 2, 4, 8, 16};        // delta
  uint64_t seed = 1;                                    // which key each row boosts
};

// Means over rows of one weight row's measures (after renormalising to 1):
//   max_weight; entropy H / log L (1: uniform, 0: one-hot); support 1 / sum p^2 (L: uniform);
//   row_sum: the raw sum before renormalising (1 but for sa-softmax and all-zero rows).
struct RowMeasures {
  double max_weight = 0, entropy = 0, support = 0, row_sum = 0;
};

// One (layer, head)'s accumulated rows; the values are means after finish().
struct HeadSaturation {
  int64_t rows = 0;
  RowMeasures own;                    // at the model's own scores (lambda = 1, delta = 0)
  std::vector<RowMeasures> magnified; // per scale
  std::vector<double> boosted;        // per boost: the boosted key's weight
  std::vector<double> remaining;      // per boost: the mass left on the other keys
  int64_t boost_rows = 0;
  void finish();  // sums -> means
};

// The measures of one weight row p(L) (exposed for tests). False for a row that sums to 0.
bool measure_row(const double* p, int L, RowMeasures& out);

// Adds the L query rows of one head's (L, L) score block S (row i: query i; cosFormer's
// position) scored by `kind` with trainable values v0, v1. `block_id` makes each block's boosted
// keys distinct and reproducible. acc must have been sized for the settings (saturation_head()).
void add_score_block(HeadSaturation& acc, const std::vector<double>& S, int L,
                     AttentionFunction kind, double v0, double v1, const SaturationSettings& st,
                     uint64_t block_id);
HeadSaturation saturation_head(const SaturationSettings& st);

// One model (or, analytic, one function at its defaults): [layer][head].
struct SaturationCurves {
  std::string name;  // the model directory, or the function (analytic)
  std::string label;  // the attention label ("ssa", "softmax-t(τ=2 frozen)", ...)
  AttentionFunction kind = AttentionFunction::softmax;
  bool analytic = false;  // random rows: one "layer" of one "head"
  std::vector<std::vector<HeadSaturation>> layers;
  // Per layer, the mean over its heads that have rows (the curves charted); rows: their sum.
  HeadSaturation layer_mean(int l) const;
};

// Models whose labels collide (two checkpoints of one run, two seeds of one function) are told
// apart in legends and tables: each such label becomes "label (name)", name being the model
// directory as given; the same directory twice gets " #2", " #3", ...
void distinguish_labels(std::vector<SaturationCurves>& models);

// Random rows: blocks of N(0, 1) scores, L keys, `blocks` blocks of L rows, for one function at
// its default values (SSA b = 1, n = 1.5; softmax-t tau = 1); cosFormer's scores are
// relu(q) relu(k)^T of N(0, 1) features of 16 dimensions.
SaturationCurves analytic_saturation(AttentionFunction kind, int L, int blocks,
                                     const SaturationSettings& st);

// saturation.json (settings, every model's per-head and per-layer curves), saturation.csv (one
// line per model, layer, head and point) and saturation.md (per model a table of layer means and
// the lambda at which the mean max weight first reaches 0.9, "never" if it does not).
nlohmann::json saturation_json(const std::vector<SaturationCurves>& models,
                               const SaturationSettings& st, const nlohmann::json& source);
std::string saturation_csv(const std::vector<SaturationCurves>& models,
                           const SaturationSettings& st);
std::string saturation_markdown(const std::vector<SaturationCurves>& models,
                                const SaturationSettings& st, const std::string& source);
// Mean max weight against lambda and remaining mass against delta: one panel per layer, one line
// per model (log axis of lambda; log axis of 1 + delta).
std::string magnification_svg(const std::vector<SaturationCurves>& models,
                              const SaturationSettings& st);
std::string disproportion_svg(const std::vector<SaturationCurves>& models,
                              const SaturationSettings& st);

}  // namespace bb
