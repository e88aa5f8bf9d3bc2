// The seed-level statistics (common/statistics.h) against hand-computed values and Monte Carlo:
// the paired t test, the incomplete gamma, the noncentral t power and the minimum detectable
// difference.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/statistics.h"

using namespace bb;

TEST_CASE("paired t test: mean, sd, t, p and interval of the per-pair differences") {
  // differences 3.5, -2, 2.6: mean 1.3667, sd 2.9501, se 1.7033, t 0.8024 on 2 df
  const PairedTest r = paired_t_test({60, 64, 58}, {63.5, 62, 60.6});
  CHECK(r.n == 3);
  CHECK(r.mean == doctest::Approx(4.1 / 3));
  CHECK(r.sd == doctest::Approx(2.95014).epsilon(1e-5));
  CHECK(r.df == 2);
  CHECK(r.t == doctest::Approx(0.80238).epsilon(1e-4));
  // two-sided p of t = 0.80238 on 2 df: 1 - t / sqrt(2 + t^2) (the t(2) distribution's closed form)
  CHECK(r.p == doctest::Approx(1 - r.t / std::sqrt(2 + r.t * r.t)).epsilon(1e-9));
  CHECK(r.lo == doctest::Approx(r.mean - 4.302653 * r.se).epsilon(1e-5));
  CHECK(r.hi == doctest::Approx(r.mean + 4.302653 * r.se).epsilon(1e-5));
  const PairedTest one = paired_t_test({1}, {2});
  CHECK(one.p == -1);  // one pair: no test
  CHECK(paired_t_test({1, 2}, {1, 2}).p == 1);  // every pair equal
}

TEST_CASE("incomplete gamma: chi-square CDFs with closed forms") {
  for (double x : {0.1, 1.0, 3.0, 10.0, 40.0}) {
    CHECK(incomplete_gamma(1.0, x) == doctest::Approx(1 - std::exp(-x)).epsilon(1e-12));  // chi2(2)
    CHECK(incomplete_gamma(0.5, x) == doctest::Approx(std::erf(std::sqrt(x))).epsilon(1e-12));  // chi2(1)
  }
  CHECK(incomplete_gamma(3.0, 0.0) == 0);
}

TEST_CASE("t test power: the normal limit, alpha at no effect, and Monte Carlo at 2 and 4 df") {
  // large df: power at ncp = z_0.975 + z_0.8 is 0.8
  CHECK(t_test_power(1.959964 + 0.841621, 1e6) == doctest::Approx(0.8).epsilon(2e-3));
  CHECK(t_test_power(0.0, 2.0) == doctest::Approx(0.05).epsilon(1e-3));  // the size of the test
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (const double df : {2.0, 4.0}) {
    const double ncp = 3.0, crit = student_t_quantile(0.05, df);
    std::chi_squared_distribution<double> chi(df);
    int hits = 0;
    const int n = 400000;
    for (int i = 0; i < n; ++i) hits += std::abs((z(rng) + ncp) / std::sqrt(chi(rng) / df)) > crit;
    CHECK(t_test_power(ncp, df) == doctest::Approx(double(hits) / n).epsilon(0.01));
  }
}

TEST_CASE("minimum detectable difference: the power it is defined by, in units of the se") {
  for (const double df : {2.0, 3.3, 20.0}) {
    const double mde = minimum_detectable_difference(2.0, df);
    CHECK(t_test_power(mde / 2.0, df) == doctest::Approx(0.8).epsilon(1e-3));
  }
  // more df: closer to (z_0.975 + z_0.8) se
  CHECK(minimum_detectable_difference(1.0, 1e6) == doctest::Approx(2.8016).epsilon(1e-3));
  CHECK(minimum_detectable_difference(1.0, 2.0) > minimum_detectable_difference(1.0, 4.0));
  CHECK(std::isnan(minimum_detectable_difference(0.0, 2.0)));
}

TEST_CASE("equivalence test (TOST): the one-sided p, the 90% interval and the margin") {
  // differences 3.5, -2, 2.6 (as above) on 2 df; t(2)'s upper tail P(T >= t) = (1 - t/sqrt(2+t^2))/2
  auto upper = [](double t) { return (1 - t / std::sqrt(2 + t * t)) / 2; };
  const std::vector<double> a{60, 64, 58}, b{63.5, 62, 60.6};
  const PairedTest pt = paired_t_test(a, b);
  for (double margin : {1.0, 5.0, 15.0, 40.0}) {
    CAPTURE(margin);
    const EquivalenceTest e = equivalence_test(a, b, margin);
    const double p_low = upper((pt.mean + margin) / pt.se);    // H0: d <= -margin
    const double p_high = upper((margin - pt.mean) / pt.se);   // H0: d >= margin
    CHECK(e.p == doctest::Approx(std::max(p_low, p_high)).epsilon(1e-9));
    // the 90% interval: t(2)'s 0.95 quantile is 2.919986
    CHECK(e.lo == doctest::Approx(pt.mean - 2.919986 * pt.se).epsilon(1e-5));
    CHECK(e.hi == doctest::Approx(pt.mean + 2.919986 * pt.se).epsilon(1e-5));
    // equivalent exactly when the 90% interval lies inside the margin
    CHECK(e.equivalent == (e.lo > -margin && e.hi < margin));
  }
  CHECK(!equivalence_test(a, b, 5.0).equivalent);  // interval about [-3.6, +6.3]
  CHECK(equivalence_test(a, b, 15.0).equivalent);
  CHECK(equivalence_test({1}, {2}, 5).p == -1);    // one pair: no test
  CHECK(equivalence_test({1, 2}, {1.5, 2.5}, 1).equivalent);   // every pair +0.5, margin 1
  CHECK(!equivalence_test({1, 2}, {1.5, 2.5}, 0.4).equivalent);
}
