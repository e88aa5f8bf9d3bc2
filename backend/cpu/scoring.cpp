// Attention scoring functions, row-wise: softmax and SSA (scaled signed averaging).
//   ssa: t = sign(s) n log1p(b|s|), P = softmax(t) = f(s)/sum f with f(x) = (1+b|x|)^(sign(x) n).
// The max subtracted is the max of t (SSA is not shift-invariant in s). Masked keys get P = 0 and
// never pass through the power.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/cpu/dispatch.h"
#include "backend/ops.h"

namespace bb::ops {

namespace {

template <typename T>
inline T ssa_logit(T s, T b, T n) {
  const T a = std::log1p(b * std::abs(s)) * n;
  return s < 0 ? -a : (s > 0 ? a : T(0));
}

}  // namespace

template <typename T>
void scoring_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L, Scoring kind, T b,
                     T n) {
  BB_RUN_ON_CUDA(scoring_forward, P, S, key_valid, R, L, kind, b, n);
  for (int r = 0; r < R; ++r) {
    const T* s = S + int64_t(r) * L;
    T* p = P + int64_t(r) * L;
    T mx = -std::numeric_limits<T>::infinity();
    for (int j = 0; j < L; ++j) {
      if (key_valid && !key_valid[j]) continue;
      p[j] = kind == Scoring::ssa ? ssa_logit(s[j], b, n) : s[j];  // t, kept in P for now
      mx = std::max(mx, p[j]);
    }
    T sum = 0;
    for (int j = 0; j < L; ++j) {
      if (key_valid && !key_valid[j]) {
        p[j] = T(0);
        continue;
      }
      p[j] = std::exp(p[j] - mx);
      sum += p[j];
    }
    const T inv = sum > 0 ? T(1) / sum : T(0);  // a row with no valid key stays all zero
    for (int j = 0; j < L; ++j) p[j] *= inv;
  }
}

template <typename T>
void scoring_backward(T* dS, T* db, T* dn, const T* dP, const T* P, const T* S,
                      const uint8_t* key_valid, int R, int L, Scoring kind, T b, T n) {
  BB_RUN_ON_CUDA(scoring_backward, dS, db, dn, dP, P, S, key_valid, R, L, kind, b, n);
  // dL/dt_j = P_j (dP_j - sum_k P_k dP_k); softmax: dS = dt. ssa: dS = dt n b / (1 + b|s|),
  // dn += dt sign(s) log1p(b|s|), db += dt n s / (1 + b|s|). Masked keys have P = 0, so dt = 0.
  T acc_b = 0, acc_n = 0;
  for (int r = 0; r < R; ++r) {
    const T* p = P + int64_t(r) * L;
    const T* g = dP + int64_t(r) * L;
    const T* s = S + int64_t(r) * L;
    T* d = dS + int64_t(r) * L;
    T dot = 0;
    for (int j = 0; j < L; ++j)
      if (!key_valid || key_valid[j]) dot += p[j] * g[j];
    for (int j = 0; j < L; ++j) {
      if (key_valid && !key_valid[j]) {
        d[j] = T(0);
        continue;
      }
      const T dt = p[j] * (g[j] - dot);
      if (kind == Scoring::softmax) {
        d[j] = dt;
        continue;
      }
      const T inv = T(1) / (T(1) + b * std::abs(s[j]));
      d[j] = dt * n * b * inv;
      acc_n += dt * (s[j] < 0 ? -T(1) : (s[j] > 0 ? T(1) : T(0))) * std::log1p(b * std::abs(s[j]));
      acc_b += dt * n * s[j] * inv;
    }
  }
  if (kind == Scoring::ssa) {
    if (db) *db += acc_b;
    if (dn) *dn += acc_n;
  }
}

template void scoring_forward<float>(float*, const float*, const uint8_t*, int, int, Scoring,
                                     float, float);
template void scoring_forward<double>(double*, const double*, const uint8_t*, int, int, Scoring,
                                      double, double);
template void scoring_backward<float>(float*, float*, float*, const float*, const float*,
                                      const float*, const uint8_t*, int, int, Scoring, float,
                                      float);
template void scoring_backward<double>(double*, double*, double*, const double*, const double*,
                                       const double*, const uint8_t*, int, int, Scoring, double,
                                       double);

}  // namespace bb::ops
