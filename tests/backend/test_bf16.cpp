// --precision bf16 (backend/precision.h): the rounding, and the linear layers' bf16 products
// (forward, input gradient, weight gradient, frozen) against a double-precision reference over the
// same bf16-rounded inputs. Each product of two bf16 values is exact in fp32, so the only error
// left is fp32 accumulation: the bound is fp32's, not bf16's. Skipped where the CPU has no bf16.
#include <doctest/doctest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/bf16_gemm.h"
#include "backend/frozen_linear.h"
#include "backend/ops.h"
#include "backend/precision.h"
#include "test_util.h"

namespace {

using bb::from_bf16;
using bb::to_bf16;
using bb::test::random_floats;

float round_bf16(float x) { return from_bf16(to_bf16(x)); }

std::vector<float> rounded(std::vector<float> v) {
  for (float& x : v) x = round_bf16(x);
  return v;
}

// Largest |got - want| over the largest |want|.
double rel_error(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0, scale = 1e-30;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = bb::test::worse(worst, std::abs(double(got[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return worst / scale;
}

bool have_bf16() {
  if (!bb::bf16_isa().empty()) return true;
  MESSAGE("skipped: this CPU has no AMX-BF16 or AVX512-BF16 (or the build no oneDNN)");
  return false;
}

}  // namespace

TEST_CASE("to_bf16 rounds to nearest, ties to even, and keeps NaN, infinities and signs") {
  CHECK(to_bf16(1.0f) == 0x3f80);
  CHECK(to_bf16(-2.0f) == 0xc000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to the even mantissa (1)
  CHECK(to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up
  CHECK(to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);
  // just above the halfway point: up
  CHECK(to_bf16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)) == 0x3f81);
  CHECK(to_bf16(std::numeric_limits<float>::infinity()) == 0x7f80);
  CHECK(std::isnan(from_bf16(to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  // a NaN whose payload sits in the low bits only stays a NaN (not infinity)
  CHECK(std::isnan(from_bf16(to_bf16(std::bit_cast<float>(0x7f800001u)))));
  // the largest finite float rounds to infinity, as round-to-nearest says
  CHECK(to_bf16(std::numeric_limits<float>::max()) == 0x7f80);
  for (float x : {0.f, 1e-3f, 3.14159f, -65504.f, 1e30f}) CHECK(round_bf16(round_bf16(x)) == round_bf16(x));
}

TEST_CASE("to_bf16 over a buffer: the scalar rule at every length, below and above the parallel cut") {
  // Lengths around the vector width and both sides of the 65,536 at which the cast goes parallel
  // (below it, it once ran one value at a time: same bits, so only this and bench could tell).
  for (const int64_t n : {int64_t(1), int64_t(15), int64_t(17), int64_t(36864), int64_t(65537),
                          int64_t(70001)}) {
    CAPTURE(n);
    std::vector<float> x = random_floats(n, 21);
    x[0] = std::numeric_limits<float>::quiet_NaN();
    if (n > 3) {
      x[1] = -std::numeric_limits<float>::infinity();
      x[2] = 1.0f + std::ldexp(1.0f, -8);  // a tie: to even
      x[3] = std::bit_cast<float>(0xff800001u);  // a signalling NaN with its sign
    }
    std::vector<uint16_t> got(static_cast<size_t>(n));
    to_bf16(got.data(), x.data(), n);
    bool same = true;
    for (int64_t i = 0; i < n; ++i) same &= got[size_t(i)] == to_bf16(x[size_t(i)]);
    CHECK(same);
  }
}

TEST_CASE("bf16 products from several threads at once: each thread's cached kernels, the same bits") {
  if (!have_bf16()) return;
  // Products also run inside parallel regions (one thread each); every thread keeps its own
  // kernels and memory objects. Three shapes, each computed by every thread four times.
  struct Shape {
    int M, N, K;
  };
  const Shape shapes[] = {{145, 256, 1024}, {7, 768, 256}, {64, 192, 64}};
  std::vector<std::vector<uint16_t>> A, B;
  std::vector<std::vector<float>> serial;
  for (int s = 0; s < 3; ++s) {
    const auto [M, N, K] = shapes[s];
    const auto a = random_floats(int64_t(M) * K, 30 + s), b = random_floats(int64_t(K) * N, 40 + s);
    A.emplace_back(a.size()), B.emplace_back(b.size());
    to_bf16(A.back().data(), a.data(), int64_t(a.size()));
    to_bf16(B.back().data(), b.data(), int64_t(b.size()));
    serial.emplace_back(size_t(M) * N, 0.f);
    bb::cpu::gemm_bf16(false, false, M, N, K, A[s].data(), K, B[s].data(), N, false,
                       serial.back().data(), N);
  }
  constexpr int kThreads = 4;
  std::vector<std::vector<float>> got(kThreads * 12);
#pragma omp parallel for num_threads(kThreads) schedule(static, 1)
  for (int job = 0; job < kThreads * 12; ++job) {
    const int s = job % 3;
    const auto [M, N, K] = shapes[s];
    got[size_t(job)].assign(size_t(M) * N, 0.f);
    bb::cpu::gemm_bf16(false, false, M, N, K, A[s].data(), K, B[s].data(), N, false,
                       got[size_t(job)].data(), N);
  }
  for (int job = 0; job < kThreads * 12; ++job) {
    CAPTURE(job);
    CHECK(got[size_t(job)] == serial[size_t(job % 3)]);
  }
}

TEST_CASE("bf16 linear layers: forward, input and weight gradients, frozen, against double") {
  if (!have_bf16()) return;
  INFO("bf16 isa: " << bb::bf16_isa() << ", kernel: " << bb::bf16_kernel());
  struct Shape {
    int N, in, out;
  };
  for (const Shape s : {Shape{192, 256, 768}, Shape{145, 1024, 256}, Shape{7, 13, 5},
                        Shape{1, 64, 8192}, Shape{64, 64, 192}}) {
    CAPTURE(s.N);
    CAPTURE(s.in);
    CAPTURE(s.out);
    const int N = s.N, in = s.in, out = s.out;
    std::vector<float> params = random_floats(int64_t(out) * in + out, 11);  // W, then bias
    const float* W = params.data();
    const float* bias = params.data() + int64_t(out) * in;
    const auto x = random_floats(int64_t(N) * in, 12), dy = random_floats(int64_t(N) * out, 13);
    const auto Wr = rounded({params.begin(), params.begin() + int64_t(out) * in});
    const auto xr = rounded(x), dyr = rounded(dy);

    bb::LowPrecisionWeights copy;
    copy.refresh(params.data(), int64_t(params.size()));
    std::vector<float> y(size_t(N) * out), dx(size_t(N) * in), dW(size_t(out) * in, 0.5f),
        dbias(size_t(out), 0.25f);
    {
      const bb::PrecisionScope scope(&copy);
      bb::ops::linear_forward<float>(y.data(), x.data(), W, bias, N, in, out);
      bb::ops::linear_backward<float>(dx.data(), dW.data(), dbias.data(), dy.data(), x.data(), W,
                                      N, in, out);
    }
    std::vector<double> y_ref(y.size()), dx_ref(dx.size()), dW_ref(dW.size(), 0.5),
        dbias_ref(dbias.size(), 0.25);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < out; ++o) {
        double acc = bias[o];
        for (int i = 0; i < in; ++i) acc += double(xr[size_t(n) * in + i]) * Wr[size_t(o) * in + i];
        y_ref[size_t(n) * out + o] = acc;
      }
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < in; ++i) {
        double acc = 0;
        for (int o = 0; o < out; ++o) acc += double(dyr[size_t(n) * out + o]) * Wr[size_t(o) * in + i];
        dx_ref[size_t(n) * in + i] = acc;
      }
    for (int o = 0; o < out; ++o) {
      for (int i = 0; i < in; ++i) {
        double acc = 0;
        for (int n = 0; n < N; ++n) acc += double(dyr[size_t(n) * out + o]) * xr[size_t(n) * in + i];
        dW_ref[size_t(o) * in + i] += acc;
      }
      for (int n = 0; n < N; ++n) dbias_ref[size_t(o)] += dy[size_t(n) * out + o];  // fp32 dy
    }
    CHECK(rel_error(y, y_ref) < 1e-5);
    CHECK(rel_error(dx, dx_ref) < 1e-5);
    CHECK(rel_error(dW, dW_ref) < 1e-5);
    CHECK(rel_error(dbias, dbias_ref) < 1e-5);

    // the frozen (inference) product rounds W the same way
    auto frozen = bb::ops::freeze_linear(W, in, out, bb::Precision::bf16);
    std::vector<float> yf(y.size());
    bb::ops::linear_frozen_forward(yf.data(), x.data(), *frozen, bias, N);
    CHECK(rel_error(yf, y_ref) < 1e-5);

    // and outside the scope, or for a weight outside the copied buffer, the product is fp32's
    std::vector<float> y32(y.size());
    bb::ops::linear_forward<float>(y32.data(), x.data(), W, bias, N, in, out);
    std::vector<float> W2(W, W + int64_t(out) * in), y_out(y.size());
    {
      const bb::PrecisionScope scope(&copy);
      bb::ops::linear_forward<float>(y_out.data(), x.data(), W2.data(), bias, N, in, out);
    }
    CHECK(y_out == y32);
    if (in >= 64) CHECK(y32 != y);  // bf16 differs from fp32 where there is enough to round
  }
}

TEST_CASE("--precision: names, and what a machine without bf16 or a GPU is told") {
  CHECK(bb::parse_precision("fp32") == bb::Precision::fp32);
  CHECK(bb::parse_precision("bf16") == bb::Precision::bf16);
  CHECK_THROWS_WITH(bb::parse_precision("fp16"),
                    doctest::Contains("--precision: unknown precision 'fp16' (expected fp32 or bf16)"));
  CHECK_NOTHROW(bb::require_precision(bb::Precision::fp32, bb::Device::cuda));
  CHECK_THROWS_AS(bb::require_precision(bb::Precision::bf16, bb::Device::cuda), bb::UsageError);
  if (bb::bf16_isa().empty())
    CHECK_THROWS_WITH_AS(bb::require_precision(bb::Precision::bf16, bb::Device::cpu),
                         doctest::Contains("use --precision fp32"), bb::UsageError);
  else
    CHECK_NOTHROW(bb::require_precision(bb::Precision::bf16, bb::Device::cpu));
}

TEST_CASE("adamw_update_with_bf16_copy: the update bit for bit, and the copy its rounding") {
  const int64_t n = 100003;  // above the parallel threshold, odd
  const auto p0 = random_floats(n, 21), g = random_floats(n, 22), m0 = random_floats(n, 23, 0, 0.1);
  const auto v0 = random_floats(n, 24, 0, 0.01);
  auto p1 = p0, m1 = m0, v1 = v0, p2 = p0, m2 = m0, v2 = v0;
  const bb::ops::AdamWSchedule schedule{1e-3, 7.0, 4.0};  // lr, step, sum of squares
  const bb::ops::AdamWStep s{0.9f, 0.999f, 1e-6f, 0.01f, 1.0, 1.0, true};
  bb::ops::adamw_update(p1.data(), g.data(), m1.data(), v1.data(), n, s, &schedule);
  std::vector<uint16_t> low(size_t(n), 0);
  bb::ops::adamw_update_with_bf16_copy(p2.data(), g.data(), m2.data(), v2.data(), n, s, &schedule,
                                       low.data());
  CHECK(p1 == p2);
  CHECK(m1 == m2);
  CHECK(v1 == v2);
  bool rounded = true;
  for (int64_t i = 0; i < n; ++i) rounded &= low[size_t(i)] == to_bf16(p2[size_t(i)]);
  CHECK(rounded);
}
