// Attention scoring functions, row-wise: softmax and SSA (scaled signed averaging), and SSA's
// effective parameters b = exp(beta), n = 1 + exp(nu) from its raw trainable ones.
//   ssa: t = sign(s) n log1p(b|s|), P = softmax(t) = f(s)/sum f with f(x) = (1+b|x|)^(sign(x) n).
// The max subtracted is the max of t (SSA is not shift-invariant in s). Masked keys get P = 0 and
// never pass through the power.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/cpu/ops.h"
#include "common/buffer.h"

namespace bb::cpu {

namespace {
// A 64-byte aligned block whose length is a multiple of 16: Eigen then runs log1p and exp with
// its vector code on every element (no scalar peel or tail, whose results would differ from the
// vector code's in the last bit and depend on where a row happens to sit in memory).
template <typename T>
using AlignedFlat = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Aligned64>;

inline int64_t padded_length(int64_t n) { return (n + 15) / 16 * 16; }

// Per-thread scratch for `arrays` AlignedFlat blocks of `padded` values each, back to back (each
// block starts 64-byte aligned: padded is a multiple of 16 values). Grows, never shrinks.
template <typename T>
T* aligned_scratch(int arrays, int64_t padded) {
  thread_local Buffer<T> buf;
  if (int64_t(buf.size()) < arrays * padded) buf.resize(arrays * padded);
  return buf.data();
}
}  // namespace

// The whole (R, L) block at once where it is elementwise (a row of a Zorro sentence is only ~10
// wide), in a per-thread scratch block; row loops for the mask, max and sum.
template <typename T>
void scoring_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L, Scoring kind, T b,
                     T n) {
  const int64_t RL = int64_t(R) * L, padded = padded_length(RL);
  T* tp = aligned_scratch<T>(1, padded);
  std::copy(S, S + RL, tp);
  std::fill(tp + RL, tp + padded, T(0));
  AlignedFlat<T> t(tp, padded);
  if (kind == Scoring::ssa) {  // t = sign(s) n log1p(b|s|); sign() would make Eigen go scalar
    t = (b * t.abs()).log1p() * n;
    for (int64_t e = 0; e < RL; ++e)
      if (S[e] < 0) tp[e] = -tp[e];
  }
  constexpr T minus_inf = -std::numeric_limits<T>::infinity();
  for (int r = 0; r < R; ++r) {  // masked keys -> -inf (t was finite); subtract the row's max
    T* row = tp + int64_t(r) * L;
    T mx = minus_inf;
    for (int j = 0; j < L; ++j) {
      if (key_valid && !key_valid[j]) row[j] = minus_inf;
      mx = std::max(mx, row[j]);
    }
    if (mx == minus_inf) continue;  // no valid key: the row stays -inf, exp gives 0
    for (int j = 0; j < L; ++j) row[j] -= mx;
  }
  t = t.exp();  // exp(-inf) = 0 exactly: masked keys get no weight
  for (int r = 0; r < R; ++r) {
    const T* row = tp + int64_t(r) * L;
    T sum = 0;
    for (int j = 0; j < L; ++j) sum += row[j];
    const T inv = sum > 0 ? T(1) / sum : T(0);  // a row with no valid key stays all zero
    T* p = P + int64_t(r) * L;
    for (int j = 0; j < L; ++j) p[j] = row[j] * inv;
  }
}

template <typename T>
void scoring_backward(T* dS, T* db, T* dn, const T* dP, const T* P, const T* S,
                      const uint8_t* key_valid, int R, int L, Scoring kind, T b, T n) {
  // dL/dt_j = P_j (dP_j - sum_k P_k dP_k); softmax: dS = dt. ssa: dS = dt n b / (1 + b|s|),
  // dn += dt sign(s) log1p(b|s|), db += dt n s / (1 + b|s|). Masked keys: dS = 0, and their
  // |s| is taken as 0 below, so they add nothing to db, dn.
  for (int r = 0; r < R; ++r) {
    const T* p = P + int64_t(r) * L;
    const T* g = dP + int64_t(r) * L;
    T* d = dS + int64_t(r) * L;
    T dot = 0;
    for (int j = 0; j < L; ++j)
      if (!key_valid || key_valid[j]) dot += p[j] * g[j];
    for (int j = 0; j < L; ++j) d[j] = key_valid && !key_valid[j] ? T(0) : p[j] * (g[j] - dot);
  }
  if (kind == Scoring::softmax) return;
  // The SSA terms over the whole block in aligned scratch (see AlignedFlat): a = |s|, sdt =
  // sign(s) dt, dt itself; padding is 0 and adds nothing.
  const int64_t RL = int64_t(R) * L, padded = padded_length(RL);
  T* ap = aligned_scratch<T>(3, padded);
  T *sdtp = ap + padded, *dtp = sdtp + padded;
  for (int64_t e = 0; e < padded; ++e) {
    const bool live = e < RL && (!key_valid || key_valid[e % L]);
    ap[e] = live ? std::abs(S[e]) : T(0);
    dtp[e] = live ? dS[e] : T(0);
    sdtp[e] = live && S[e] < 0 ? -dtp[e] : dtp[e];
  }
  const AlignedFlat<T> a(ap, padded), sdt(sdtp, padded);
  AlignedFlat<T> dt(dtp, padded);
  const T acc_n = (sdt * (b * a).log1p()).sum();
  const T acc_b = n * (sdt * a / (T(1) + b * a)).sum();
  dt = dt * (n * b) / (T(1) + b * a);
  std::copy(dtp, dtp + RL, dS);
  if (db) *db += acc_b;
  if (dn) *dn += acc_n;
}

template <typename T>
void ssa_effective(T* b, T* n, const T* beta, const T* nu, int H) {
  for (int h = 0; h < H; ++h) {
    b[h] = std::exp(beta[h]);
    n[h] = T(1) + std::exp(nu[h]);
  }
}

template <typename T>
void ssa_raw_grads(T* dbeta, T* dnu, const T* db, const T* dn, const T* b, const T* n, int H,
                   bool freeze_b, bool freeze_n) {
  for (int h = 0; h < H; ++h) {
    if (!freeze_b) dbeta[h] += db[h] * b[h];
    if (!freeze_n) dnu[h] += dn[h] * (n[h] - T(1));
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
template void ssa_effective<float>(float*, float*, const float*, const float*, int);
template void ssa_effective<double>(double*, double*, const double*, const double*, int);
template void ssa_raw_grads<float>(float*, float*, const float*, const float*, const float*,
                                   const float*, int, bool, bool);
template void ssa_raw_grads<double>(double*, double*, const double*, const double*, const double*,
                                    const double*, int, bool, bool);

}  // namespace bb::cpu
