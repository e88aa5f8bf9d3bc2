#include "probing/saturation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "backend/ops.h"
#include "common/philox.h"
#include "encoder/config.h"

namespace bb {

namespace {

void add_measures(RowMeasures& to, const RowMeasures& m, double times = 1) {
  to.max_weight += times * m.max_weight;
  to.entropy += times * m.entropy;
  to.support += times * m.support;
  to.row_sum += times * m.row_sum;
}

void divide(RowMeasures& m, double n) {
  if (n <= 0) return;
  m.max_weight /= n, m.entropy /= n, m.support /= n, m.row_sum /= n;
}

// P(L, L) = scoring(S) over a block (row i: query i), in double precision.
void score_block(std::vector<double>& P, const std::vector<double>& S, int L,
                 AttentionFunction kind, double v0, double v1) {
  P.resize(S.size());
  ops::attention_function_forward<double>(P.data(), S.data(), nullptr, L, L, kind, v0, v1);
}

}  // namespace

bool measure_row(const double* p, int L, RowMeasures& out) {
  double sum = 0;
  for (int j = 0; j < L; ++j) sum += p[j];
  if (!(sum > 0) || L < 2) return false;
  double mx = 0, h = 0, sq = 0;
  for (int j = 0; j < L; ++j) {
    const double q = p[j] / sum;
    mx = std::max(mx, q);
    if (q > 0) h -= q * std::log(q);
    sq += q * q;
  }
  out = {mx, h / std::log(double(L)), 1 / sq, sum};
  return true;
}

void HeadSaturation::finish() {
  divide(own, double(rows));
  for (RowMeasures& m : magnified) divide(m, double(rows));
  for (size_t k = 0; k < boosted.size() && boost_rows > 0; ++k) {
    boosted[k] /= double(boost_rows);
    remaining[k] /= double(boost_rows);
  }
}

HeadSaturation saturation_head(const SaturationSettings& st) {
  HeadSaturation h;
  h.magnified.assign(st.scales.size(), {});
  h.boosted.assign(st.boosts.size(), 0.0);
  h.remaining.assign(st.boosts.size(), 0.0);
  return h;
}

// Rows count for the head when their weights at the model's own scores form a distribution
// (L >= 2, sum > 0); the same rows are measured under every scale and boost. A row whose
// magnified weights sum to 0 (sa-softmax, cosFormer) counts as max 0, entropy 0, support 0.
void add_score_block(HeadSaturation& acc, const std::vector<double>& S, int L,
                     AttentionFunction kind, double v0, double v1, const SaturationSettings& st,
                     uint64_t block_id) {
  if (L < 2) return;
  std::vector<double> P, Sx(S.size());
  std::vector<bool> counted(L, false);
  score_block(P, S, L, kind, v0, v1);
  for (int i = 0; i < L; ++i) {
    RowMeasures m;
    if (!measure_row(P.data() + int64_t(i) * L, L, m)) continue;
    counted[i] = true;
    ++acc.rows;
    add_measures(acc.own, m);
  }
  for (size_t k = 0; k < st.scales.size(); ++k) {
    // cosFormer: q and k magnified by lambda multiply its scores by lambda^2.
    const double f = scores_relu_features(kind) ? st.scales[k] * st.scales[k] : st.scales[k];
    for (size_t e = 0; e < S.size(); ++e) Sx[e] = S[e] * f;
    score_block(P, Sx, L, kind, v0, v1);
    for (int i = 0; i < L; ++i) {
      RowMeasures m;
      if (counted[i] && measure_row(P.data() + int64_t(i) * L, L, m))
        add_measures(acc.magnified[k], m);
    }
  }
  // One key per row, uniform, fixed by (seed, block, row).
  const Philox rng{stream_key(st.seed, block_id)};
  std::vector<int> key(L);
  for (int i = 0; i < L; ++i)
    key[i] = std::min(L - 1, int(rng.uniform(0, uint64_t(i)) * float(L)));
  for (size_t k = 0; k < st.boosts.size(); ++k) {
    Sx = S;
    for (int i = 0; i < L; ++i) Sx[int64_t(i) * L + key[i]] += st.boosts[k];
    score_block(P, Sx, L, kind, v0, v1);
    for (int i = 0; i < L; ++i) {
      if (!counted[i]) continue;
      const double* p = P.data() + int64_t(i) * L;
      double sum = 0;
      for (int j = 0; j < L; ++j) sum += p[j];
      const double w = sum > 0 ? p[key[i]] / sum : 0.0;
      acc.boosted[k] += w;
      acc.remaining[k] += sum > 0 ? 1 - w : 0.0;
    }
  }
  for (int i = 0; i < L; ++i) acc.boost_rows += counted[i];
}

HeadSaturation SaturationCurves::layer_mean(int l) const {
  HeadSaturation m;
  int heads = 0;
  for (const HeadSaturation& o : layers[l]) {
    if (o.rows == 0) continue;  // a head without a measured row has no curve to average
    if (heads++ == 0) {
      m = o;
      continue;
    }
    m.rows += o.rows;
    m.boost_rows += o.boost_rows;
    add_measures(m.own, o.own);
    for (size_t k = 0; k < m.magnified.size(); ++k) add_measures(m.magnified[k], o.magnified[k]);
    for (size_t k = 0; k < m.boosted.size(); ++k) {
      m.boosted[k] += o.boosted[k];
      m.remaining[k] += o.remaining[k];
    }
  }
  if (heads == 0) return layers[l].empty() ? HeadSaturation{} : layers[l][0];
  divide(m.own, heads);
  for (RowMeasures& r : m.magnified) divide(r, heads);
  for (size_t k = 0; k < m.boosted.size(); ++k) m.boosted[k] /= heads, m.remaining[k] /= heads;
  return m;
}

void distinguish_labels(std::vector<SaturationCurves>& models) {
  std::map<std::string, int> uses;
  for (const SaturationCurves& m : models) ++uses[m.label];
  std::map<std::string, int> seen;
  for (SaturationCurves& m : models) {
    if (uses[m.label] < 2) continue;
    std::string label = fmt::format("{} ({})", m.label, m.name);
    if (const int k = ++seen[label]; k > 1) label += fmt::format(" #{}", k);
    m.label = std::move(label);
  }
}

SaturationCurves analytic_saturation(AttentionFunction kind, int L, int blocks,
                                     const SaturationSettings& st) {
  constexpr int kFeatures = 16;
  SaturationCurves c;
  c.name = attention_function_name(kind);
  c.label = c.name;
  c.kind = kind;
  c.analytic = true;
  const AttentionFunctionSpec& f = attention_function_spec(kind);  // its default values
  const double v0 = f.value_count > 0 ? f.values[0].init : 0.0;
  const double v1 = f.value_count > 1 ? f.values[1].init : 0.0;
  HeadSaturation acc = saturation_head(st);
  std::vector<double> S(int64_t(L) * L), q(int64_t(L) * kFeatures), k(int64_t(L) * kFeatures);
  for (int b = 0; b < blocks; ++b) {
    const Philox rng{stream_key(st.seed, 1'000'000 + uint64_t(b))};
    if (scores_relu_features(kind)) {
      for (size_t e = 0; e < q.size(); ++e) {
        q[e] = std::max(0.0, rng.normal(0, e));
        k[e] = std::max(0.0, rng.normal(1, e));
      }
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j) {
          double s = 0;
          for (int f = 0; f < kFeatures; ++f) s += q[i * kFeatures + f] * k[j * kFeatures + f];
          S[int64_t(i) * L + j] = s;
        }
    } else {
      for (size_t e = 0; e < S.size(); ++e) S[e] = rng.normal(0, e);
    }
    add_score_block(acc, S, L, kind, v0, v1, st, uint64_t(b));
  }
  acc.finish();
  c.layers = {{acc}};
  return c;
}

}  // namespace bb
