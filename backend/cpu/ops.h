// The CPU implementations of backend/ops.h: the same ops, in float and double, on host memory,
// computed on the calling thread (OpenMP inside). Semantics, shapes and the gradient convention
// are exactly those documented in backend/ops.h, which routes to these (backend/ops.cpp); the CPU
// is the reference that tests/cuda checks every CUDA op against. Nothing here knows of CUDA.
#pragma once
#include <cstdint>
#include <memory>

#include "backend/ops.h"
#include "backend/precision.h"

namespace bb::cpu {

// Work (elements) above which an op's loop runs on the OpenMP threads: a parallel region costs a
// few microseconds, an element a nanosecond or less. The training step's (tokens, hidden) tensors
// are ~150 x 256, so they clear it.
constexpr int64_t kParallelMin = 8192;

// Parameter-gradient sums over rows (LayerNorm weights, biases, embeddings) run in parallel over
// column blocks of this width: each column keeps its serial row order, so the result is the same
// for any thread count.
constexpr int kColumnBlock = 32;

// linear.cpp (float: oneDNN's sgemm where built with it, else cblas; double: cblas)
template <typename T> void gemm(bool trans_a, bool trans_b, int M, int N, int K, T alpha,
    const T* A, int lda, const T* B, int ldb, T beta, T* C, int ldc);
template <typename T> void linear_forward(T* y, const T* x, const T* W, const T* bias, int N,
    int in, int out);
template <typename T> void linear_backward(T* dx, T* dW, T* dbias, const T* dy, const T* x,
    const T* W, int N, int in, int out);
const char* sgemm_backend();  // "oneDNN 2.6.3" when float GEMMs run on oneDNN, else nullptr

// frozen_linear.cpp (oneDNN, or cblas without it; float, CPU only: backend/frozen_linear.h)
class FrozenLinear;
std::shared_ptr<FrozenLinear> freeze_linear(const float* W, int in, int out,
                                           Precision p = Precision::fp32);
void linear_frozen_forward(float* y, const float* x, FrozenLinear& W, const float* bias, int N);
const char* frozen_linear_backend();

// embedding.cpp, layernorm.cpp
template <typename T> void embedding_forward(T* out, const int32_t* ids, const int32_t* pos,
    const T* wte, const T* wpe, int N, int C);
template <typename T> void embedding_backward(T* dwte, T* dwpe, const T* dout,
    const int32_t* ids, const int32_t* pos, int N, int C);
template <typename T> void add_row_forward(T* x, const T* row, int N, int C);
template <typename T> void add_row_backward(T* drow, const T* dx, int N, int C);
template <typename T> void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w,
    const T* b, int N, int C, T eps);
template <typename T> void layernorm_backward(T* dx, T* dw, T* db, const T* dout, const T* x,
    const T* mean, const T* rstd, const T* w, int N, int C);

// activation.cpp, dropout.cpp
template <typename T> void gelu_forward(T* out, const T* x, int64_t n);
template <typename T> void gelu_backward(T* dx, const T* dout, const T* x, int64_t n);
template <typename T> void gelu_tanh_forward(T* out, const T* x, int64_t n);
template <typename T> void gelu_tanh_backward(T* dx, const T* dout, const T* x, int64_t n);
template <typename T> void add_inplace(T* y, const T* x, int64_t n);
template <typename T> void dropout_forward(T* out, T* mask, const T* x, const int64_t* row_ids,
    int N, int C, float p, const uint64_t* key);
template <typename T> void dropout_backward(T* dx, const T* dout, const T* mask, int64_t n);

// rows.cpp
template <typename T> void gather_rows(T* out, const T* x, const int32_t* rows, int M, int C);
template <typename T> void scatter_rows(T* dx, const T* d, const int32_t* rows, int M, int N,
    int C);
template <typename T> void fill_zero(T* p, int64_t n);

// attention_function*.cpp (the attention functions, their trainable values), attention.cpp
template <typename T>
void attention_function_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, T v0, T v1, bool causal);
template <typename T>
void attention_function_backward(T* dS, T* dv0, T* dv1, const T* dP, const T* P, const T* S,
                                 const uint8_t* key_valid, int R, int L, AttentionFunction kind,
                                 T v0, T v1, bool causal);
template <typename T> void head_values_effective(T* v0, T* v1, const T* raw0, const T* raw1, int H);
template <typename T> void head_values_raw_grads(T* draw0, T* draw1, const T* dv0, const T* dv1,
    const T* v0, const T* v1, int H, bool freeze0, bool freeze1);
template <typename T>
void attention_forward(T* ctx, T* S, T* P, T* mask, const T* qkv, const ops::AttentionShape& shape,
                       AttentionFunction kind, const T* v0_head, const T* v1_head, float dropout_p,
                       const uint64_t* key);
template <typename T>
void attention_backward(T* dqkv, T* dv0_head, T* dv1_head, T* scratch, const T* dctx, const T* qkv,
                        const T* S, const T* P, const T* mask, const ops::AttentionShape& shape,
                        AttentionFunction kind, const T* v0_head, const T* v1_head);

// loss.cpp, adamw.cpp
template <typename T> void cross_entropy_forward(T* loss, T* lse, const T* logits,
    const int32_t* targets, int M, int V);
template <typename T> void cross_entropy_backward(T* dlogits, const T* logits, const T* lse,
    const int32_t* targets, int M, int V, T dloss);
template <typename T> void target_log_probs(T* logp, const T* logits, const int32_t* targets, int M,
    int V);
template <typename T> void point_loss_forward(T* loss, const T* pred, const T* target, int M,
    ops::PointLoss kind);
template <typename T> void point_loss_backward(T* dpred, const T* pred, const T* target, int M,
    ops::PointLoss kind, T dloss);
void sum_squares(double* out, const float* g, int64_t n);
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const ops::AdamWStep& s,
    const ops::AdamWSchedule* schedule);
void adamw_update_with_bf16_copy(float* p, const float* g, float* m, float* v, int64_t n,
    const ops::AdamWStep& s, const ops::AdamWSchedule* schedule, uint16_t* low);

}  // namespace bb::cpu
