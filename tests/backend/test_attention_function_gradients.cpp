// Attention functions: hand-computed rows (a padded key, a zero score, a negative score)
// and finite-difference gradients for dS and every trainable value, with padding, for all seven.
// The five functions beyond softmax and SSA on literal rows: test_attention_function_literals.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "backend/ops.h"
#include "grad_check.h"

using bb::AttentionFunction;

TEST_CASE("softmax on a hand-computed row with a padded key") {
  // s = [1, 0, -2, 5(padded)] -> exp / sum over the three valid keys
  const double S[4] = {1.0, 0.0, -2.0, 5.0};
  const uint8_t valid[4] = {1, 1, 1, 0};
  double P[4];
  bb::ops::attention_function_forward<double>(P, S, valid, 1, 4, AttentionFunction::softmax, 0, 0);
  CHECK(P[0] == doctest::Approx(0.7053845126982411).epsilon(1e-12));
  CHECK(P[1] == doctest::Approx(0.2594964603424191).epsilon(1e-12));
  CHECK(P[2] == doctest::Approx(0.03511902695933972).epsilon(1e-12));
  CHECK(P[3] == 0.0);
}

TEST_CASE("ssa on hand-computed rows: f(x) = (1 + b|x|)^(sign(x) n), padded key exactly 0") {
  const double S[4] = {1.0, 0.0, -2.0, 5.0};
  const uint8_t valid[4] = {1, 1, 1, 0};
  double P[4];
  // b = 1, n = 2: f = [4, 1, 1/9] -> [36/46, 9/46, 1/46]
  bb::ops::attention_function_forward<double>(P, S, valid, 1, 4, AttentionFunction::ssa, 1.0, 2.0);
  CHECK(P[0] == doctest::Approx(36.0 / 46).epsilon(1e-12));
  CHECK(P[1] == doctest::Approx(9.0 / 46).epsilon(1e-12));
  CHECK(P[2] == doctest::Approx(1.0 / 46).epsilon(1e-12));
  CHECK(P[3] == 0.0);
  // b = 0.5, n = 1.5: f = [1.5^1.5, 1, 2^-1.5]
  bb::ops::attention_function_forward<double>(P, S, valid, 1, 4, AttentionFunction::ssa, 0.5, 1.5);
  CHECK(P[0] == doctest::Approx(0.5757777850352308).epsilon(1e-12));
  CHECK(P[1] == doctest::Approx(0.3134137285702701).epsilon(1e-12));
  CHECK(P[2] == doctest::Approx(0.110808486394499).epsilon(1e-12));
  CHECK(P[3] == 0.0);
}

TEST_CASE("ssa is not shift-invariant and stays finite at extreme scores") {
  const float a[3] = {1.f, 0.f, -2.f}, shifted[3] = {11.f, 10.f, 8.f};
  float pa[3], ps[3];
  bb::ops::attention_function_forward<float>(pa, a, nullptr, 1, 3, AttentionFunction::ssa, 1.f,
                                             2.f);
  bb::ops::attention_function_forward<float>(ps, shifted, nullptr, 1, 3, AttentionFunction::ssa,
                                             1.f, 2.f);
  CHECK(std::abs(pa[0] - ps[0]) > 0.1f);
  const float big[3] = {1e30f, -1e30f, 0.f};
  float pb[3];
  bb::ops::attention_function_forward<float>(pb, big, nullptr, 1, 3, AttentionFunction::ssa, 1.f,
                                             1.5f);
  for (float p : pb) CHECK(std::isfinite(p));
  CHECK(pb[0] == doctest::Approx(1.0f));
}

