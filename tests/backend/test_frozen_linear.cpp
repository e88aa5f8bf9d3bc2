// Linear with frozen weights (oneDNN, or cblas without it) against a plain double-precision loop:
// the encoder's shapes and odd ones, one row to many, outside and inside a parallel region.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/frozen_linear.h"
#include "backend/ops.h"
#include "test_util.h"

namespace ops = bb::ops;
using bb::test::random_floats;

namespace {

// Largest |y - x W^T - bias| over the largest |x W^T + bias|, the reference in double.
double max_rel_error(const std::vector<float>& y, const std::vector<float>& x,
                     const std::vector<float>& W, const std::vector<float>& bias, int N, int in,
                     int out) {
  double worst = 0, scale = 1e-30;
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < out; ++o) {
      double ref = bias[o];
      for (int i = 0; i < in; ++i) ref += double(x[size_t(n) * in + i]) * W[size_t(o) * in + i];
      worst = bb::test::worse(worst, std::abs(ref - y[size_t(n) * out + o]));
      scale = std::max(scale, std::abs(ref));
    }
  return worst / scale;
}

struct Shape {
  int in, out;
};

}  // namespace

TEST_CASE("frozen linear equals x W^T + bias for the encoder's shapes and odd ones") {
  INFO("backend: " << ops::frozen_linear_backend());
  // qkv, attention out, FFN in and out of a small model; the tied decoder; odd sizes
  for (const Shape s : {Shape{64, 192}, Shape{64, 64}, Shape{64, 256}, Shape{256, 64},
                        Shape{64, 1000}, Shape{13, 7}, Shape{1, 5}}) {
    const auto W = random_floats(int64_t(s.out) * s.in, 1);
    const auto bias = random_floats(s.out, 2);
    auto frozen = ops::freeze_linear(W.data(), s.in, s.out);
    for (int N : {1, 3, 64, 257, 64}) {  // 64 twice: its cached kernel runs again
      CAPTURE(s.in);
      CAPTURE(s.out);
      CAPTURE(N);
      const auto x = random_floats(int64_t(N) * s.in, uint64_t(N));
      std::vector<float> y(size_t(N) * s.out, 99.f);
      ops::linear_frozen_forward(y.data(), x.data(), *frozen, bias.data(), N);
      CHECK(max_rel_error(y, x, W, bias, N, s.in, s.out) < 1e-5);
    }
  }
}

TEST_CASE("frozen linear: one copy per thread, used inside a parallel region") {
  const int in = 96, out = 160, N = 40, T = 2;
  const auto W = random_floats(int64_t(out) * in, 3);
  const auto bias = random_floats(out, 4);
  const auto x = random_floats(int64_t(N) * in, 5);
  std::vector<std::vector<float>> y(T, std::vector<float>(size_t(N) * out));
  // As the scorer does: each thread freezes its own copy and runs whole products with it.
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num();
    auto frozen = ops::freeze_linear(W.data(), in, out);
    for (int rep = 0; rep < 3; ++rep)
      ops::linear_frozen_forward(y[t].data(), x.data(), *frozen, bias.data(), N);
  }
  for (int t = 0; t < T; ++t) CHECK(max_rel_error(y[t], x, W, bias, N, in, out) < 1e-5);
  CHECK(y[0] == y[1]);  // the same kernel on the same data: the same bits
}

TEST_CASE("frozen linear over no rows writes nothing") {
  const std::vector<float> W(6, 1.f), bias(3, 1.f);
  auto frozen = ops::freeze_linear(W.data(), 2, 3);
  float y = 42.f;
  ops::linear_frozen_forward(&y, nullptr, *frozen, bias.data(), 0);
  CHECK(y == 42.f);
}
