// Multi-head self-attention over packed sequences: one block per (sequence, head); one warp per
// query row computes the score row, the scoring function (attention_function_row.cuh), the dropout
// mask (the CPU's Philox draws) and the context row. cosformer scores relu(q) relu(k)^T without
// 1/sqrt(d). Stores S, P and the mask per (b, h) as (L, L) blocks at store_at[b] + h*L*L, like
// backend/cpu/attention.cpp. Sequences of at most `cap` = shape.max_len tokens. The block keeps
// its sequence's keys and values in shared memory when 2 cap (d + 1) floats fit there; longer
// sequences (decoder-114m's 1,024 positions) read them from qkv in global memory instead
// (KeyValueRows), every sum in the same order: the same bits either way. Causal: query i's row is
// its first i + 1 keys (the rest get P = 0, dS = 0, as backend/ops.h says).
#include <cmath>

#include "backend/cuda/attention_function_row.cuh"
#include "backend/cuda/kernels.cuh"
#include "backend/cuda/ops.h"
#include "backend/dropout_draw.h"

namespace bb::cuda {

namespace {

constexpr int kWarps = 4;

// The block's keys and values (rows off..off+L of head h) into shared memory, rows padded to
// d+1 floats so that lanes reading different rows hit different banks; keys through ReLU when
// `relu` (cosformer).
__device__ void load_keys_values(float* K, float* V, const float* qkv, int off, int L, int h,
                                 int d, int C, bool relu) {
  for (int e = threadIdx.x; e < L * d; e += blockDim.x) {
    const int j = e / d, k = e % d;
    const float* row = qkv + int64_t(off + j) * 3 * C + h * d;
    K[j * (d + 1) + k] = relu ? fmaxf(row[C + k], 0.f) : row[C + k];
    V[j * (d + 1) + k] = row[2 * C + k];
  }
  __syncthreads();
}

// Where a block reads its sequence's keys and values: row j's element c of keys (through ReLU for
// cosformer) and of values.
struct KeyValueRows {
  const float* k;
  const float* v;
  int ld;     // floats from one row to the next
  bool relu;  // keys through ReLU as they are read (the global rows; shared rows hold it already)
  __device__ float key(int j, int c) const {
    const float x = k[int64_t(j) * ld + c];
    return relu ? fmaxf(x, 0.f) : x;
  }
  __device__ float value(int j, int c) const { return v[int64_t(j) * ld + c]; }
};

// The keys and values of rows off..off+L of head h: copied into shared memory at `sm` (then `sm`
// is advanced past them) when `in_shared`, else read where they are in qkv.
__device__ KeyValueRows key_value_rows(float*& sm, bool in_shared, const float* qkv, int off,
                                       int L, int h, int d, int C, bool relu, int cap) {
  if (!in_shared) {
    const float* row = qkv + int64_t(off) * 3 * C + h * d;
    return {row + C, row + 2 * C, 3 * C, relu};
  }
  float* K = sm;
  float* V = K + cap * (d + 1);
  load_keys_values(K, V, qkv, off, L, h, d, C, relu);
  sm = V + cap * (d + 1);
  return {K, V, d + 1, false};
}

// The head's trainable values (0 where the function has fewer than `count`).
__device__ inline void head_values(float& v0, float& v1, int count, const float* v0_head,
                                   const float* v1_head, int h) {
  v0 = count > 0 ? v0_head[h] : 0.f;
  v1 = count > 1 ? v1_head[h] : 0.f;
}

// What the kernels need to know of a scoring function beyond its kind (host constexprs).
struct ScoringTraits {
  AttentionFunction kind;
  int value_count;  // head_value_count(kind)
  bool relu;        // scores_relu_features(kind)
  static ScoringTraits of(AttentionFunction k) {
    return {k, head_value_count(k), scores_relu_features(k)};
  }
};

// Shared memory: K and V (cap, d+1) when kv_in_shared, then a q row and a P row per warp.
__global__ void attention_fwd(float* ctx, float* S, float* P, float* mask, const float* qkv,
                              const int32_t* offsets, const int64_t* store_at, int H, int C,
                              ScoringTraits fn, const float* v0_head, const float* v1_head,
                              DropoutDraw drop, const uint64_t* key, int first_seq, int cap,
                              bool causal, bool kv_in_shared) {
  extern __shared__ float sm[];
  if (drop.on) drop.key = *key;  // device memory: a captured step reads each step's key
  const int b = blockIdx.x / H, h = blockIdx.x % H;
  const int off = offsets[b], L = offsets[b + 1] - off;
  if (L == 0) return;
  if (L > cap) __trap();
  const int d = C / H, ld = 3 * C;
  const bool relu = fn.relu;
  const AttentionFunction kind = fn.kind;
  float* rows = sm;
  const KeyValueRows kv = key_value_rows(rows, kv_in_shared, qkv, off, L, h, d, C, relu, cap);
  float* qs = rows;
  float* ps = qs + kWarps * d;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* q = qs + warp * d;
  float* pr = ps + warp * cap;
  const float scale = relu ? 1.f : 1.f / sqrtf(float(d));
  float v0, v1;
  head_values(v0, v1, fn.value_count, v0_head, v1_head, h);
  const int64_t at = store_at[b] + int64_t(h) * L * L;
  for (int i = warp; i < L; i += kWarps) {
    const float* qi = qkv + int64_t(off + i) * ld + h * d;
    for (int k = lane; k < d; k += 32) q[k] = relu ? fmaxf(qi[k], 0.f) : qi[k];
    __syncwarp();
    for (int j = lane; j < L; j += 32) {
      float s = 0.f;
      for (int k = 0; k < d; ++k) s += q[k] * kv.key(j, k);
      s *= scale;
      S[at + int64_t(i) * L + j] = s;
      pr[j] = s;
    }
    __syncwarp();
    const int Li = causal ? i + 1 : L;
    warp_attention_row(kind, pr, pr, nullptr, Li, i, v0, v1);  // scores -> weights in place
    __syncwarp();
    for (int j = Li + lane; j < L; j += 32) pr[j] = 0.f;
    __syncwarp();
    const uint64_t row = attention_dropout_row(first_seq + b, H, h, i);
    for (int j = lane; j < L; j += 32) {
      const float p = pr[j];
      const float m = drop.mask(row, j);
      P[at + int64_t(i) * L + j] = p;
      mask[at + int64_t(i) * L + j] = m;
      pr[j] = p * m;
    }
    __syncwarp();
    for (int k = lane; k < d; k += 32) {
      float acc = 0.f;
      for (int j = 0; j < L; ++j) acc += pr[j] * kv.value(j, k);
      ctx[int64_t(off + i) * C + h * d + k] = acc;
    }
    __syncwarp();
  }
}

// Phase 1, a warp per query row i: dP = (dout v^T) * mask, dS by the scoring function's backward
// (into dS_store), dq = dS k scale. Phase 2, a warp per key row j: dk = dS^T q scale,
// dv = (P*mask)^T dout. cosformer: k and q through ReLU, no scale, and dq, dk masked where
// q, k <= 0. The trainable values' gradients for this (b, h) go to part[2 task + 0/1].
// Shared memory: K (through ReLU for cosformer) and V (cap, d+1) when kv_in_shared, then a dout
// row and a dS row per warp.
__global__ void attention_bwd(float* dqkv, float* part, float* dS_store, const float* dctx,
                              const float* qkv, const float* S, const float* P, const float* mask,
                              const int32_t* offsets, const int64_t* store_at, int H, int C,
                              ScoringTraits fn, const float* v0_head, const float* v1_head,
                              int cap, bool causal, bool kv_in_shared) {
  extern __shared__ float sm[];
  __shared__ float warp_parts[kWarps][2];
  const int task = blockIdx.x, b = task / H, h = task % H;
  const int off = offsets[b], L = offsets[b + 1] - off;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (L == 0) {
    if (threadIdx.x == 0) part[2 * task] = part[2 * task + 1] = 0.f;
    return;
  }
  if (L > cap) __trap();
  const int d = C / H, ld = 3 * C;
  const bool relu = fn.relu;
  const AttentionFunction kind = fn.kind;
  float* rows = sm;
  const KeyValueRows kv = key_value_rows(rows, kv_in_shared, qkv, off, L, h, d, C, relu, cap);
  float* dos = rows;
  float* dss = dos + kWarps * d;
  const float scale = relu ? 1.f : 1.f / sqrtf(float(d));
  float v0, v1;
  head_values(v0, v1, fn.value_count, v0_head, v1_head, h);
  const int64_t at = store_at[b] + int64_t(h) * L * L;
  float* dout = dos + warp * d;
  float* ds = dss + warp * cap;
  float acc0 = 0.f, acc1 = 0.f;
  for (int i = warp; i < L; i += kWarps) {
    const float* di = dctx + int64_t(off + i) * C + h * d;
    for (int k = lane; k < d; k += 32) dout[k] = di[k];
    __syncwarp();
    const float* p = P + at + int64_t(i) * L;
    const float* m = mask + at + int64_t(i) * L;
    const float* s = S + at + int64_t(i) * L;
    for (int j = lane; j < L; j += 32) {
      float g = 0.f;
      for (int k = 0; k < d; ++k) g += dout[k] * kv.value(j, k);
      ds[j] = g * m[j];
    }
    __syncwarp();
    const int Li = causal ? i + 1 : L;
    warp_attention_row_backward(kind, ds, ds, p, s, nullptr, Li, i, v0, v1, acc0, acc1);  // dS
    __syncwarp();
    for (int j = Li + lane; j < L; j += 32) ds[j] = 0.f;
    __syncwarp();
    for (int j = lane; j < L; j += 32) dS_store[at + int64_t(i) * L + j] = ds[j];
    const float* qi = qkv + int64_t(off + i) * ld + h * d;
    for (int k = lane; k < d; k += 32) {
      float acc = 0.f;
      for (int j = 0; j < L; ++j) acc += ds[j] * kv.key(j, k);
      dqkv[int64_t(off + i) * ld + h * d + k] = relu && qi[k] <= 0.f ? 0.f : acc * scale;
    }
    __syncwarp();
  }
  acc0 = warp_sum(acc0);
  acc1 = warp_sum(acc1);
  if (lane == 0) warp_parts[warp][0] = acc0, warp_parts[warp][1] = acc1;
  __syncthreads();  // dS_store rows and warp_parts complete
  if (threadIdx.x == 0) {
    float sb = 0.f, sn = 0.f;
    for (int w = 0; w < kWarps; ++w) sb += warp_parts[w][0], sn += warp_parts[w][1];
    part[2 * task] = sb;
    part[2 * task + 1] = sn;
  }
  for (int j = warp; j < L; j += kWarps) {
    for (int k = lane; k < d; k += 32) {
      float dk = 0.f, dv = 0.f;
      for (int i = 0; i < L; ++i) {
        const int64_t ij = at + int64_t(i) * L + j;
        const float qik = qkv[int64_t(off + i) * ld + h * d + k];
        dk += dS_store[ij] * (relu ? fmaxf(qik, 0.f) : qik);
        dv += P[ij] * mask[ij] * dctx[int64_t(off + i) * C + h * d + k];
      }
      const float kjk = qkv[int64_t(off + j) * ld + C + h * d + k];
      dqkv[int64_t(off + j) * ld + C + h * d + k] = relu && kjk <= 0.f ? 0.f : dk * scale;
      dqkv[int64_t(off + j) * ld + 2 * C + h * d + k] = dv;
    }
  }
}

// dv0_head[h] += sum_b part[2(b H + h)], dv1 likewise; sequences in order (deterministic).
__global__ void sum_head_parts(float* dv0_head, float* dv1_head, const float* part, int B, int H) {
  const int h = threadIdx.x;
  if (h >= H) return;
  float s0 = 0.f, s1 = 0.f;
  for (int b = 0; b < B; ++b) s0 += part[2 * (b * H + h)], s1 += part[2 * (b * H + h) + 1];
  if (dv0_head) dv0_head[h] += s0;
  if (dv1_head) dv1_head[h] += s1;
}

template <typename Kernel>
void allow_shared(Kernel k, size_t bytes) {
  if (bytes > 48 * 1024)
    check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "cudaFuncSetAttribute (attention shared memory)");
}

// The shared memory a launch uses: the keys and values of a block's sequence when they fit beside
// the warps' rows, else the rows alone (the keys and values are then read from global memory).
struct SharedPlan {
  size_t bytes;
  bool kv_in_shared;
};

SharedPlan shared_plan(const ops::AttentionShape& sh) {
  if (sh.max_len < 1) check(cudaErrorInvalidValue, "attention: shape.max_len must be at least 1");
  const size_t cap = size_t(sh.max_len), d = size_t(sh.C / sh.H);
  static const size_t limit = [] {  // the device's opt-in maximum per block
    int dev = 0, v = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
          "cudaDeviceGetAttribute (shared memory per block)");
    return size_t(v);
  }();
  const size_t rows = sizeof(float) * kWarps * (d + cap);  // a q (dout) row and a P (dS) row
  const size_t keys_values = sizeof(float) * 2 * cap * (d + 1);
  if (rows + keys_values <= limit) return {rows + keys_values, true};
  if (rows > limit)
    check(cudaErrorInvalidValue,
          "attention: the sequences are too long for this GPU (each block's warps hold a row of "
          "max_len floats in shared memory; use shorter sequences)");
  return {rows, false};
}

}  // namespace

