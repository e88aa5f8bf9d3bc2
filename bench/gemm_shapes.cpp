// The training step's GEMMs one shape at a time (babyberta preset: hidden 256, FFN 1024, vocab
// 8192; N tokens, M masked rows): OpenBLAS's cblas_sgemm, oneDNN's matmul primitive (brgemm, plain
// layouts, created once per shape) and oneDNN's dnnl_sgemm (what cpu::gemm<float> calls, except
// for A transposed where OpenBLAS runs full-width kernels). Outside the build; best of 5 windows of
// 0.1 s each:
//   g++ -O2 -std=c++20 bench/gemm_shapes.cpp -I/usr/include/x86_64-linux-gnu/openblas-openmp
//     -L/usr/lib/x86_64-linux-gnu/openblas-openmp -lopenblas -ldnnl -fopenmp -o /tmp/gemm_shapes
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 /tmp/gemm_shapes [N] [M]
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <vector>
using namespace dnnl;
using Tag = memory::format_tag;
struct Shape {
  const char* name;
  bool ta, tb;
  int M, N, K;
};
int main(int argc, char** argv) {
  int Ntok = argc > 1 ? atoi(argv[1]) : 144, Mrows = argc > 2 ? atoi(argv[2]) : 21;
  std::vector<Shape> shapes;
  int C = 256, F = 1024, V = 8192;
  auto add = [&](const char* n, int out, int in, int R) {
    shapes.push_back({n, false, true, R, out, in});   // fwd y = x W^T
    shapes.push_back({n, false, false, R, in, out});  // dx = dy W
    shapes.push_back({n, true, false, out, in, R});   // dW = dy^T x
  };
  add("qkv", 3 * C, C, Ntok);
  add("attn_out", C, C, Ntok);
  add("ffn_in", F, C, Ntok);
  add("ffn_out", C, F, Ntok);
  add("decoder", V, C, Mrows);
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  double tb_all = 0, td_all = 0, ts_all = 0;
  for (auto& sh : shapes) {
    int M = sh.M, N = sh.N, K = sh.K;
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), Cm(size_t(M) * N);
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    int lda = sh.ta ? M : K, ldb = sh.tb ? K : N;
    float beta = sh.ta ? 1.f : 0.f;  // dW accumulates
    auto t_blas = [&] {
      cblas_sgemm(CblasRowMajor, sh.ta ? CblasTrans : CblasNoTrans,
                  sh.tb ? CblasTrans : CblasNoTrans, M, N, K, 1.f, A.data(), lda, B.data(), ldb,
                  beta, Cm.data(), N);
    };
    memory::desc ad({M, K}, memory::data_type::f32, sh.ta ? Tag::ba : Tag::ab);
    memory::desc bd({K, N}, memory::data_type::f32, sh.tb ? Tag::ba : Tag::ab);
    memory::desc cd({M, N}, memory::data_type::f32, Tag::ab);
    primitive_attr attr;
    if (beta == 1.f) {
      post_ops po;
      po.append_sum(1.f);
      attr.set_post_ops(po);
    }
    matmul::primitive_desc pd(matmul::desc(ad, bd, cd), attr, eng);
    matmul mm(pd);
    memory am(ad, eng, A.data()), bm(bd, eng, B.data()), cm(cd, eng, Cm.data());
    auto t_dnnl = [&] {
      mm.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
      s.wait();
    };
    auto t_sg = [&] {
      dnnl_sgemm(sh.ta ? 'T' : 'N', sh.tb ? 'T' : 'N', M, N, K, 1.f, A.data(), lda, B.data(), ldb,
                 beta, Cm.data(), N);
    };
    auto timeit = [&](auto f) {
      for (int i = 0; i < 5; ++i) f();
      double best = 1e9;
      for (int r = 0; r < 5; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        int it = 0;
        double el;
        do {
          f();
          ++it;
          el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } while (el < 0.1);
        best = std::min(best, el / it);
      }
      return best;
    };
    double tb = timeit(t_blas), td = timeit(t_dnnl), ts = timeit(t_sg);
    ts_all += ts;
    tb_all += tb;
    td_all += td;
    double fl = 2.0 * M * N * K;
    printf(
        "%-9s %s%s M=%5d N=%5d K=%5d  blas %6.1f GF/s  brgemm %6.1f GF/s  dnnl_sgemm %6.1f GF/s\n",
        sh.name, sh.ta ? "T" : "N", sh.tb ? "T" : "N", M, N, K, fl / tb / 1e9, fl / td / 1e9,
        fl / ts / 1e9);
  }
  printf("total blas %.1f us brgemm %.1f us sgemm %.1f us\n", tb_all * 1e6, td_all * 1e6,
         ts_all * 1e6);
}
