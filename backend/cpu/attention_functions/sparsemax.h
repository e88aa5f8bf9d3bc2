// sparsemax (Martins & Astudillo 2016): p = [z - tau]_+ with z = s - max s and tau the exact
// sort-based threshold (backend/cpu/sparse_threshold.h). Backward on the support S = {p > 0}:
// ds = g - mean_S(g); 0 elsewhere.
#pragma once
#include <algorithm>
#include <vector>

#include "backend/cpu/attention_function_row.h"
#include "backend/cpu/sparse_threshold.h"

namespace bb::cpu::rows {

template <>
struct RowKernel<AttentionFunction::sparsemax> {
  template <typename T>
  static void forward(T* p, const T* s, const uint8_t* valid, int L, int /*i*/) {
    thread_local std::vector<double> z;
    const double mx = sorted_shifted(z, s, valid, L, 1.0);
    const double tau = sorted_threshold(z, /*entmax=*/false);
    for (int j = 0; j < L; ++j)
      p[j] = is_valid(valid, j) ? T(std::max(double(s[j]) - mx - tau, 0.0)) : T(0);
  }

  template <typename T>
  static void backward(T* ds, const T* g, const T* p, const T* /*s*/, const uint8_t* valid, int L,
                       int /*i*/) {
    double sum = 0;
    int support = 0;
    for (int j = 0; j < L; ++j)
      if (is_valid(valid, j) && p[j] > 0) sum += g[j], ++support;
    const double mean = support > 0 ? sum / support : 0;
    for (int j = 0; j < L; ++j) ds[j] = is_valid(valid, j) && p[j] > 0 ? T(g[j] - mean) : T(0);
  }
};

}  // namespace bb::cpu::rows
