// Internal to backend/cuda: one warp turns a row of scores into weights (and back), for every
// attention function. Shared by the standalone op (attention_function.cu) and the fused attention
// kernels (attention.cu). The softmax family's math is in attention_function_row_common.cuh; each
// row-kernel function's RowMath<F> in attention_functions/NAME.cuh, all included through the
// generated cuda_row_kernels.h. The dispatch matches `kind` against every enum value, so each row
// function's RowMath<F> is instantiated: one without its file fails to compile (incomplete type).
#pragma once
#include <cstddef>
#include <utility>

#include "backend/attention_function.h"
#include "backend/cuda/attention_function_row_common.cuh"
#include "cuda_row_kernels.h"  // generated: every backend/cuda/attention_functions/*.cuh

namespace bb::cuda {

template <AttentionFunction F>
inline constexpr bool kRowKernel = attention_function_spec(F).family == AttentionFamily::row;
template <AttentionFunction F>
inline constexpr LogitTransform kTransform = attention_function_spec(F).transform;

template <AttentionFunction F>
__device__ inline void function_row(float* p, const float* s, const uint8_t* valid, int L, int i,
                                    float v0, float v1) {
  if constexpr (kRowKernel<F>)
    RowMath<F>::forward(p, s, valid, L, i);
  else
    softmax_family_row<kTransform<F>>(p, s, valid, L, v0, v1);
}

template <AttentionFunction F>
__device__ inline void function_row_backward(float* ds, const float* g, const float* p,
                                             const float* s, const uint8_t* valid, int L, int i,
                                             float v0, float v1, float& acc0, float& acc1) {
  if constexpr (kRowKernel<F>)
    RowMath<F>::backward(ds, g, p, s, valid, L, i);
  else
    softmax_family_row_backward<kTransform<F>>(ds, g, p, s, valid, L, v0, v1, acc0, acc1);
}

template <size_t... I>
__device__ inline void dispatch_row(AttentionFunction kind, float* p, const float* s,
                                    const uint8_t* valid, int L, int i, float v0, float v1,
                                    std::index_sequence<I...>) {
  ((kind == AttentionFunction(I) ? function_row<AttentionFunction(I)>(p, s, valid, L, i, v0, v1)
                                 : void()),
   ...);
}

template <size_t... I>
__device__ inline void dispatch_row_backward(AttentionFunction kind, float* ds, const float* g,
                                             const float* p, const float* s, const uint8_t* valid,
                                             int L, int i, float v0, float v1, float& acc0,
                                             float& acc1, std::index_sequence<I...>) {
  ((kind == AttentionFunction(I)
        ? function_row_backward<AttentionFunction(I)>(ds, g, p, s, valid, L, i, v0, v1, acc0, acc1)
        : void()),
   ...);
}

// p(L) = f(s(L)) for query row i (cosformer's position); masked keys 0. p may be s.
__device__ inline void warp_attention_row(AttentionFunction kind, float* p, const float* s,
                                          const uint8_t* valid, int L, int i, float v0, float v1) {
  dispatch_row(kind, p, s, valid, L, i, v0, v1,
               std::make_index_sequence<kAttentionFunctionCount>());
}

// ds(L) from g = dL/dp (ds may be g); acc0, acc1 += this lane's part of dL/dv0, dL/dv1.
__device__ inline void warp_attention_row_backward(AttentionFunction kind, float* ds,
                                                   const float* g, const float* p, const float* s,
                                                   const uint8_t* valid, int L, int i, float v0,
                                                   float v1, float& acc0, float& acc1) {
  dispatch_row_backward(kind, ds, g, p, s, valid, L, i, v0, v1, acc0, acc1,
                        std::make_index_sequence<kAttentionFunctionCount>());
}

}  // namespace bb::cuda
