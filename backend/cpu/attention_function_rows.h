// The scoring functions that are not a softmax of a transformed row, one row at a time (called by
// scoring.cpp for each row of a block). A row: scores s(L) over keys with valid[j] != 0 (null:
// all valid); masked keys get p = 0 and ds = 0 and never enter a sort, sum, min or max.
// Backward: ds(L) = dL/ds from g(L) = dL/dp. Formulas: backend/ops.h (attention_function_forward).
#pragma once
#include <cstdint>

namespace bb::cpu::rows {

// Whether key j takes part (valid null: every key does).
inline bool is_valid(const uint8_t* valid, int j) { return !valid || valid[j]; }

// attention_function_sparse.cpp: sparsemax and 1.5-entmax by the exact sort-based thresholds.
template <typename T>
void sparsemax(T* p, const T* s, const uint8_t* valid, int L);
// On the support S = {p > 0}: ds = g - mean_S(g); 0 elsewhere.
template <typename T>
void sparsemax_backward(T* ds, const T* g, const T* p, const uint8_t* valid, int L);
template <typename T>
void entmax15(T* p, const T* s, const uint8_t* valid, int L);
// r = sqrt(p): ds = r g - (sum r g / sum r) r.
template <typename T>
void entmax15_backward(T* ds, const T* g, const T* p, const uint8_t* valid, int L);

// attention_function_sa_softmax.cpp: self-adjusting softmax (needs s again: softmax(s) is not
// stored).
template <typename T>
void sa_softmax(T* p, const T* s, const uint8_t* valid, int L);
template <typename T>
void sa_softmax_backward(T* ds, const T* g, const T* p, const T* s, const uint8_t* valid, int L);

// attention_function_cosformer.cpp: i is the row's query position; M = the number of valid keys.
template <typename T>
void cosformer(T* p, const T* s, const uint8_t* valid, int L, int i);
template <typename T>
void cosformer_backward(T* ds, const T* g, const T* p, const T* s, const uint8_t* valid, int L,
                        int i);

}  // namespace bb::cpu::rows
