// Attention functions over an (R, L) block of score rows. The softmax family (softmax,
// SSA, softmax-t: a softmax of t = transform(s)) runs here over the whole block; the others
// (sparsemax, entmax15, sa-softmax, cosformer) row by row through their RowKernel
// (attention_function_row.h, one file each in attention_functions/). Also the
// trainable values' effective form (b = exp(raw), tau = exp(raw), n = 1 + exp(raw)).
//   ssa:       t = sign(s) n log1p(b|s|), P = softmax(t) = f(s)/sum f, f(x) = (1+b|x|)^(sign(x) n)
//   softmax-t: t = s / tau
// The max subtracted is the max of t (SSA is not shift-invariant in s). Masked keys get P = 0 and
// never pass through the power.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "backend/cpu/attention_function_row.h"
#include "cpu_row_kernels.h"  // generated: every backend/cpu/attention_functions/*.h
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

bool softmax_family(AttentionFunction k) {
  return attention_function_spec(k).family == AttentionFamily::softmax_of_transform;
}

// Whether row r's key j takes part: valid, and j <= r when causal.
inline bool live(const uint8_t* key_valid, bool causal, int r, int j) {
  return (!key_valid || key_valid[j]) && (!causal || j <= r);
}

// The keys row r sees: all L, or the first r + 1 when causal (the rest get P = 0, dS = 0).
inline int row_keys(bool causal, int r, int L) { return causal ? std::min(r + 1, L) : L; }

// Row r of the block through row function F (the query at position r: cosformer's position).
template <AttentionFunction F, typename T>
void row_forward(T* P, const T* S, const uint8_t* valid, int R, int L, bool causal) {
  if constexpr (attention_function_spec(F).family == AttentionFamily::row) {
    for (int r = 0; r < R; ++r) {
      T* p = P + int64_t(r) * L;
      const int Lr = row_keys(causal, r, L);
      std::fill(p + Lr, p + L, T(0));
      rows::RowKernel<F>::forward(p, S + int64_t(r) * L, valid, Lr, r);
    }
  }
}

template <AttentionFunction F, typename T>
void row_backward(T* dS, const T* dP, const T* P, const T* S, const uint8_t* valid, int R, int L,
                  bool causal) {
  if constexpr (attention_function_spec(F).family == AttentionFamily::row) {
    for (int r = 0; r < R; ++r) {
      const int64_t at = int64_t(r) * L;
      const int Lr = row_keys(causal, r, L);
      std::fill(dS + at + Lr, dS + at + L, T(0));
      rows::RowKernel<F>::backward(dS + at, dP + at, P + at, S + at, valid, Lr, r);
    }
  }
}

// The row functions, a row at a time: `kind` is matched against every enum value, so each row
// function's RowKernel is instantiated (and must exist); the softmax family runs block-wise.
template <typename T, size_t... I>
void rows_forward(T* P, const T* S, const uint8_t* valid, int R, int L, AttentionFunction kind,
                  bool causal, std::index_sequence<I...>) {
  ((kind == AttentionFunction(I) ? row_forward<AttentionFunction(I)>(P, S, valid, R, L, causal)
                                 : void()),
   ...);
}

template <typename T, size_t... I>
void rows_backward(T* dS, const T* dP, const T* P, const T* S, const uint8_t* valid, int R, int L,
                   AttentionFunction kind, bool causal, std::index_sequence<I...>) {
  ((kind == AttentionFunction(I)
        ? row_backward<AttentionFunction(I)>(dS, dP, P, S, valid, R, L, causal)
        : void()),
   ...);
}

constexpr auto kEveryFunction = std::make_index_sequence<kAttentionFunctionCount>();

}  // namespace

