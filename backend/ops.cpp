// The one place that routes each op of backend/ops.h (and backend/frozen_linear.h) to its device:
// backend/cpu (float and double) or backend/cuda (float), by the calling thread's current device.
// With pointer checks on (check_pointers, CUDA builds), every non-null pointer argument must
// point to memory of that device; a mismatch fails at the op instead of crashing in a kernel.
#include <atomic>
#include <initializer_list>
#include <type_traits>

#include "backend/cpu/ops.h"
#include "backend/cuda/ops.h"  // plain C++ declarations; called only in builds with CUDA
#include "backend/device.h"
#include "backend/frozen_linear.h"
#include "common/error.h"
#ifdef BABYBERTA_HAVE_CUDA
#include "backend/cuda/device.h"
#endif

namespace bb::ops {

namespace {

#ifdef BABYBERTA_HAVE_CUDA
constexpr bool kHaveCuda = true;
#else
constexpr bool kHaveCuda = false;
#endif
// Whether backend/cuda implements an op in precision T (calls are compiled only then).
template <typename T>
constexpr bool kCuda = kHaveCuda && std::is_same_v<T, float>;

std::atomic<bool> pointer_checks{false};

using Pointers = std::initializer_list<const void*>;

// Fails unless each pointer is readable by device d: no device memory for a CPU op, no pageable
// host memory for a CUDA op. Pointers are numbered from 1 in the op's argument order.
void check_memory(const char* op, Device d, Pointers pointers) {
#ifdef BABYBERTA_HAVE_CUDA
  static const bool any_gpu = cuda::device_count() > 0;  // else no pointer can be device memory
  if (!any_gpu) return;
  int i = 0;
  for (const void* p : pointers) {
    ++i;
    if (!p) continue;
    const cuda::Memory m = cuda::memory_of(p);
    if (d == Device::cuda)
      BB_CHECK(m != cuda::Memory::pageable,
               "internal: {} runs on cuda but its pointer argument {} is host memory", op, i);
    else
      BB_CHECK(m != cuda::Memory::device,
               "internal: {} runs on the cpu but its pointer argument {} is cuda memory", op, i);
  }
#else
  (void)op, (void)d, (void)pointers;
#endif
}

// Where an op in precision T runs: the calling thread's current device. Double precision runs
// on the CPU only.
template <typename T>
Device device_for(const char* op, Pointers pointers) {
  const Device d = current_device();
  BB_CHECK(d == Device::cpu || kCuda<T>,
           "internal: {} in double precision has no CUDA implementation", op);
  if (pointer_checks.load(std::memory_order_relaxed)) check_memory(op, d, pointers);
  return d;
}

}  // namespace

void check_pointers(bool on) { pointer_checks = on; }

// The body of every op: cuda::op args on CUDA (float only; for double device_for fails there),
// else cpu::op args. The trailing arguments are the op's pointers, for device_for's checks.
#define BB_ROUTE(op, args, ...)                                \
  if (device_for<T>(#op, {__VA_ARGS__}) == Device::cuda) {     \
    if constexpr (kCuda<T>) return cuda::op args;              \
  }                                                            \
  return cpu::op args

template <typename T>
void gemm(bool ta, bool tb, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb,
          T beta, T* C, int ldc) {
  BB_ROUTE(gemm, (ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), A, B, C);
}

template <typename T>
void linear_forward(T* y, const T* x, const T* W, const T* bias, int N, int in, int out) {
  BB_ROUTE(linear_forward, (y, x, W, bias, N, in, out), y, x, W, bias);
}

template <typename T>
void linear_backward(T* dx, T* dW, T* dbias, const T* dy, const T* x, const T* W, int N, int in,
                     int out) {
  BB_ROUTE(linear_backward, (dx, dW, dbias, dy, x, W, N, in, out), dx, dW, dbias, dy, x, W);
}

std::shared_ptr<FrozenLinear> freeze_linear(const float* W, int in, int out, Precision p) {
  return cpu::freeze_linear(W, in, out, p);
}

void linear_frozen_forward(float* y, const float* x, FrozenLinear& W, const float* bias, int N) {
  BB_CHECK(device_for<float>("linear_frozen_forward", {y, x, bias}) == Device::cpu,
           "internal: frozen linear layers are CPU only");
  cpu::linear_frozen_forward(y, x, W, bias, N);
}

const char* frozen_linear_backend() { return cpu::frozen_linear_backend(); }

template <typename T>
void embedding_forward(T* out, const int32_t* ids, const int32_t* pos, const T* wte, const T* wpe,
                       int N, int C) {
  BB_ROUTE(embedding_forward, (out, ids, pos, wte, wpe, N, C), out, ids, pos, wte, wpe);
}

template <typename T>
void embedding_backward(T* dwte, T* dwpe, const T* dout, const int32_t* ids, const int32_t* pos,
                        int N, int C) {
  BB_ROUTE(embedding_backward, (dwte, dwpe, dout, ids, pos, N, C), dwte, dwpe, dout, ids, pos);
}

template <typename T>
void add_row_forward(T* x, const T* row, int N, int C) {
  BB_ROUTE(add_row_forward, (x, row, N, C), x, row);
}

template <typename T>
void add_row_backward(T* drow, const T* dx, int N, int C) {
  BB_ROUTE(add_row_backward, (drow, dx, N, C), drow, dx);
}

template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, int N, int C,
                       T eps) {
  BB_ROUTE(layernorm_forward, (out, mean, rstd, x, w, b, N, C, eps), out, mean, rstd, x, w, b);
}

template <typename T>
void layernorm_backward(T* dx, T* dw, T* db, const T* dout, const T* x, const T* mean,
                        const T* rstd, const T* w, int N, int C) {
  BB_ROUTE(layernorm_backward, (dx, dw, db, dout, x, mean, rstd, w, N, C), dx, dw, db, dout, x,
           mean, rstd, w);
}

template <typename T>
void gelu_forward(T* out, const T* x, int64_t n) {
  BB_ROUTE(gelu_forward, (out, x, n), out, x);
}

template <typename T>
void gelu_backward(T* dx, const T* dout, const T* x, int64_t n) {
  BB_ROUTE(gelu_backward, (dx, dout, x, n), dx, dout, x);
}

template <typename T>
void gelu_tanh_forward(T* out, const T* x, int64_t n) {
  BB_ROUTE(gelu_tanh_forward, (out, x, n), out, x);
}

template <typename T>
void gelu_tanh_backward(T* dx, const T* dout, const T* x, int64_t n) {
  BB_ROUTE(gelu_tanh_backward, (dx, dout, x, n), dx, dout, x);
}

template <typename T>
void add_inplace(T* y, const T* x, int64_t n) {
  BB_ROUTE(add_inplace, (y, x, n), y, x);
}

template <typename T>
void dropout_forward(T* out, T* mask, const T* x, const int64_t* row_ids, int N, int C, float p,
                     const uint64_t* key) {
  BB_ROUTE(dropout_forward, (out, mask, x, row_ids, N, C, p, key), out, mask, x, row_ids, key);
}

template <typename T>
void dropout_backward(T* dx, const T* dout, const T* mask, int64_t n) {
  BB_ROUTE(dropout_backward, (dx, dout, mask, n), dx, dout, mask);
}

template <typename T>
void gather_rows(T* out, const T* x, const int32_t* rows, int M, int C) {
  BB_ROUTE(gather_rows, (out, x, rows, M, C), out, x, rows);
}

template <typename T>
void scatter_rows(T* dx, const T* d, const int32_t* rows, int M, int N, int C) {
  BB_ROUTE(scatter_rows, (dx, d, rows, M, N, C), dx, d, rows);
}

template <typename T>
void fill_zero(T* p, int64_t n) {
  BB_ROUTE(fill_zero, (p, n), p);
}

template <typename T>
void attention_function_forward(T* P, const T* S, const uint8_t* key_valid, int R, int L,
                                AttentionFunction kind, T v0, T v1, bool causal) {
  BB_ROUTE(attention_function_forward, (P, S, key_valid, R, L, kind, v0, v1, causal), P, S,
           key_valid);
}

template <typename T>
void attention_function_backward(T* dS, T* dv0, T* dv1, const T* dP, const T* P, const T* S,
                                 const uint8_t* key_valid, int R, int L, AttentionFunction kind,
                                 T v0, T v1, bool causal) {
  BB_ROUTE(attention_function_backward,
           (dS, dv0, dv1, dP, P, S, key_valid, R, L, kind, v0, v1, causal), dS, dv0, dv1, dP, P, S,
           key_valid);
}

template <typename T>
void head_values_effective(T* v0, T* v1, const T* raw0, const T* raw1, int H) {
  BB_ROUTE(head_values_effective, (v0, v1, raw0, raw1, H), v0, v1, raw0, raw1);
}

template <typename T>
void head_values_raw_grads(T* draw0, T* draw1, const T* dv0, const T* dv1, const T* v0,
                           const T* v1, int H, bool freeze0, bool freeze1) {
  BB_ROUTE(head_values_raw_grads, (draw0, draw1, dv0, dv1, v0, v1, H, freeze0, freeze1), draw0,
           draw1, dv0, dv1, v0, v1);
}

template <typename T>
void attention_forward(T* ctx, T* S, T* P, T* mask, const T* qkv, const AttentionShape& shape,
                       AttentionFunction kind, const T* v0_head, const T* v1_head, float dropout_p,
                       const uint64_t* key) {
  BB_ROUTE(attention_forward,
           (ctx, S, P, mask, qkv, shape, kind, v0_head, v1_head, dropout_p, key), ctx, S, P, mask,
           qkv, shape.offsets, shape.store_at, v0_head, v1_head, key);
}

template <typename T>
void attention_backward(T* dqkv, T* dv0_head, T* dv1_head, T* scratch, const T* dctx, const T* qkv,
                        const T* S, const T* P, const T* mask, const AttentionShape& shape,
                        AttentionFunction kind, const T* v0_head, const T* v1_head) {
  BB_ROUTE(attention_backward,
           (dqkv, dv0_head, dv1_head, scratch, dctx, qkv, S, P, mask, shape, kind, v0_head,
            v1_head),
           dqkv, dv0_head, dv1_head, scratch, dctx, qkv, S, P, mask, shape.offsets,
           shape.store_at, v0_head, v1_head);
}

template <typename T>
void cross_entropy_forward(T* loss, T* lse, const T* logits, const int32_t* targets, int M, int V) {
  BB_ROUTE(cross_entropy_forward, (loss, lse, logits, targets, M, V), loss, lse, logits, targets);
}

template <typename T>
void cross_entropy_backward(T* dlogits, const T* logits, const T* lse, const int32_t* targets,
                            int M, int V, T dloss) {
  BB_ROUTE(cross_entropy_backward, (dlogits, logits, lse, targets, M, V, dloss), dlogits, logits,
           lse, targets);
}

template <typename T>
void target_log_probs(T* logp, const T* logits, const int32_t* targets, int M, int V) {
  BB_ROUTE(target_log_probs, (logp, logits, targets, M, V), logp, logits, targets);
}

template <typename T>
void point_loss_forward(T* loss, const T* pred, const T* target, int M, PointLoss kind) {
  BB_ROUTE(point_loss_forward, (loss, pred, target, M, kind), loss, pred, target);
}

template <typename T>
void point_loss_backward(T* dpred, const T* pred, const T* target, int M, PointLoss kind,
                         T dloss) {
  BB_ROUTE(point_loss_backward, (dpred, pred, target, M, kind, dloss), dpred, pred, target);
}

void sum_squares(double* out, const float* g, int64_t n) {
  using T = float;  // float only
  BB_ROUTE(sum_squares, (out, g, n), out, g);
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamWStep& s,
                  const AdamWSchedule* schedule) {
  using T = float;  // float only
  BB_ROUTE(adamw_update, (p, g, m, v, n, s, schedule), p, g, m, v, schedule);
}

void adamw_update_with_bf16_copy(float* p, const float* g, float* m, float* v, int64_t n,
                                 const AdamWStep& s, const AdamWSchedule* schedule, uint16_t* low) {
  BB_CHECK(device_for<float>("adamw_update_with_bf16_copy", {p, g, m, v}) == Device::cpu,
           "internal: adamw_update_with_bf16_copy runs on the CPU only");
  cpu::adamw_update_with_bf16_copy(p, g, m, v, n, s, schedule, low);
}

#define BB_INSTANTIATE(T)                                                                          \
  template void gemm<T>(bool, bool, int, int, int, T, const T*, int, const T*, int, T, T*, int);   \
  template void linear_forward<T>(T*, const T*, const T*, const T*, int, int, int);                \
  template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, int);       \
  template void embedding_forward<T>(T*, const int32_t*, const int32_t*, const T*, const T*, int,  \
                                     int);                                                         \
  template void embedding_backward<T>(T*, T*, const T*, const int32_t*, const int32_t*, int, int); \
  template void add_row_forward<T>(T*, const T*, int, int);                                        \
  template void add_row_backward<T>(T*, const T*, int, int);                                       \
  template void layernorm_forward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, T);       \
  template void layernorm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*,          \
                                      const T*, int, int);                                         \
  template void gelu_forward<T>(T*, const T*, int64_t);                                            \
  template void gelu_backward<T>(T*, const T*, const T*, int64_t);                                 \
  template void gelu_tanh_forward<T>(T*, const T*, int64_t);                                       \
  template void gelu_tanh_backward<T>(T*, const T*, const T*, int64_t);                            \
  template void add_inplace<T>(T*, const T*, int64_t);                                             \
  template void dropout_forward<T>(T*, T*, const T*, const int64_t*, int, int, float,              \
                                   const uint64_t*);                                               \
  template void dropout_backward<T>(T*, const T*, const T*, int64_t);                              \
  template void gather_rows<T>(T*, const T*, const int32_t*, int, int);                            \
  template void scatter_rows<T>(T*, const T*, const int32_t*, int, int, int);                      \
  template void fill_zero<T>(T*, int64_t);                                                         \
  template void attention_function_forward<T>(T*, const T*, const uint8_t*, int, int,              \
                                              AttentionFunction, T, T, bool);                      \
  template void attention_function_backward<T>(T*, T*, T*, const T*, const T*, const T*,           \
                                               const uint8_t*, int, int, AttentionFunction, T, T,  \
                                               bool);                                              \
  template void head_values_effective<T>(T*, T*, const T*, const T*, int);                         \
  template void head_values_raw_grads<T>(T*, T*, const T*, const T*, const T*, const T*, int,      \
                                         bool, bool);                                              \
  template void attention_forward<T>(T*, T*, T*, T*, const T*, const AttentionShape&,              \
                                     AttentionFunction, const T*, const T*, float,                 \
                                     const uint64_t*);                                             \
  template void attention_backward<T>(T*, T*, T*, T*, const T*, const T*, const T*, const T*,      \
                                      const T*, const AttentionShape&, AttentionFunction,          \
                                      const T*, const T*);                                         \
  template void cross_entropy_forward<T>(T*, T*, const T*, const int32_t*, int, int);              \
  template void cross_entropy_backward<T>(T*, const T*, const T*, const int32_t*, int, int, T);    \
  template void target_log_probs<T>(T*, const T*, const int32_t*, int, int);                      \
  template void point_loss_forward<T>(T*, const T*, const T*, int, PointLoss);                     \
  template void point_loss_backward<T>(T*, const T*, const T*, int, PointLoss, T);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE
#undef BB_ROUTE

}  // namespace bb::ops
