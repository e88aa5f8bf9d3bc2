// THE list of device ops. The encoder calls only these. Each op is a *_forward / *_backward pair
// over row-major buffers; T is float (training, scoring) or double (finite-difference tests, CPU
// only). backend/ops.cpp routes each call to backend/cpu or backend/cuda by the calling thread's
// current device (backend/device.h, DeviceScope); every pointer argument, AttentionShape's and
// AdamWSchedule's included, points to that device's memory. What a CUDA step captured in a graph
// needs of the ops: backend/step_graphs.h. CPU-only ops: backend/frozen_linear.h.
//
// Layout: a batch is packed, sequences back to back with no padding: N rows in all, sequence b
// owns rows [seq_offsets[b], seq_offsets[b+1]). Padding therefore never enters a GEMM, and
// attention only ever sees a sequence's own keys; ops that take an explicit key mask
// (scoring_*) give masked keys weight exactly 0.
//
// Gradient convention (llm.c): parameter gradients accumulate (+=), activation gradients
// overwrite (=).
#pragma once
#include <cstdint>

#include "backend/attention_function.h"

namespace bb::ops {

// Debug: from now on every op checks that its pointer arguments point to memory of its device
// (host memory under a CUDA scope, or the reverse, fails at the op with its name). CUDA builds
// only (a CPU-only build has no other memory); the tests turn it on.
void check_pointers(bool on);

// ---- GEMM (cblas on the CPU, cuBLAS on CUDA) ---------------------------------------------------
// C(M,N) = alpha * op(A) op(B) + beta * C, row-major; op(X) = X or X^T.
template <typename T>
void gemm(bool trans_a, bool trans_b, int M, int N, int K, T alpha, const T* A, int lda,
          const T* B, int ldb, T beta, T* C, int ldc);

// ---- Linear (HF nn.Linear) ---------------------------------------------------------------------
// y(N,out) = x(N,in) W(out,in)^T + bias(out)
template <typename T>
void linear_forward(T* y, const T* x, const T* W, const T* bias, int N, int in, int out);
// dx(N,in) = dy W (skipped when dx is null); dW(out,in) += dy^T x; dbias(out) += sum_n dy
// (skipped when dbias is null: a layer without bias)
template <typename T>
void linear_backward(T* dx, T* dW, T* dbias, const T* dy, const T* x, const T* W, int N, int in,
                     int out);

// ---- Embedding ---------------------------------------------------------------------------------
// out(N,C) = wte[ids[n]] + wpe[pos[n]]
template <typename T>
void embedding_forward(T* out, const int32_t* ids, const int32_t* pos, const T* wte, const T* wpe,
                       int N, int C);
// dwte[ids[n]] += dout[n]; dwpe[pos[n]] += dout[n] (each table row summed in row order)
template <typename T>
void embedding_backward(T* dwte, T* dwpe, const T* dout, const int32_t* ids, const int32_t* pos,
                        int N, int C);
// x(N,C)[n] += row(C) for every n (RoBERTa's token-type row 0 onto its embeddings)
template <typename T>
void add_row_forward(T* x, const T* row, int N, int C);
// drow(C) += sum over n of dx[n], in row order
template <typename T>
void add_row_backward(T* drow, const T* dx, int N, int C);

// ---- LayerNorm ---------------------------------------------------------------------------------
// out(N,C) = (x - mean) * rstd * w + b; saves mean(N), rstd(N)
template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, int N, int C,
                       T eps);
// dx(N,C) =; dw(C) +=; db(C) +=
template <typename T>
void layernorm_backward(T* dx, T* dw, T* db, const T* dout, const T* x, const T* mean,
                        const T* rstd, const T* w, int N, int C);

// ---- GELU, exact erf form: gelu(x) = x/2 (1 + erf(x/sqrt 2)) -----------------------------------
template <typename T>
void gelu_forward(T* out, const T* x, int64_t n);
template <typename T>
void gelu_backward(T* dx, const T* dout, const T* x, int64_t n);
// ---- GELU, tanh form (GPT-2's gelu_new): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) -------
template <typename T>
void gelu_tanh_forward(T* out, const T* x, int64_t n);
template <typename T>
void gelu_tanh_backward(T* dx, const T* dout, const T* x, int64_t n);

// ---- Residual add ------------------------------------------------------------------------------
// y(n) += x(n)   (forward of a residual; backward of a fan-out)
template <typename T>
void add_inplace(T* y, const T* x, int64_t n);