TEST_CASE("scoring gradients match central finite differences (with padded keys)") {
  const int R = 3, L = 6;
  const std::vector<uint8_t> valid = {1, 1, 0, 1, 1, 0};
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    CAPTURE(int(kind));
    std::vector<double> S = bb::test::random_vector(R * L, 1, -3, 3);
    if (kind == AttentionFunction::cosformer)  // scores of ReLU features: >= 0
      for (double& x : S) x = std::abs(x);
    S[1] = 0.0;               // a zero score: the derivative there is n b from both sides
    S[3] = 2.5, S[4] = -1.0;  // the zero is neither the row's max nor its min: sa-softmax has
                              // kinks at hi = max(0, max s) = 0 and lo = min(0, min s) = 0
    const std::vector<double> w = bb::test::random_vector(R * L, 2);
    // v0, v1: ssa's b, n; softmax-t's tau (and an unused second value)
    std::vector<double> v = {0.7, 1.8};
    std::vector<double> P(R * L), dS(R * L);
    auto loss = [&] {
      bb::ops::attention_function_forward<double>(P.data(), S.data(), valid.data(), R, L, kind,
                                                  v[0], v[1]);
      return bb::test::dot(w, P.data());
    };
    loss();
    double dv0 = 0, dv1 = 0;
    bb::ops::attention_function_backward<double>(dS.data(), &dv0, &dv1, w.data(), P.data(),
                                                 S.data(), valid.data(), R, L, kind, v[0], v[1]);
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < L; ++j)
        if (!valid[j]) CHECK(dS[r * L + j] == 0.0);
    // 1e-5: at s = 0, ssa's t is C1 but not C2, so the difference quotient is off by about b h / 2.
    CHECK(bb::test::fd_max_rel_error(S, dS, loss) < 1e-5);
    // An unused value: the loss does not move with it, and its gradient is exactly 0.
    const std::vector<double> dv = {dv0, dv1};
    CHECK(bb::test::fd_max_rel_error(v, dv, loss) < 1e-6);
    if (bb::head_value_count(kind) < 2) CHECK(dv1 == 0.0);
    if (bb::head_value_count(kind) < 1) CHECK(dv0 == 0.0);
  }
}

// Causal rows (the ICL model's attention): row r is exactly the function of its first r + 1 keys,
// the rest get weight 0 and gradient 0, and the gradients match finite differences.
TEST_CASE("causal rows: each row is its prefix, masked keys get weight 0 and no gradient") {
  const int R = 5, L = 5;
  const std::vector<uint8_t> valid = {1, 1, 0, 1, 1};
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    CAPTURE(int(kind));
    std::vector<double> S = bb::test::random_vector(R * L, 3, -3, 3);
    if (kind == AttentionFunction::cosformer)
      for (double& x : S) x = std::abs(x);
    const std::vector<double> w = bb::test::random_vector(R * L, 4);
    std::vector<double> v = {0.7, 1.8}, P(R * L), dS(R * L);
    auto loss = [&] {
      bb::ops::attention_function_forward<double>(P.data(), S.data(), valid.data(), R, L, kind,
                                                  v[0], v[1], true);
      return bb::test::dot(w, P.data());
    };
    loss();
    double dv0 = 0, dv1 = 0;
    bb::ops::attention_function_backward<double>(dS.data(), &dv0, &dv1, w.data(), P.data(),
                                                 S.data(), valid.data(), R, L, kind, v[0], v[1],
                                                 true);
    for (int r = 0; r < R; ++r) {
      std::vector<double> p(r + 1), g(w.begin() + r * L, w.begin() + r * L + r + 1), ds(r + 1);
      // A one-row block of r + 1 keys; cosformer's query index is the row's own, r.
      std::vector<double> Sp(L * (r + 1), 0.0), Pp(L * (r + 1)), dSp(L * (r + 1));
      std::vector<double> wp(L * (r + 1), 0.0);
      for (int j = 0; j <= r; ++j) Sp[r * (r + 1) + j] = S[r * L + j], wp[r * (r + 1) + j] = g[j];
      // rows 0..r of width r + 1, causal: row r sees all of its r + 1 keys
      bb::ops::attention_function_forward<double>(Pp.data(), Sp.data(), valid.data(), r + 1,
                                                  r + 1, kind, v[0], v[1], false);
      for (int j = 0; j < L; ++j) {
        CAPTURE(r);
        CAPTURE(j);
        if (j > r || !valid[j]) {
          CHECK(P[r * L + j] == 0.0);
          CHECK(dS[r * L + j] == 0.0);
        } else {
          CHECK(P[r * L + j] == doctest::Approx(Pp[r * (r + 1) + j]).epsilon(1e-12));
        }
      }
    }
    CHECK(bb::test::fd_max_rel_error(S, dS, loss) < 1e-5);
    const std::vector<double> dv = {dv0, dv1};
    CHECK(bb::test::fd_max_rel_error(v, dv, loss) < 1e-6);
  }
}
