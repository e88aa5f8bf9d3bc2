// Row gather / scatter for the LM head, zero fills, and SSA's raw <-> effective parameters.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/cpu/dispatch.h"
#include "backend/ops.h"

namespace bb::ops {

template <typename T>
void gather_rows(T* out, const T* x, const int32_t* rows, int M, int C) {
  BB_RUN_ON_CUDA(gather_rows, out, x, rows, M, C);
  for (int m = 0; m < M; ++m)
    std::memcpy(out + int64_t(m) * C, x + int64_t(rows[m]) * C, sizeof(T) * C);
}

template <typename T>
void scatter_rows(T* dx, const T* d, const int32_t* rows, int M, int N, int C) {
  BB_RUN_ON_CUDA(scatter_rows, dx, d, rows, M, N, C);
  std::fill(dx, dx + int64_t(N) * C, T(0));
  for (int m = 0; m < M; ++m) {
    T* o = dx + int64_t(rows[m]) * C;
    const T* r = d + int64_t(m) * C;
    for (int c = 0; c < C; ++c) o[c] += r[c];
  }
}

template <typename T>
void fill_zero(T* p, int64_t n) {
  BB_RUN_ON_CUDA(fill_zero, p, n);
  std::fill(p, p + n, T(0));
}

template <typename T>
void ssa_effective(T* b, T* n, const T* beta, const T* nu, int H) {
  BB_RUN_ON_CUDA(ssa_effective, b, n, beta, nu, H);
  for (int h = 0; h < H; ++h) {
    b[h] = std::exp(beta[h]);
    n[h] = T(1) + std::exp(nu[h]);
  }
}

template <typename T>
void ssa_raw_grads(T* dbeta, T* dnu, const T* db, const T* dn, const T* b, const T* n, int H,
                   bool freeze_b, bool freeze_n) {
  BB_RUN_ON_CUDA(ssa_raw_grads, dbeta, dnu, db, dn, b, n, H, freeze_b, freeze_n);
  for (int h = 0; h < H; ++h) {
    if (!freeze_b) dbeta[h] += db[h] * b[h];
    if (!freeze_n) dnu[h] += dn[h] * (n[h] - T(1));
  }
}

#define BB_INSTANTIATE(T)                                                                    \
  template void gather_rows<T>(T*, const T*, const int32_t*, int, int);                      \
  template void scatter_rows<T>(T*, const T*, const int32_t*, int, int, int);                \
  template void fill_zero<T>(T*, int64_t);                                                    \
  template void ssa_effective<T>(T*, T*, const T*, const T*, int);                            \
  template void ssa_raw_grads<T>(T*, T*, const T*, const T*, const T*, const T*, int, bool, bool);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
#undef BB_INSTANTIATE

}  // namespace bb::ops