// ---- Dropout -----------------------------------------------------------------------------------
// Element (r, c) is kept with probability 1-p, decided by Philox(*key) at counter
// (row_ids[r], c): row_ids are layout-independent ids, so any backend draws the same mask.
// mask(N,C) = kept ? 1/(1-p) : 0; out = x * mask. p = 0 makes mask all ones.
// `key` (device memory, read when the op runs) may be null when p = 0.
template <typename T>
void dropout_forward(T* out, T* mask, const T* x, const int64_t* row_ids, int N, int C, float p,
                     const uint64_t* key);
template <typename T>
void dropout_backward(T* dx, const T* dout, const T* mask, int64_t n);

// ---- Rows and fills ----------------------------------------------------------------------------
// out(M,C) = x[rows[m]]  (the LM head's rows of the last layer)
template <typename T>
void gather_rows(T* out, const T* x, const int32_t* rows, int M, int C);
// dx(N,C) = 0, then dx[rows[m]] += d(m)  (its backward; rows in order)
template <typename T>
void scatter_rows(T* dx, const T* d, const int32_t* rows, int M, int N, int C);
// p(n) = 0
template <typename T>
void fill_zero(T* p, int64_t n);

// ---- Attention functions over rows of scores --------------------------------------------------
// P(R,L) = scoring(S(R,L)) row-wise over keys with key_valid[j] != 0 (null: all valid); masked
// keys get P = 0 exactly and never pass through the function. causal: row r (the query at
// position r) also sees only keys j <= r, exactly as if its row were r + 1 keys long (cosformer's
// M is then the number of keys the row sees). v0, v1: the head's effective
// trainable values (backend/attention_function.h, head_value_count; ignored by functions without
// them).
//   softmax:    P_j = exp(s_j) / sum_k exp(s_k)
//   ssa:        t_j = sign(s_j) n log1p(b |s_j|); P = softmax(t), max of t subtracted  (v0 b, v1 n)
//   softmax_t:  P = softmax(s / tau)                                                  (v0 tau)
//   sparsemax:  P = [s - tau]_+, tau from the sorted row so that sum P = 1
//   entmax15:   P = [z - tau]_+^2, z = (s - max s)/2, tau from the sorted row so that sum P = 1
//   sa_softmax: P_j = softmax(s)_j (s_j - lo) / (hi - lo + 1e-6), lo = min(0, min s),
//               hi = max(0, max s); rows do not sum to 1
//   cosformer:  P_rj = s_rj c_rj / max(sum_j s_rj c_rj, 1e-6), c_rj = cos(pi (r - j) / (2M)) with
//               row r the query at position r and M the number of valid keys (s >= 0 expected)
template <typename T>
void attention_function_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, T v0, T v1, bool causal = false);
// dS(R,L) =; dv0 += dL/dv0, dv1 += dL/dv1 (functions with trainable values; both may be null).
// Masked keys: dS = 0 and no contribution to dv0, dv1. Non-differentiable points take
// PyTorch's choice: sa_softmax splits lo's and hi's gradient evenly among tied extremes and
// passes none when the extreme is 0.
template <typename T>
void attention_function_backward(T* dS, T* dv0, T* dv1, const T* dP, const T* P, const T* S,
                                 const uint8_t* key_valid, int R, int L, AttentionFunction kind,
                                 T v0, T v1, bool causal = false);

// Trainable values are stored raw and made effective here: v0(H) = exp(raw0) (ssa b, softmax_t
// tau), v1(H) = 1 + exp(raw1) (ssa n; skipped when raw1 is null).
template <typename T>
void head_values_effective(T* v0, T* v1, const T* raw0, const T* raw1, int H);
// Chain rule to the raw values: draw0 += dv0 * v0, draw1 += dv1 * (v1 - 1); skipped when frozen
// or null.
template <typename T>
void head_values_raw_grads(T* draw0, T* draw1, const T* dv0, const T* dv1, const T* v0,
                           const T* v1, int H, bool freeze0, bool freeze1);

