// ops::gemm<float> against a plain double loop, for every transpose pair, alpha and beta: the
// products run on oneDNN's sgemm or, with A transposed (the weight gradients), on OpenBLAS when
// its kernels are full width (backend/cpu/blas_core.h); ctest runs this file once more with
// OPENBLAS_CORETYPE=Prescott, where they stay on oneDNN, so both paths are covered. And the check
// of a forced core the CPU cannot run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cpu/blas_core.h"
#include "backend/ops.h"
#include "test_util.h"

namespace ops = bb::ops;
using bb::test::random_floats;

namespace {

// C(M,N) = alpha op(A) op(B) + beta C, row-major, op(A) is (M,K): A is (K,M) when ta, B (N,K) when tb.
std::vector<double> reference(bool ta, bool tb, int M, int N, int K, float alpha,
                              const std::vector<float>& A, const std::vector<float>& B, float beta,
                              const std::vector<float>& C) {
  std::vector<double> out(size_t(M) * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
        const double a = ta ? A[size_t(k) * M + m] : A[size_t(m) * K + k];
        const double b = tb ? B[size_t(n) * K + k] : B[size_t(k) * N + n];
        s += a * b;
      }
      out[size_t(m) * N + n] = double(alpha) * s + double(beta) * C[size_t(m) * N + n];
    }
  return out;
}

struct Case {
  int M, N, K;
};

}  // namespace

TEST_CASE("float gemm equals a double loop for every transpose, alpha and beta") {
  // The training step's weight-gradient shapes (out, in, tokens), its forward ones, and odd ones.
  const Case cases[] = {{256, 256, 144}, {1024, 256, 37}, {21, 512, 256}, {1, 1, 1}, {7, 13, 5},
                        {33, 65, 129}};
  uint64_t seed = 1;
  for (const Case& c : cases)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.f, 1.f}) {
          const float alpha = beta == 0.f ? 1.f : 0.5f;
          const auto A = random_floats(int64_t(c.M) * c.K, seed++);
          const auto B = random_floats(int64_t(c.K) * c.N, seed++);
          auto C = random_floats(int64_t(c.M) * c.N, seed++);
          const auto ref = reference(ta, tb, c.M, c.N, c.K, alpha, A, B, beta, C);
          ops::gemm<float>(ta, tb, c.M, c.N, c.K, alpha, A.data(), ta ? c.M : c.K, B.data(),
                           tb ? c.K : c.N, beta, C.data(), c.N);
          double worst = 0;
          for (size_t i = 0; i < ref.size(); ++i)
            worst = bb::test::worse(worst, std::abs(ref[i] - C[i]) / (1.0 + std::abs(ref[i])));
          INFO("M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << ta << " tb=" << tb
                    << " beta=" << beta);
          CHECK(worst < 1e-5 * std::sqrt(double(c.K)));
        }
}

TEST_CASE("weight gradients run on OpenBLAS when its kernels are as wide as the CPU's") {
  // The test binary, like babyberta, chooses the core from cpuid when the variable is unset
  // (tests/main.cpp), so there OpenBLAS runs full width on any x86-64 CPU with AVX2 or AVX-512.
  // ctest also runs this file with OPENBLAS_CORETYPE=Prescott (test_backend_narrow_blas), where
  // every float product, the weight gradients too, must stay on oneDNN.
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  const bool ours = !set || std::getenv("BABYBERTA_BLAS_CORE_FROM_CPUID");
  if (ours && bb::blas_core_for_this_cpu()) CHECK(bb::openblas_full_width());
  if (set && std::string(set) == "Prescott") CHECK_FALSE(bb::openblas_full_width());
}

TEST_CASE("a forced OpenBLAS core the CPU cannot run is named, one the CPU runs is not") {
  bb::CpuFeatures zen3;  // AVX2 + FMA, no AVX-512, no FMA4
  zen3.avx = zen3.avx2_fma = true;
  bb::CpuFeatures old_amd;  // AVX + FMA4 (Bulldozer to Excavator)
  old_amd.avx = old_amd.fma4 = true;
  const bb::CpuFeatures sse_only;
  bb::CpuFeatures xeon = zen3;
  xeon.avx512 = true;
  using bb::unsupported_core_message;
  CHECK(unsupported_core_message(nullptr, "SkylakeX", zen3).empty());  // unset: OpenBLAS's choice
  const std::string skx = unsupported_core_message("skylakex", "SkylakeX", zen3);
  CHECK(skx.find("OPENBLAS_CORETYPE=skylakex") != std::string::npos);
  CHECK(skx.find("AVX-512") != std::string::npos);
  CHECK(skx.find("set it to Haswell") != std::string::npos);
  CHECK(unsupported_core_message("SkylakeX", "SkylakeX", xeon).empty());
  CHECK(unsupported_core_message("Cooperlake", "Haswell", zen3).empty());  // not forceable: fell back
  CHECK(unsupported_core_message("nonsense", "Haswell", zen3).empty());    // unknown: OpenBLAS's own
  CHECK(unsupported_core_message("Haswell", "Haswell", zen3).empty());
  CHECK(unsupported_core_message("Zen", "Zen", xeon).empty());
  CHECK(unsupported_core_message("Prescott", "Prescott", sse_only).empty());
  CHECK(unsupported_core_message("Bulldozer", "Bulldozer", zen3).find("FMA4") != std::string::npos);
  CHECK(unsupported_core_message("Piledriver", "Piledriver", old_amd).empty());
  CHECK(unsupported_core_message("Sandybridge", "Sandybridge", sse_only).find("AVX") !=
        std::string::npos);
  const std::string haswell_on_sse = unsupported_core_message("Haswell", "Haswell", sse_only);
  CHECK(haswell_on_sse.find("AVX2 and FMA") != std::string::npos);
  CHECK(haswell_on_sse.find("set it to") == std::string::npos);  // nothing better to suggest
}
