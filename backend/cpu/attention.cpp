// Multi-head self-attention over packed sequences: one task per (sequence, head), the head's
// products in registers (attention_head.h). Scores S and probabilities P for sequence b, head h
// live at store_at[b] + h*L*L as (L, L) row-major blocks. cosformer scores relu(q) relu(k)^T (no
// 1/sqrt(d)); its backward masks dq, dk where q, k <= 0 (ReLU's gradient, 0 at 0 as in PyTorch).
#include <algorithm>
#include <cmath>

#include "backend/cpu/attention_head.h"
#include "backend/cpu/dropout_mask.h"
#include "backend/cpu/ops.h"
#include "common/buffer.h"

namespace bb::cpu {

using ops::AttentionShape;

namespace {

// Per-thread scratch; grows to the longest sequence once, then never reallocates.
template <typename T>
T* scratch(Buffer<T>& buf, int64_t n) {
  if (int64_t(buf.size()) < n) buf.resize(n);
  return buf.data();
}

// The head's trainable values (0 where the function has fewer).
template <typename T>
void head_values(T& v0, T& v1, AttentionFunction kind, const T* v0_head, const T* v1_head, int h) {
  v0 = head_value_count(kind) > 0 ? v0_head[h] : T(0);
  v1 = head_value_count(kind) > 1 ? v1_head[h] : T(0);
}

// relu(x) of L rows into a dense (L, d) copy (cosformer's features).
template <typename T>
HeadRows<const T> relu_copy(T* dst, HeadRows<const T> x, int L, int d) {
  for (int i = 0; i < L; ++i)
    for (int c = 0; c < d; ++c) dst[int64_t(i) * d + c] = std::max(x[i][c], T(0));
  return {dst, d};
}

// The rows of one (sequence, head) task.
struct Task {
  int b, h, off, L;
  int64_t at;  // its (L, L) blocks in S, P, mask
};

Task task_of(const AttentionShape& sh, int task) {
  const int b = task / sh.H, h = task % sh.H;
  const int off = sh.offsets[b], L = sh.offsets[b + 1] - off;
  return {b, h, off, L, sh.store_at[b] + int64_t(h) * L * L};
}

template <typename T, int D>
void head_forward(const Task& t, T* ctx, T* S, T* P, T* mask, const T* qkv,
                  const AttentionShape& sh, AttentionFunction kind, const T* v0_head,
                  const T* v1_head, float dropout_p, const uint64_t* key) {
  const int H = sh.H, C = sh.C, d = C / H, L = t.L, ld = 3 * C;
  const HeadProducts<T, D> hp{d};
  HeadRows<const T> q{qkv + int64_t(t.off) * ld + t.h * d, ld}, k{q.base + C, ld};
  const HeadRows<const T> v{q.base + 2 * C, ld};
  T scale = T(1) / std::sqrt(T(d));
  if (scores_relu_features(kind)) {
    thread_local Buffer<T> buf;
    T* work = scratch(buf, 2 * int64_t(L) * d);
    q = relu_copy(work, q, L, d), k = relu_copy(work + int64_t(L) * d, k, L, d);
    scale = T(1);
  }
  hp.scores(S + t.at, q, k, L, scale);
  T v0, v1;
  head_values(v0, v1, kind, v0_head, v1_head, t.h);
  attention_function_forward<T>(P + t.at, S + t.at, nullptr, L, L, kind, v0, v1, sh.causal);
  T* m = mask + t.at;
  if (dropout_p > 0) {
    for (int i = 0; i < L; ++i)
      dropout_mask_row(m + int64_t(i) * L, *key, attention_dropout_row(sh.first_seq + t.b, H, t.h, i),
                       L, dropout_p);
  } else {
    std::fill(m, m + int64_t(L) * L, T(1));
  }
  // ctx_i = sum_j (P * mask)_ij v_j
  const T* p = P + t.at;
  hp.mix({ctx + int64_t(t.off) * C + t.h * d, C},
         [&](int i, int j) { return p[int64_t(i) * L + j] * m[int64_t(i) * L + j]; }, v, L);
}

template <typename T, int D>
void head_backward(const Task& t, T* dqkv, T* dv0, T* dv1, const T* dctx, const T* qkv, const T* S,
                   const T* P, const T* mask, const AttentionShape& sh, AttentionFunction kind,
                   const T* v0_head, const T* v1_head) {
  const int H = sh.H, C = sh.C, d = C / H, L = t.L, ld = 3 * C;
  const HeadProducts<T, D> hp{d};
  HeadRows<const T> q{qkv + int64_t(t.off) * ld + t.h * d, ld}, k{q.base + C, ld};
  const HeadRows<const T> q_in = q, k_in = k, v{q.base + 2 * C, ld};
  const HeadRows<T> dq{dqkv + int64_t(t.off) * ld + t.h * d, ld}, dk{dq.base + C, ld},
      dv{dq.base + 2 * C, ld};
  const HeadRows<const T> dout{dctx + int64_t(t.off) * C + t.h * d, C};
  const T* p = P + t.at;
  const T* m = mask + t.at;
  const bool relu = scores_relu_features(kind);
  thread_local Buffer<T> buf;
  T* work = scratch(buf, 2 * int64_t(L) * L + 2 * int64_t(L) * d);
  T* dp = work;                   // (L, L)
  T* ds = work + int64_t(L) * L;  // (L, L)
  // ctx = (P*mask) v  =>  dv_j = sum_i (P*mask)_ij dctx_i, dP = (dctx v^T) * mask
  hp.mix(dv, [&](int j, int i) { return p[int64_t(i) * L + j] * m[int64_t(i) * L + j]; }, dout,
         L);
  hp.scores(dp, dout, v, L, T(1));
  for (int64_t e = 0; e < int64_t(L) * L; ++e) dp[e] *= m[e];
  T v0, v1;
  head_values(v0, v1, kind, v0_head, v1_head, t.h);
  attention_function_backward<T>(ds, dv0, dv1, dp, p, S + t.at, nullptr, L, L, kind, v0, v1,
                                sh.causal);
  // S = a b^T scale, (a, b) = (q, k) or, for cosformer, (relu(q), relu(k)) with scale 1:
  // da_i = scale sum_j dS_ij b_j, db_j = scale sum_i dS_ij a_i
  T scale = T(1) / std::sqrt(T(d));
  if (relu) {
    T* feats = work + 2 * int64_t(L) * L;
    q = relu_copy(feats, q, L, d), k = relu_copy(feats + int64_t(L) * d, k, L, d);
    scale = T(1);
  }
  hp.mix(dq, [&](int i, int j) { return ds[int64_t(i) * L + j] * scale; }, k, L);
  hp.mix(dk, [&](int j, int i) { return ds[int64_t(i) * L + j] * scale; }, q, L);
  if (relu)  // ReLU's gradient: 0 where the input was <= 0
    for (int i = 0; i < L; ++i)
      for (int c = 0; c < d; ++c) {
        if (q_in[i][c] <= T(0)) dq[i][c] = T(0);
        if (k_in[i][c] <= T(0)) dk[i][c] = T(0);
      }
}

}  // namespace

template <typename T>
void attention_forward(T* ctx, T* S, T* P, T* mask, const T* qkv, const AttentionShape& sh,
                       AttentionFunction kind, const T* v0_head, const T* v1_head, float dropout_p,
                       const uint64_t* key) {
  const int d = sh.C / sh.H;
#pragma omp parallel for schedule(dynamic, 1)
  for (int task = 0; task < sh.B * sh.H; ++task) {
    const Task t = task_of(sh, task);
    if (t.L == 0) continue;
    if (d == 32)
      head_forward<T, 32>(t, ctx, S, P, mask, qkv, sh, kind, v0_head, v1_head, dropout_p, key);
    else
      head_forward<T, 0>(t, ctx, S, P, mask, qkv, sh, kind, v0_head, v1_head, dropout_p, key);
  }
}

template <typename T>
void attention_backward(T* dqkv, T* dv0_head, T* dv1_head, T* scr, const T* dctx, const T* qkv,
                        const T* S, const T* P, const T* mask, const AttentionShape& sh,
                        AttentionFunction kind, const T* v0_head, const T* v1_head) {
  const int H = sh.H, B = sh.B, d = sh.C / H;
#pragma omp parallel for schedule(dynamic, 1)
  for (int task = 0; task < B * H; ++task) {
    scr[2 * task] = scr[2 * task + 1] = T(0);
    const Task t = task_of(sh, task);
    if (t.L == 0) continue;
    T* dv0 = &scr[2 * task];
    T* dv1 = &scr[2 * task + 1];
    if (d == 32)
      head_backward<T, 32>(t, dqkv, dv0, dv1, dctx, qkv, S, P, mask, sh, kind, v0_head, v1_head);
    else
      head_backward<T, 0>(t, dqkv, dv0, dv1, dctx, qkv, S, P, mask, sh, kind, v0_head, v1_head);
  }
  if (head_value_count(kind) == 0) return;
  for (int h = 0; h < H; ++h) {  // fixed order over sequences: deterministic
    for (int b = 0; b < B; ++b) {
      if (dv0_head) dv0_head[h] += scr[2 * (b * H + h)];
      if (dv1_head) dv1_head[h] += scr[2 * (b * H + h) + 1];
    }
  }
}

template void attention_forward<float>(float*, float*, float*, float*, const float*,
                                       const AttentionShape&, AttentionFunction, const float*,
                                       const float*, float, const uint64_t*);
template void attention_forward<double>(double*, double*, double*, double*, const double*,
                                        const AttentionShape&, AttentionFunction, const double*,
                                        const double*, float, const uint64_t*);
template void attention_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                        const float*, const float*, const float*,
                                        const AttentionShape&, AttentionFunction, const float*,
                                        const float*);
template void attention_backward<double>(double*, double*, double*, double*, const double*,
                                         const double*, const double*, const double*, const double*,
                                         const AttentionShape&, AttentionFunction, const double*,
                                         const double*);

}  // namespace bb::cpu
