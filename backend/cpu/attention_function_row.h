// The attention functions that are not a softmax of a transformed row, one row at a time: one
// RowKernel<F> specialisation per function, each in backend/cpu/attention_functions/NAME.h (CMake
// includes every file there in the generated cpu_row_kernels.h, and attention_function.cpp
// dispatches over every enum value: a row function without its file does not compile).
//
// A row: scores s(L) over keys with valid[j] != 0 (null: all valid) for the query at position i
// (cosformer's re-weighting); masked keys get p = 0 and ds = 0 and never enter a sort, sum, min or
// max. Each specialisation has
//   template <typename T> static void forward(T* p, const T* s, const uint8_t* valid, int L, int i);
//   template <typename T> static void backward(T* ds, const T* g, const T* p, const T* s,
//                                              const uint8_t* valid, int L, int i);
// backward: ds(L) = dL/ds from g(L) = dL/dp. Formulas: backend/ops.h (attention_function_forward).
#pragma once
#include <cstdint>

#include "backend/attention_function.h"

namespace bb::cpu::rows {

// Whether key j takes part (valid null: every key does).
inline bool is_valid(const uint8_t* valid, int j) { return !valid || valid[j]; }

// The number of valid keys among L.
inline int valid_count(const uint8_t* valid, int L) {
  if (!valid) return L;
  int M = 0;
  for (int j = 0; j < L; ++j) M += valid[j] != 0;
  return M;
}

template <AttentionFunction F>
struct RowKernel;  // specialised in backend/cpu/attention_functions/NAME.h

}  // namespace bb::cpu::rows
