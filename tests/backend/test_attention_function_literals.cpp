// The five scoring functions beyond softmax and SSA on literal rows: a padded key, a tie, a zero
// and a negative score (expected values computed by hand / in double precision from the
// published formulas), rows of equal scores, and all-padded rows. Gradients:
// test_attention_function_gradients.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "backend/ops.h"

using bb::AttentionFunction;

namespace {

// One row s = [1, 1, 0, -2, 5 (padded)]: a tie at the top, a zero and a negative score.
const double kRow[5] = {1.0, 1.0, 0.0, -2.0, 5.0};
const uint8_t kValid[5] = {1, 1, 1, 1, 0};

std::vector<double> score(AttentionFunction kind, const double* s, const uint8_t* valid, int R,
                          int L, double v0 = 0, double v1 = 0) {
  std::vector<double> p(size_t(R) * L, -1.0);
  bb::ops::attention_function_forward<double>(p.data(), s, valid, R, L, kind, v0, v1);
  return p;
}

void check_row(const std::vector<double>& p, const std::vector<double>& expected) {
  REQUIRE(p.size() == expected.size());
  for (size_t j = 0; j < p.size(); ++j) {
    CAPTURE(j);
    if (expected[j] == 0.0)
      CHECK(p[j] == 0.0);  // exactly: padded keys and keys outside a sparse support
    else
      CHECK(p[j] == doctest::Approx(expected[j]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("softmax-t: softmax(s / tau), padded key exactly 0") {
  // tau = 2: softmax([0.5, 0.5, 0, -1])
  check_row(score(AttentionFunction::softmax_t, kRow, kValid, 1, 5, 2.0),
            {0.3533992459382818, 0.3533992459382818, 0.21434747778089325, 0.07885403034254315, 0});
  // tau = 1 is softmax
  const auto t1 = score(AttentionFunction::softmax_t, kRow, kValid, 1, 5, 1.0);
  const auto sm = score(AttentionFunction::softmax, kRow, kValid, 1, 5);
  for (int j = 0; j < 5; ++j) CHECK(t1[j] == doctest::Approx(sm[j]).epsilon(1e-15));
}

TEST_CASE("sparsemax: the tied top pair shares the mass, the rest is exactly 0") {
  // sorted z = 1, 1, 0, -2: k = 2 (1 + 2*1 > 2, 1 + 3*0 <= 2), tau = (2 - 1)/2 = 0.5
  check_row(score(AttentionFunction::sparsemax, kRow, kValid, 1, 5), {0.5, 0.5, 0, 0, 0});
  const double far[3] = {3.0, 0.0, -1.0};  // one clear winner: one-hot
  check_row(score(AttentionFunction::sparsemax, far, nullptr, 1, 3), {1, 0, 0});
  const double near[3] = {0.2, 0.0, -0.1};  // all three in the support: tau = (0.1 - 1)/3
  check_row(score(AttentionFunction::sparsemax, near, nullptr, 1, 3),
            {0.2 + 0.3, 0.0 + 0.3, -0.1 + 0.3});
}

TEST_CASE("entmax15: the sort-based threshold on a row with a tie, a zero and a negative score") {
  // z = (s - 1)/2 = [0, 0, -0.5, -1.5]; support K = 3, tau = -1/6 - sqrt(5/18); p = (z - tau)^2
  const double tau = -1.0 / 6 - std::sqrt(5.0 / 18);
  check_row(score(AttentionFunction::entmax15, kRow, kValid, 1, 5),
            {tau * tau, tau * tau, (-0.5 - tau) * (-0.5 - tau), 0, 0});
  check_row(score(AttentionFunction::entmax15, kRow, kValid, 1, 5),
            {0.4812376477871322, 0.4812376477871322, 0.037524704425735626, 0, 0});
}

TEST_CASE("sparsemax and entmax15 on rows of equal scores: uniform over the valid keys") {
  const double equal[4] = {0.7, 0.7, 0.7, 9.0};
  const uint8_t valid[4] = {1, 1, 1, 0};
  for (AttentionFunction kind : {AttentionFunction::sparsemax, AttentionFunction::entmax15}) {
    CAPTURE(int(kind));
    check_row(score(kind, equal, valid, 1, 4), {1.0 / 3, 1.0 / 3, 1.0 / 3, 0});
  }
}

TEST_CASE(
    "sa-softmax: softmax(s) (s - lo) / (hi - lo + 1e-6); the minimum gets 0, rows do not sum to "
    "1") {
  // lo = -2, hi = 1 (the padded 5 does not count)
  const auto p = score(AttentionFunction::sa_softmax, kRow, kValid, 1, 5);
  check_row(p, {0.4136218385460163, 0.4136218385460163, 0.10144198054707534, 0, 0});
  CHECK(p[0] + p[1] + p[2] + p[3] < 0.93);
  // all scores positive: lo = 0; equal scores c: p = (1/n) c / (c + 1e-6)
  const double equal[4] = {0.5, 0.5, 0.5, 0.5};
  check_row(score(AttentionFunction::sa_softmax, equal, nullptr, 1, 4),
            {0.249999500001, 0.249999500001, 0.249999500001, 0.249999500001});
  const double zeros[3] = {0, 0, 0};  // lo = hi = 0: every weight 0
  check_row(score(AttentionFunction::sa_softmax, zeros, nullptr, 1, 3), {0, 0, 0});
}

TEST_CASE("cosformer: s c / sum, c = cos(pi (i - j) / 2M) with the row's query position i") {
  // scores of ReLU features (>= 0) with a zero; M = 4 valid keys; rows 0 and 2 are queries 0, 2
  const double s[10] = {1, 1, 0, 2, 7, 1, 1, 0, 2, 7};
  const uint8_t valid[5] = {1, 1, 1, 1, 0};
  std::vector<double> p(10);
  bb::ops::attention_function_forward<double>(p.data(), s, valid, 2, 5,
                                              AttentionFunction::cosformer, 0, 0);
  check_row({p.begin(), p.begin() + 5},
            {0.37185138595919087, 0.3435458846236513, 0, 0.28460272941715786, 0});
  // row 1 (query 1): c = cos(pi (1 - j) / 8)
  std::vector<double> c(4);
  for (int j = 0; j < 4; ++j) c[j] = std::cos(std::numbers::pi * (1 - j) / 8);
  const double Z = c[0] + c[1] + 2 * c[3];
  check_row({p.begin() + 5, p.end()}, {c[0] / Z, c[1] / Z, 0, 2 * c[3] / Z, 0});
  const double zeros[3] = {0, 0, 0};  // Z = 0 < 1e-6: all weights 0, no division by zero
  check_row(score(AttentionFunction::cosformer, zeros, nullptr, 1, 3), {0, 0, 0});
}

TEST_CASE("every function: a row whose keys are all padded is all zero, with zero gradient") {
  const double S[2] = {0.3, -0.1};
  const uint8_t valid[2] = {0, 0};
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    CAPTURE(int(kind));
    double P[2], dS[2], dP[2] = {1, 2}, dv0 = 0, dv1 = 0;
    bb::ops::attention_function_forward<double>(P, S, valid, 1, 2, kind, 1.0, 1.5);
    bb::ops::attention_function_backward<double>(dS, &dv0, &dv1, dP, P, S, valid, 1, 2, kind, 1.0,
                                                 1.5);
    CHECK(P[0] == 0.0);
    CHECK(P[1] == 0.0);
    CHECK(dS[0] == 0.0);
    CHECK(dS[1] == 0.0);
    CHECK(dv0 == 0.0);
    CHECK(dv1 == 0.0);
  }
}

TEST_CASE("sa-softmax splits lo's and hi's gradient evenly among tied extremes") {
  // Two tied minima: perturbing both together moves the loss as the sum of their gradients
  // (each gets half of lo's share); a finite difference of the pair checks the sum.
  double S[4] = {-1.0, -1.0, 0.5, 2.0};
  const double w[4] = {0.3, -0.7, 1.1, 0.4};
  auto loss = [&] {
    double P[4];
    bb::ops::attention_function_forward<double>(P, S, nullptr, 1, 4, AttentionFunction::sa_softmax,
                                                0, 0);
    double l = 0;
    for (int j = 0; j < 4; ++j) l += w[j] * P[j];
    return l;
  };
  double P[4], dS[4];
  bb::ops::attention_function_forward<double>(P, S, nullptr, 1, 4, AttentionFunction::sa_softmax, 0,
                                              0);
  bb::ops::attention_function_backward<double>(dS, nullptr, nullptr, w, P, S, nullptr, 1, 4,
                                               AttentionFunction::sa_softmax, 0, 0);
  const double h = 1e-6;
  S[0] += h, S[1] += h;
  const double up = loss();
  S[0] -= 2 * h, S[1] -= 2 * h;
  const double down = loss();
  CHECK((up - down) / (2 * h) == doctest::Approx(dS[0] + dS[1]).epsilon(1e-6));
  // The two tied keys differ only in their own w: the lo share is the same for both.
  S[0] += h, S[1] += h;
  double Pn[4], dSn[4];
  const double w_same[4] = {0.3, 0.3, 1.1, 0.4};
  bb::ops::attention_function_forward<double>(Pn, S, nullptr, 1, 4, AttentionFunction::sa_softmax,
                                              0, 0);
  bb::ops::attention_function_backward<double>(dSn, nullptr, nullptr, w_same, Pn, S, nullptr, 1, 4,
                                               AttentionFunction::sa_softmax, 0, 0);
  CHECK(dSn[0] == doctest::Approx(dSn[1]).epsilon(1e-15));
}
