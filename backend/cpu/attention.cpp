// Multi-head self-attention over packed sequences: one task per (sequence, head), small dense
// products through Eigen. Scores S and probabilities P for sequence b, head h live at
// store_at[b] + h*L*L as (L, L) row-major blocks. cosformer scores relu(q) relu(k)^T (no
// 1/sqrt(d)); its backward masks dq, dk where q, k <= 0 (ReLU's gradient, 0 at 0 as in PyTorch).
#include <Eigen/Core>
#include <cmath>

#include "backend/cpu/dropout_mask.h"
#include "common/buffer.h"
#include "backend/cpu/ops.h"

namespace bb::cpu {

using ops::AttentionShape;

namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using CStrided = Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using Strided = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using Block = Eigen::Map<RowMat<T>>;
template <typename T>
using CBlock = Eigen::Map<const RowMat<T>>;

// Per-thread (L, L) scratch; grows to the longest sequence once, then never reallocates.
template <typename T>
T* scratch(Buffer<T>& buf, int64_t n) {
  if (int64_t(buf.size()) < n) buf.resize(n);
  return buf.data();
}

// The head's trainable values (0 where the function has fewer).
template <typename T>
void head_values(T& v0, T& v1, Scoring kind, const T* v0_head, const T* v1_head, int h) {
  v0 = head_value_count(kind) > 0 ? v0_head[h] : T(0);
  v1 = head_value_count(kind) > 1 ? v1_head[h] : T(0);
}

}  // namespace

template <typename T>
void attention_forward(T* ctx, T* S, T* P, T* mask, const T* qkv, const AttentionShape& sh,
                       Scoring kind, const T* v0_head, const T* v1_head, float dropout_p,
                       const uint64_t* key) {
  const int H = sh.H, C = sh.C, d = C / H;
  const T scale = T(1) / std::sqrt(T(d));
#pragma omp parallel for schedule(dynamic, 1)
  for (int task = 0; task < sh.B * H; ++task) {
    const int b = task / H, h = task % H;
    const int off = sh.offsets[b], L = sh.offsets[b + 1] - off;
    if (L == 0) continue;
    const int64_t at = sh.store_at[b] + int64_t(h) * L * L;
    CStrided<T> q(qkv + int64_t(off) * 3 * C + h * d, L, d, Eigen::OuterStride<>(3 * C));
    CStrided<T> k(q.data() + C, L, d, Eigen::OuterStride<>(3 * C));
    CStrided<T> v(q.data() + 2 * C, L, d, Eigen::OuterStride<>(3 * C));
    Block<T> s(S + at, L, L);
    if (scores_relu_features(kind))
      s.noalias() = q.cwiseMax(T(0)) * k.cwiseMax(T(0)).transpose();
    else
      s.noalias() = (q * k.transpose()) * scale;
    T v0, v1;
    head_values(v0, v1, kind, v0_head, v1_head, h);
    scoring_forward<T>(P + at, S + at, nullptr, L, L, kind, v0, v1);
    Strided<T> out(ctx + int64_t(off) * C + h * d, L, d, Eigen::OuterStride<>(C));
    if (dropout_p > 0) {
      thread_local Buffer<T> buf;
      Block<T> pd(scratch(buf, int64_t(L) * L), L, L);
      for (int i = 0; i < L; ++i)
        dropout_mask_row(mask + at + int64_t(i) * L, *key, attention_dropout_row(sh.first_seq + b, H, h, i), L,
                         dropout_p);
      pd = CBlock<T>(P + at, L, L).cwiseProduct(CBlock<T>(mask + at, L, L));
      out.noalias() = pd * v;
    } else {
      for (int64_t e = 0; e < int64_t(L) * L; ++e) mask[at + e] = T(1);
      out.noalias() = CBlock<T>(P + at, L, L) * v;
    }
  }
}

template <typename T>
void attention_backward(T* dqkv, T* dv0_head, T* dv1_head, T* scr, const T* dctx, const T* qkv,
                        const T* S, const T* P, const T* mask, const AttentionShape& sh,
                        Scoring kind, const T* v0_head, const T* v1_head) {
  const int H = sh.H, C = sh.C, d = C / H, B = sh.B;
  const T scale = T(1) / std::sqrt(T(d));
#pragma omp parallel for schedule(dynamic, 1)
  for (int task = 0; task < B * H; ++task) {
    const int b = task / H, h = task % H;
    const int off = sh.offsets[b], L = sh.offsets[b + 1] - off;
    scr[2 * task] = scr[2 * task + 1] = T(0);
    if (L == 0) continue;
    const int64_t at = sh.store_at[b] + int64_t(h) * L * L;
    const int ld = 3 * C;
    CStrided<T> q(qkv + int64_t(off) * ld + h * d, L, d, Eigen::OuterStride<>(ld));
    CStrided<T> k(q.data() + C, L, d, Eigen::OuterStride<>(ld));
    CStrided<T> v(q.data() + 2 * C, L, d, Eigen::OuterStride<>(ld));
    Strided<T> dq(dqkv + int64_t(off) * ld + h * d, L, d, Eigen::OuterStride<>(ld));
    Strided<T> dk(dq.data() + C, L, d, Eigen::OuterStride<>(ld));
    Strided<T> dv(dq.data() + 2 * C, L, d, Eigen::OuterStride<>(ld));
    CStrided<T> dout(dctx + int64_t(off) * C + h * d, L, d, Eigen::OuterStride<>(C));
    CBlock<T> p(P + at, L, L), m(mask + at, L, L);
    thread_local Buffer<T> buf;
    T* work = scratch(buf, 2 * int64_t(L) * L);
    Block<T> dp(work, L, L), ds(work + int64_t(L) * L, L, L);
    // ctx = (P*mask) v  =>  dv = (P*mask)^T dctx, dP = (dctx v^T) * mask
    dv.noalias() = p.cwiseProduct(m).transpose() * dout;
    dp.noalias() = dout * v.transpose();
    dp.array() *= m.array();
    T v0, v1;
    head_values(v0, v1, kind, v0_head, v1_head, h);
    scoring_backward<T>(ds.data(), &scr[2 * task], &scr[2 * task + 1], dp.data(), P + at, S + at,
                        nullptr, L, L, kind, v0, v1);
    if (scores_relu_features(kind)) {
      // S = relu(q) relu(k)^T  =>  dq = (dS relu(k)) * [q > 0], dk = (dS^T relu(q)) * [k > 0]
      dq.noalias() = ds * k.cwiseMax(T(0));
      dk.noalias() = ds.transpose() * q.cwiseMax(T(0));
      dq.array() = (q.array() > T(0)).select(dq.array(), T(0));
      dk.array() = (k.array() > T(0)).select(dk.array(), T(0));
    } else {
      // S = q k^T scale  =>  dq = dS k scale, dk = dS^T q scale
      dq.noalias() = (ds * k) * scale;
      dk.noalias() = (ds.transpose() * q) * scale;
    }
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
                                       const AttentionShape&, Scoring, const float*, const float*,
                                       float, const uint64_t*);
template void attention_forward<double>(double*, double*, double*, double*, const double*,
                                        const AttentionShape&, Scoring, const double*,
                                        const double*, float, const uint64_t*);
template void attention_backward<float>(float*, float*, float*, float*, const float*, const float*,
                                        const float*, const float*, const float*,
                                        const AttentionShape&, Scoring, const float*,
                                        const float*);
template void attention_backward<double>(double*, double*, double*, double*, const double*,
                                         const double*, const double*, const double*,
                                         const double*, const AttentionShape&, Scoring,
                                         const double*, const double*);

}  // namespace bb::cpu