// The softmax family over the whole (R, L) block at once where it is elementwise (a row of a
// Zorro sentence is only ~10 wide), in a per-thread scratch block; row loops for the mask, max
// and sum. v0, v1: ssa's b, n; softmax-t's tau.
template <typename T>
void attention_function_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, T v0, T v1, bool causal) {
  if (!softmax_family(kind))
    return rows_forward(P, S, key_valid, R, L, kind, causal, kEveryFunction);
  const int64_t RL = int64_t(R) * L, padded = padded_length(RL);
  T* tp = aligned_scratch<T>(1, padded);
  std::copy(S, S + RL, tp);
  std::fill(tp + RL, tp + padded, T(0));
  AlignedFlat<T> t(tp, padded);
  switch (attention_function_spec(kind).transform) {  // t = transform(s)
    case LogitTransform::ssa_power:  // t = sign(s) n log1p(b|s|); sign() would make Eigen go scalar
      t = (v0 * t.abs()).log1p() * v1;
      for (int64_t e = 0; e < RL; ++e)
        if (S[e] < 0) tp[e] = -tp[e];
      break;
    case LogitTransform::temperature: t = t / v0; break;
    case LogitTransform::identity: break;
    case LogitTransform::none: break;  // row kernels: rows_forward above
  }
  constexpr T minus_inf = -std::numeric_limits<T>::infinity();
  for (int r = 0; r < R; ++r) {  // masked keys -> -inf (t was finite); subtract the row's max
    T* row = tp + int64_t(r) * L;
    T mx = minus_inf;
    for (int j = 0; j < L; ++j) {
      if (!live(key_valid, causal, r, j)) row[j] = minus_inf;
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

namespace {

// softmax-t on dS = dL/dt: dS = dt / tau, dtau += -sum dt s / tau^2 (masked keys add nothing).
template <typename T>
void softmax_t_backward(T* dS, T* dv0, const T* S, const uint8_t* key_valid, bool causal, int R,
                        int L, T v0) {
  T acc = 0;
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < L; ++j) {
      const int64_t e = int64_t(r) * L + j;
      if (!live(key_valid, causal, r, j)) continue;
      acc += dS[e] * S[e];
      dS[e] /= v0;
    }
  if (dv0) *dv0 -= acc / (v0 * v0);
}

// SSA on dS = dL/dt: dS = dt n b / (1 + b|s|), dn += dt sign(s) log1p(b|s|),
// db += dt n s / (1 + b|s|) (masked keys add nothing).
template <typename T>
void ssa_backward(T* dS, T* dv0, T* dv1, const T* S, const uint8_t* key_valid, bool causal, int R,
                  int L, T v0, T v1) {
  // The SSA terms over the whole block in aligned scratch (see AlignedFlat): a = |s|, sdt =
  // sign(s) dt, dt itself; padding is 0 and adds nothing.
  const int64_t RL = int64_t(R) * L, padded = padded_length(RL);
  T* ap = aligned_scratch<T>(3, padded);
  T *sdtp = ap + padded, *dtp = sdtp + padded;
  for (int64_t e = 0; e < padded; ++e) {
    const bool in = e < RL && live(key_valid, causal, int(e / L), int(e % L));
    ap[e] = in ? std::abs(S[e]) : T(0);
    dtp[e] = in ? dS[e] : T(0);
    sdtp[e] = in && S[e] < 0 ? -dtp[e] : dtp[e];
  }
  const AlignedFlat<T> a(ap, padded), sdt(sdtp, padded);
  AlignedFlat<T> dt(dtp, padded);
  const T b = v0, n = v1;
  const T acc_n = (sdt * (b * a).log1p()).sum();
  const T acc_b = n * (sdt * a / (T(1) + b * a)).sum();
  dt = dt * (n * b) / (T(1) + b * a);
  std::copy(dtp, dtp + RL, dS);
  if (dv0) *dv0 += acc_b;
  if (dv1) *dv1 += acc_n;
}

}  // namespace

template <typename T>
void attention_function_backward(T* dS, T* dv0, T* dv1, const T* dP, const T* P, const T* S,
                                 const uint8_t* key_valid, int R, int L, AttentionFunction kind,
                                 T v0, T v1, bool causal) {
  if (!softmax_family(kind))
    return rows_backward(dS, dP, P, S, key_valid, R, L, kind, causal, kEveryFunction);
  // dL/dt_j = P_j (dP_j - sum_k P_k dP_k), then dt/ds per function (softmax: dS = dt). Masked
  // keys: dS = 0, and they add nothing to the trainable values' gradients.
  for (int r = 0; r < R; ++r) {
    const T* p = P + int64_t(r) * L;
    const T* g = dP + int64_t(r) * L;
    T* d = dS + int64_t(r) * L;
    T dot = 0;
    for (int j = 0; j < L; ++j)
      if (live(key_valid, causal, r, j)) dot += p[j] * g[j];
    for (int j = 0; j < L; ++j) d[j] = live(key_valid, causal, r, j) ? p[j] * (g[j] - dot) : T(0);
  }
  switch (attention_function_spec(kind).transform) {
    case LogitTransform::identity: return;
    case LogitTransform::temperature:
      return softmax_t_backward(dS, dv0, S, key_valid, causal, R, L, v0);
    case LogitTransform::ssa_power:
      return ssa_backward(dS, dv0, dv1, S, key_valid, causal, R, L, v0, v1);
    case LogitTransform::none: return;  // row kernels: rows_backward above
  }
}

template <typename T>
void head_values_effective(T* v0, T* v1, const T* raw0, const T* raw1, int H) {
  for (int h = 0; h < H; ++h) {
    v0[h] = std::exp(raw0[h]);
    if (raw1) v1[h] = T(1) + std::exp(raw1[h]);
  }
}

template <typename T>
void head_values_raw_grads(T* draw0, T* draw1, const T* dv0, const T* dv1, const T* v0, const T* v1,
                           int H, bool freeze0, bool freeze1) {
  for (int h = 0; h < H; ++h) {
    if (draw0 && !freeze0) draw0[h] += dv0[h] * v0[h];
    if (draw1 && !freeze1) draw1[h] += dv1[h] * (v1[h] - T(1));
  }
}

template void attention_function_forward<float>(float*, const float*, const uint8_t*, int, int,
                                                AttentionFunction, float, float, bool);
template void attention_function_forward<double>(double*, const double*, const uint8_t*, int, int,
                                                 AttentionFunction, double, double, bool);
template void attention_function_backward<float>(float*, float*, float*, const float*, const float*,
                                                 const float*, const uint8_t*, int, int,
                                                 AttentionFunction, float, float, bool);
template void attention_function_backward<double>(double*, double*, double*, const double*,
                                                  const double*, const double*, const uint8_t*, int,
                                                  int, AttentionFunction, double, double, bool);
template void head_values_effective<float>(float*, float*, const float*, const float*, int);
template void head_values_effective<double>(double*, double*, const double*, const double*, int);
template void head_values_raw_grads<float>(float*, float*, const float*, const float*, const float*,
                                           const float*, int, bool, bool);
template void head_values_raw_grads<double>(double*, double*, const double*, const double*,
                                            const double*, const double*, int, bool, bool);

}  // namespace bb::cpu
