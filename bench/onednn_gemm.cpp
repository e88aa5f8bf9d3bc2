// Experiment, not part of the build: would a GEMM library with pre-packed weights beat OpenBLAS
// on the encoder's projection shapes? One thread, y(M, N) = x(M, K) W(N, K)^T + bias:
//   OpenBLAS: bias copied into every row of y, then sgemm with beta = 1 (what linear_forward does);
//   oneDNN 2.6 (Debian libdnnl-dev, not a project dependency): matmul with the weights reordered
//   once into its own layout and the bias fused.
// Prints GFLOP/s per shape and over the layer's four shapes, and the largest difference.
//   g++ -O2 -fopenmp bench/onednn_gemm.cpp -o /tmp/onednn_gemm -ldnnl -lopenblas
//   OPENBLAS_CORETYPE=SkylakeX /tmp/onednn_gemm
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

struct Shape {
  int k, n;  // in, out
};

}  // namespace

int main() {
  using namespace dnnl;
  omp_set_num_threads(1);
  openblas_set_num_threads(1);
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const Shape shapes[] = {{256, 768}, {256, 256}, {256, 1024}, {1024, 256}};  // qkv, out, ffn
  for (int M : {512, 2048}) {
    double flops = 0, t_blas = 0, t_dnnl = 0;
    for (const Shape sh : shapes) {
      std::vector<float> x(size_t(M) * sh.k), w(size_t(sh.n) * sh.k, 0.02f), y(size_t(M) * sh.n),
          b(sh.n, 0.1f);
      for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7) * 0.01f;
      const int reps = int(4e9 / (2.0 * M * sh.k * sh.n)) + 1;

      auto t0 = clock_type::now();
      for (int r = 0; r < reps; ++r) {
        for (int i = 0; i < M; ++i) std::memcpy(&y[size_t(i) * sh.n], b.data(), 4 * sh.n);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, sh.n, sh.k, 1.f, x.data(), sh.k,
                    w.data(), sh.k, 1.f, y.data(), sh.n);
      }
      const double dt_blas = seconds_since(t0);
      const std::vector<float> y_blas = y;

      // Weights as a (K, N) matrix with W's row-major (N, K) strides: format "ba".
      const memory::desc src_md({M, sh.k}, memory::data_type::f32, memory::format_tag::ab);
      const memory::desc w_user({sh.k, sh.n}, memory::data_type::f32, memory::format_tag::ba);
      const memory::desc w_any({sh.k, sh.n}, memory::data_type::f32, memory::format_tag::any);
      const memory::desc b_md({1, sh.n}, memory::data_type::f32, memory::format_tag::ab);
      const memory::desc dst_md({M, sh.n}, memory::data_type::f32, memory::format_tag::ab);
      const matmul::primitive_desc pd(matmul::desc(src_md, w_any, b_md, dst_md), eng);
      memory wu(w_user, eng, w.data()), wp(pd.weights_desc(), eng);
      reorder(wu, wp).execute(s, wu, wp);
      s.wait();
      memory sm(src_md, eng, x.data()), bm(b_md, eng, b.data()), dm(dst_md, eng, y.data());
      const matmul mm(pd);
      t0 = clock_type::now();
      for (int r = 0; r < reps; ++r)
        mm.execute(s, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wp}, {DNNL_ARG_BIAS, bm},
                       {DNNL_ARG_DST, dm}});
      s.wait();
      const double dt_dnnl = seconds_since(t0);

      double max_diff = 0;
      for (size_t i = 0; i < y.size(); ++i)
        max_diff = std::max(max_diff, double(std::abs(y[i] - y_blas[i])));
      const double f = 2.0 * M * sh.k * sh.n * reps;
      flops += f, t_blas += dt_blas, t_dnnl += dt_dnnl;
      std::printf("M=%d K=%d N=%d  openblas %.1f GFLOP/s  onednn %.1f GFLOP/s  max diff %.2g  (%s)\n",
                  M, sh.k, sh.n, f / dt_blas / 1e9, f / dt_dnnl / 1e9, max_diff,
                  pd.impl_info_str());
    }
    std::printf("M=%d layer mix: openblas %.1f GFLOP/s, onednn %.1f GFLOP/s\n", M,
                flops / t_blas / 1e9, flops / t_dnnl / 1e9);
  }
}