// ---- Multi-head self-attention over packed sequences -------------------------------------------
struct AttentionShape {
  int B, H, C;              // sequences, heads, hidden (head size d = C/H)
  const int32_t* offsets;   // (B+1) row offsets of the sequences
  const int64_t* store_at;  // (B+1) offsets of each sequence's (H, L, L) block in att stores
  int first_seq = 0;        // global index of sequence 0 in dropout row ids (data parallelism)
  bool causal = false;      // query i sees keys j <= i only (attention_function_forward)
  int max_len = 128;        // no sequence is longer (CUDA sizes shared memory by it)
};
// qkv(N,3C) holds [q | k | v] per row. Per (b, h): S = q k^T / sqrt(d) (L,L) (cosformer:
// relu(q) relu(k)^T), P = scoring(S), Pd = P * dropout mask, ctx = Pd v. Saves S, P and the mask
// in stores of store_at[B] elements. Dropout counter: ((b*H + h)*L + i, j) under *key (as for
// dropout_forward). v0_head, v1_head: (H) effective trainable values (null when the function has
// none).
template <typename T>
void attention_forward(T* ctx, T* S, T* P, T* mask, const T* qkv, const AttentionShape& shape,
                       AttentionFunction kind, const T* v0_head, const T* v1_head, float dropout_p,
                       const uint64_t* key);
// dqkv(N,3C) =; dv0_head, dv1_head (H) += (functions with trainable values; may be null).
// scratch: 2*H*B elements.
template <typename T>
void attention_backward(T* dqkv, T* dv0_head, T* dv1_head, T* scratch, const T* dctx, const T* qkv,
                        const T* S, const T* P, const T* mask, const AttentionShape& shape,
                        AttentionFunction kind, const T* v0_head, const T* v1_head);

// ---- MLM cross-entropy over M scored rows ------------------------------------------------------
// Rows with target < 0 are ignored (the padding rows of a fixed-shape CUDA step): K = the other
// rows. loss(1) = sum over them of (lse(logits_m) - logits_m[target_m]) / K, summed in row order
// (0 when K = 0); saves lse(M).
template <typename T>
void cross_entropy_forward(T* loss, T* lse, const T* logits, const int32_t* targets, int M, int V);
// dlogits(M,V) = dloss * (softmax(logits_m) - onehot(target_m)) / K; 0 on ignored rows.
template <typename T>
void cross_entropy_backward(T* dlogits, const T* logits, const T* lse, const int32_t* targets,
                            int M, int V, T dloss);
// logp(M) = log softmax(logits_m)[target_m]: the log-probability of each scored row's target.
template <typename T>
void target_log_probs(T* logp, const T* logits, const int32_t* targets, int M, int V);

// ---- Losses on one number per scored row (the in-context-learning tasks, icl/) ----------------
enum class PointLoss {
  bce_logits,     // l = max(x, 0) - x t + log1p(exp(-|x|)) = BCE(sigmoid(x), t), t in [0, 1]
  squared_error,  // l = (x - t)^2
};
// loss(1) = sum_m l(pred_m, target_m) / M, summed in row order.
template <typename T>
void point_loss_forward(T* loss, const T* pred, const T* target, int M, PointLoss kind);
// dpred(M) = dloss * dl/dpred / M: bce (sigmoid(x) - t), squared error 2 (x - t).
template <typename T>
void point_loss_backward(T* dpred, const T* pred, const T* target, int M, PointLoss kind, T dloss);

// ---- Optimiser ---------------------------------------------------------------------------------
// *out = sum of squares of g(n) in double, with a fixed partition (deterministic).
void sum_squares(double* out, const float* g, int64_t n);
// The values of one update that change every step, in device memory (written by the host before
// the step, sumsq by sum_squares).
struct AdamWSchedule {
  double lr;     // learning rate of this update (before a group's multiplier)
  double step;   // 1-based update number, for bias correction
  double sumsq;  // squared global gradient norm
};
// The settings of one parameter group.
struct AdamWStep {
  float beta1, beta2, eps, weight_decay;
  double lr_mult, clip_norm;  // clip_norm <= 0: no clipping
  bool bias_correction;
};
// PyTorch AdamW with global-norm clipping: g' = scale g, scale = clip / (norm + 1e-6) when
// norm = sqrt(sumsq) > clip, else 1; lr = schedule.lr * lr_mult; p -= lr*wd*p;
// m = b1 m + (1-b1) g'; v = b2 v + (1-b2) g'^2; p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps),
// bc = 1 - beta^step (1 without bias correction). Coefficients: backend/adamw_coefficients.h.
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamWStep& s,
                  const AdamWSchedule* schedule);
// The same update (bit for bit in p, m, v) that also rounds each updated weight into `low`, its
// bf16 copy (backend/precision.h), in the same pass. CPU only (bf16 is).
void adamw_update_with_bf16_copy(float* p, const float* g, float* m, float* v, int64_t n,
                                 const AdamWStep& s, const AdamWSchedule* schedule, uint16_t* low);

}  // namespace bb::ops
