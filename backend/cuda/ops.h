// The CUDA implementations of backend/ops.h: the same ops, float only, on device pointers (every
// pointer argument, including AttentionShape's offsets and store_at, points to device memory),
// queued on the context's stream (device.h). Semantics, shapes and the gradient convention
// (parameters +=, activations =) are exactly those documented in backend/ops.h; tests/cuda checks
// each op against its CPU twin. Every op is asynchronous and free of host values that change
// from step to step (dropout keys, losses, norms and the AdamW schedule are in device memory),
// so a training step can be captured in a CUDA graph (backend/step_graphs.h).
#pragma once
#include <cstdint>

#include "backend/ops.h"

namespace bb::cuda {

void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
          const float* B, int ldb, float beta, float* C, int ldc);
void linear_forward(float* y, const float* x, const float* W, const float* bias, int N, int in,
                    int out);
void linear_backward(float* dx, float* dW, float* dbias, const float* dy, const float* x,
                     const float* W, int N, int in, int out);

void embedding_forward(float* out, const int32_t* ids, const int32_t* pos, const float* wte,
                       const float* wpe, int N, int C);
// Deterministic: each embedding row's gradient is summed by one thread in row order.
void embedding_backward(float* dwte, float* dwpe, const float* dout, const int32_t* ids,
                        const int32_t* pos, int N, int C);
void add_row_forward(float* x, const float* row, int N, int C);
void add_row_backward(float* drow, const float* dx, int N, int C);

void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* w,
                       const float* b, int N, int C, float eps);
void layernorm_backward(float* dx, float* dw, float* db, const float* dout, const float* x,
                        const float* mean, const float* rstd, const float* w, int N, int C);

void gelu_forward(float* out, const float* x, int64_t n);
void gelu_backward(float* dx, const float* dout, const float* x, int64_t n);
void gelu_tanh_forward(float* out, const float* x, int64_t n);
void gelu_tanh_backward(float* dx, const float* dout, const float* x, int64_t n);
void add_inplace(float* y, const float* x, int64_t n);

void dropout_forward(float* out, float* mask, const float* x, const int64_t* row_ids, int N,
                     int C, float p, const uint64_t* key);
void dropout_backward(float* dx, const float* dout, const float* mask, int64_t n);

void gather_rows(float* out, const float* x, const int32_t* rows, int M, int C);
void scatter_rows(float* dx, const float* d, const int32_t* rows, int M, int N, int C);
void fill_zero(float* p, int64_t n);
void head_values_effective(float* v0, float* v1, const float* raw0, const float* raw1, int H);
void head_values_raw_grads(float* draw0, float* draw1, const float* dv0, const float* dv1,
                           const float* v0, const float* v1, int H, bool freeze0, bool freeze1);

// v0, v1: host scalars; dv0, dv1: device pointers (+=), may be null.
void attention_function_forward(float* P, const float* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, float v0, float v1, bool causal = false);
void attention_function_backward(float* dS, float* dv0, float* dv1, const float* dP, const float* P,
                                 const float* S, const uint8_t* key_valid, int R, int L,
                                 AttentionFunction kind, float v0, float v1,
                                 bool causal = false);

// One block per (sequence, head); sequences of at most shape.max_len tokens (their keys and values
// in shared memory where they fit, else read from global memory: the same bits), head size at
// most 128.
// shape.B and shape.H are host values; v0_head, v1_head, dv0_head, dv1_head are device (H) arrays.
void attention_forward(float* ctx, float* S, float* P, float* mask, const float* qkv,
                       const ops::AttentionShape& shape, AttentionFunction kind,
                       const float* v0_head, const float* v1_head, float dropout_p,
                       const uint64_t* key);
void attention_backward(float* dqkv, float* dv0_head, float* dv1_head, float* scratch,
                        const float* dctx, const float* qkv, const float* S, const float* P,
                        const float* mask, const ops::AttentionShape& shape, AttentionFunction kind,
                        const float* v0_head, const float* v1_head);

void cross_entropy_forward(float* loss, float* lse, const float* logits, const int32_t* targets,
                           int M, int V);
void cross_entropy_backward(float* dlogits, const float* logits, const float* lse,
                            const int32_t* targets, int M, int V, float dloss);
void target_log_probs(float* logp, const float* logits, const int32_t* targets, int M, int V);

// One block; partial sums in a fixed order (deterministic).
void point_loss_forward(float* loss, const float* pred, const float* target, int M,
                        ops::PointLoss kind);
void point_loss_backward(float* dpred, const float* pred, const float* target, int M,
                         ops::PointLoss kind, float dloss);

void sum_squares(double* out, const float* g, int64_t n);  // fixed partition: deterministic
void adamw_update(float* p, const float* g, float* m, float* v, int64_t n,
                  const ops::AdamWStep& s, const ops::AdamWSchedule* schedule);

}  // namespace bb::cuda
