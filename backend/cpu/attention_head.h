// One attention head's products over rows of length d (q, k, v, and their gradients, each a row
// of a wider row-major buffer): scores S = a b^T and weighted sums out_i = sum_j w(i, j) x_j.
// With L about 9 and d = 32 these are far too small for a blocked GEMM (Eigen's packed both
// operands first and spent more time packing than multiplying). Here each output row is summed
// in registers: D > 0 fixes d at compile time (every preset has d = 32), so the accumulator row
// is a few vector registers and every loop over d unrolls; D = 0 takes d at run time.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <type_traits>

#include "common/error.h"

namespace bb::cpu {

// Rows of one head inside a row-major buffer: row r starts at base + r * stride.
template <typename T>
struct HeadRows {
  T* base;
  int64_t stride;
  T* operator[](int r) const { return base + int64_t(r) * stride; }
};

template <typename T, int D>
struct HeadProducts {
  static constexpr int kMaxRuntimeD = 1024;
  // A row of d values: a fixed-size Eigen array (vector registers, unrolled) when D > 0, else
  // dynamic with inline storage for up to kMaxRuntimeD values (no allocation).
  using Row = std::conditional_t<D == 0, Eigen::Array<T, Eigen::Dynamic, 1, 0, kMaxRuntimeD, 1>,
                                 Eigen::Array<T, (D > 0 ? D : 1), 1>>;
  using RowMap = Eigen::Map<std::conditional_t<D == 0, Eigen::Array<T, Eigen::Dynamic, 1>, Row>>;
  using CRowMap =
      Eigen::Map<const std::conditional_t<D == 0, Eigen::Array<T, Eigen::Dynamic, 1>, Row>>;
  int d_runtime;

  int d() const { return D > 0 ? D : d_runtime; }
  CRowMap row(const T* p) const { return CRowMap(p, d()); }

  // S(L, L) row-major = (a b^T) * scale.
  void scores(T* S, HeadRows<const T> a, HeadRows<const T> b, int L, T scale) const {
    for (int i = 0; i < L; ++i) {
      const CRowMap ai = row(a[i]);
      for (int j = 0; j < L; ++j) S[int64_t(i) * L + j] = (ai * row(b[j])).sum() * scale;
    }
  }

  // out_i = sum_j w(i, j) x_j for i, j < L (overwrites out).
  template <typename Weight>
  void mix(HeadRows<T> out, Weight w, HeadRows<const T> x, int L) const {
    BB_CHECK(d() <= (D > 0 ? D : kMaxRuntimeD), "internal: attention head size {} exceeds {}",
             d(), kMaxRuntimeD);
    Row acc(d());
    for (int i = 0; i < L; ++i) {
      acc.setZero();
      for (int j = 0; j < L; ++j) acc += w(i, j) * row(x[j]);
      RowMap(out[i], d()) = acc;
    }
  }
};

}  // namespace bb::cpu