void attention_forward(float* ctx, float* S, float* P, float* mask, const float* qkv,
                       const ops::AttentionShape& sh, AttentionFunction kind, const float* v0_head,
                       const float* v1_head, float dropout_p, const uint64_t* key) {
  if (sh.B == 0) return;
  const SharedPlan plan = shared_plan(sh);
  allow_shared(attention_fwd, plan.bytes);
  attention_fwd<<<sh.B * sh.H, 32 * kWarps, plan.bytes, stream()>>>(
      ctx, S, P, mask, qkv, sh.offsets, sh.store_at, sh.H, sh.C, ScoringTraits::of(kind),
      v0_head, v1_head, DropoutDraw::make(dropout_p, 0), key, sh.first_seq, sh.max_len, sh.causal,
      plan.kv_in_shared);
  launched("attention_fwd");
}

void attention_backward(float* dqkv, float* dv0_head, float* dv1_head, float* scratch,
                        const float* dctx, const float* qkv, const float* S, const float* P,
                        const float* mask, const ops::AttentionShape& sh, AttentionFunction kind,
                        const float* v0_head, const float* v1_head) {
  if (sh.B == 0) return;
  const SharedPlan plan = shared_plan(sh);
  allow_shared(attention_bwd, plan.bytes);
  // dS for every (b, h): at most B H cap^2 floats (the stores' size is not known here).
  const size_t cap = size_t(sh.max_len);
  float* dS = static_cast<float*>(workspace(sizeof(float) * size_t(sh.B) * sh.H * cap * cap));
  attention_bwd<<<sh.B * sh.H, 32 * kWarps, plan.bytes, stream()>>>(
      dqkv, scratch, dS, dctx, qkv, S, P, mask, sh.offsets, sh.store_at, sh.H, sh.C,
      ScoringTraits::of(kind), v0_head, v1_head, sh.max_len, sh.causal, plan.kv_in_shared);
  launched("attention_bwd");
  if (head_value_count(kind) > 0 && (dv0_head || dv1_head)) {
    sum_head_parts<<<1, 32 * ((sh.H + 31) / 32), 0, stream()>>>(dv0_head, dv1_head, scratch, sh.B,
                                                                 sh.H);
    launched("sum_head_parts");
  }
}

}  // namespace bb::cuda
