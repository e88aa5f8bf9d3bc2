// The comparison's statistics: sigma_50 interpolation (icl/shift_report.h), the paired t test
// over seeds (icl/experiment_report.h) and the counts of where wrong predictions point
// (icl/eval.h), each against a hand-computed case.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

#include "icl/eval.h"
#include "icl/experiment_report.h"
#include "icl/shift_report.h"
#include "icl/training_length_report.h"
#include "common/statistics.h"

namespace icl = bb::icl;

TEST_CASE("sigma_50: linear interpolation between the grid sigmas around the first crossing") {
  const std::vector<double> sigmas = {1, 2, 4, 8};
  CHECK(icl::crossing_sigma(sigmas, {0.0, 0.25, 0.75, 1.0}, 0.5) == doctest::Approx(3.0));
  CHECK(icl::crossing_sigma(sigmas, {0.0, 0.5, 0.75, 1.0}, 0.5) == doctest::Approx(2.0));
  // the first crossing counts, not a later dip and rise
  CHECK(icl::crossing_sigma(sigmas, {0.0, 0.6, 0.2, 0.9}, 0.5) == doctest::Approx(1 + 0.5 / 0.6));
  CHECK(icl::crossing_sigma(sigmas, {0.7, 0.8, 0.9, 1.0}, 0.5) == 1.0);  // already at the first
  CHECK(std::isnan(icl::crossing_sigma(sigmas, {0.0, 0.1, 0.2, 0.3}, 0.5)));  // censored
  CHECK(icl::crossing_sigma(sigmas, {0.0, 0.1, NAN, 0.3}, 0.5) == 4.0);  // a diverged cell
}

TEST_CASE("paired t test over seeds: a true 10-point difference is resolved, a 1-point one is not") {
  // seed-level scores with a shared seed effect; differences 10 +- ~1 and 1 +- ~3
  const std::vector<double> a = {60, 64, 58};
  const std::vector<double> big = {69.2, 75.0, 67.8}, small = {63.5, 62.0, 60.6};
  const icl::PairedDifference d = icl::paired_difference(a, big);
  CHECK(d.tested);
  CHECK(d.resolved);
  CHECK(d.mean == doctest::Approx(10.0));
  CHECK(d.p < 0.05);
  CHECK(d.lo > 0);
  const icl::PairedDifference e = icl::paired_difference(a, small);
  CHECK(e.tested);
  CHECK_FALSE(e.resolved);
  CHECK(e.mean == doctest::Approx(4.1 / 3));
  CHECK(e.p > 0.05);
  // differences 3.5, -2, 2.6: sd 2.95, se 1.70; detectable at 80% power with 2 df
  CHECK(e.sd == doctest::Approx(2.9501).epsilon(1e-3));
  CHECK(e.detectable == doctest::Approx(bb::minimum_detectable_difference(2.9501 / std::sqrt(3.0), 2))
                            .epsilon(1e-3));
  const icl::PairedDifference two = icl::paired_difference({1, 2}, {3, 4});
  CHECK_FALSE(two.tested);  // fewer than kMinSeeds: exploratory
  CHECK(two.p == -1);
}

TEST_CASE("eval counts where wrong predictions point: the sign of the largest |x| so far") {
  icl::EvalGrid g;
  g.task = icl::Task::every, g.points = {12}, g.sigma_x = {1, 5}, g.sequences = 50;
  // Predicts the sign of the largest |x| so far: every wrong prediction follows it.
  auto largest = [](const icl::Sequences& s) {
    std::vector<float> out(s.y.size());
    for (int b = 0; b < s.B; ++b) {
      float m = 0;
      for (int i = 0; i < s.k; ++i) {
        const float x = s.x[size_t(b) * s.k + i];
        if (i == 0 || std::abs(x) > std::abs(m)) m = x;
        out[size_t(b) * s.k + i] = m > 0 ? 1.f : -1.f;
      }
    }
    return out;
  };
  const icl::EvalResult r = icl::evaluate(g, "largest", false, largest);
  const icl::EvalResult plus = icl::evaluate(g, "plus", false, [](const icl::Sequences& s) {
    return std::vector<float>(s.y.size(), 1.f);
  });
  for (size_t c = 0; c < r.cells.size(); ++c) {
    CHECK(r.cells[c].counted == 50 * 9);  // points 4..12 of 50 sequences
    CHECK(r.cells[c].wrong_points > 0);
    CHECK(r.cells[c].wrong_following_largest == r.cells[c].wrong_points);
    // always +1: wrong wherever the label is -1; follows the largest exactly where it is positive
    const icl::Sequences s = icl::cell_sequences(g, c, 12, g.sigma_x[c], 1);
    double wrong = 0, follow = 0, positive = 0;
    for (int b = 0; b < s.B; ++b) {
      float m = 0;
      for (int i = 0; i < 12; ++i) {
        const float x = s.x[size_t(b) * 12 + i];
        if (i == 0 || std::abs(x) > std::abs(m)) m = x;
        if (i < 3) continue;
        positive += m > 0;
        if (s.y[size_t(b) * 12 + i] < 0) wrong += 1, follow += m > 0;
      }
    }
    CHECK(plus.cells[c].wrong_points == wrong);
    CHECK(plus.cells[c].wrong_following_largest == follow);
    CHECK(plus.cells[c].largest_positive == positive);
    CHECK(r.cells[c].largest_positive == positive);
  }
}

TEST_CASE("the censored sign test: a sigma beyond the grid is above any reached one") {
  // seed 1: b higher; seed 2: b censored (higher); seed 3: both censored (dropped); seed 4: equal
  const icl::SignTest t = icl::censored_sign_test({{1, 2.0}, {2, 3.0}, {3, NAN}, {4, 5.0}},
                                                  {{1, 2.5}, {2, NAN}, {3, NAN}, {4, 5.0}});
  CHECK(t.higher == 2);
  CHECK(t.n == 2);
  CHECK(t.p == doctest::Approx(0.5));  // 2 P(X <= 0), X ~ Bin(2, 1/2)
  std::map<int, double> a, b;
  for (int s = 1; s <= 6; ++s) a[s] = s, b[s] = s + 1;
  CHECK(icl::censored_sign_test(a, b).p == doctest::Approx(2.0 / 64));
  b[3] = 0;  // one of six lower: 2 (1 + 6) / 64
  CHECK(icl::censored_sign_test(a, b).p == doctest::Approx(14.0 / 64));
  CHECK(icl::censored_sign_test(a, b).higher == 5);
}

TEST_CASE("statistics out of range are said in words (issue 46, item 4)") {
  // Both functions score 0.000 at every seed: no variance, not "detectable ±nan".
  const icl::PairedDifference zero = icl::paired_difference({0, 0, 0}, {0, 0, 0}, {-1, 1});
  CHECK(zero.no_variance);
  CHECK_FALSE(zero.tested);
  CHECK(zero.mean == 0);
  icl::GroupReport g{.title = "every, full, 40 points", .score = "share", .score_max = 1.0,
                     .sigmas = {1, 2}, .runs = {}};
  for (int seed = 1; seed <= 3; ++seed) {
    g.runs.push_back({"softmax", seed, {0.0, 0.0}});
    g.runs.push_back({"ssa", seed, {0.0, seed == 1 ? 0.9 : 0.0}});
  }
  const std::string md = icl::experiment_markdown({g}, "softmax");
  CHECK(md.find("nan") == std::string::npos);
  CHECK(md.find("+0.000 (no variance: every seed pair differs by exactly this; not testable)") !=
        std::string::npos);
  // A share difference's t interval, -0.312 [-1.657, +1.032] before, is clipped to [-1, 1], marked.
  const icl::PairedDifference wide =
      icl::paired_difference({0.9, 0.1, 0.95}, {0.0, 0.96, 0.05}, {-1, 1});
  REQUIRE(wide.tested);
  CHECK(wide.lo == -1.0);
  CHECK(wide.lo_clipped);
  CHECK(wide.hi <= 1.0);
  CHECK(icl::interval_text(wide, 3).find("-1.000‡") != std::string::npos);
  CHECK(md.find("+1.000‡]") != std::string::npos);  // seed 1's 0.9 alone: the upper end clipped
  // A σ₅₀ difference on a grid of 1..29 (span 28): a detectable ±43 is beyond the grid.
  const icl::PairedDifference sigma =
      icl::paired_difference({5, 25, 6}, {20, 4, 29}, {-28, 28});
  REQUIRE(sigma.tested);
  CHECK(sigma.detectable > 28);
  CHECK(sigma.beyond_range);
  CHECK(icl::detectable_text(sigma, 2, "the σ grid's span of 28").find(
            "detectable: beyond the σ grid's span of 28") == 0);
  // The issue's numbers: -0.312 [-1.657, +1.032] for a share difference over 3 seeds.
  const icl::PairedDifference issue =
      icl::paired_difference({0.9, 0.5, 0.3}, {0.0468, 0.188, 0.5292}, {-1, 1});
  CHECK(issue.mean == doctest::Approx(-0.312).epsilon(1e-3));
  const bb::PairedTest raw = bb::paired_t_test({0.9, 0.5, 0.3}, {0.0468, 0.188, 0.5292});
  CHECK(raw.lo == doctest::Approx(-1.657).epsilon(1e-3));
  CHECK(raw.hi == doctest::Approx(1.032).epsilon(1e-3));
  CHECK(icl::interval_text(issue, 3) == "[-1.000‡, +1.000‡]");
  // Unbounded by default: nothing clipped, nothing beyond.
  const icl::PairedDifference free = icl::paired_difference({5, 25, 6}, {20, 4, 29});
  CHECK_FALSE(free.lo_clipped);
  CHECK_FALSE(free.beyond_range);
}

TEST_CASE("eval's per-point shares come from counts: all right is exactly 1 (issue 46, item 4)") {
  icl::EvalGrid g;
  g.task = icl::Task::every, g.points = {40}, g.sigma_x = {1}, g.sequences = 1000;
  // The label's own sign: right everywhere; 1000 additions of 1/1000 gave 1.0000000000000007.
  const icl::EvalResult r = icl::evaluate(g, "oracle", false, [](const icl::Sequences& s) {
    std::vector<float> out(s.y.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = s.y[i] > 0 ? 1.f : -1.f;
    return out;
  });
  for (double v : r.cells.at(0).per_point) CHECK(v == 1.0);
  const icl::EvalResult half = icl::evaluate(g, "plus", false, [](const icl::Sequences& s) {
    return std::vector<float>(s.y.size(), 1.f);
  });
  for (double v : half.cells.at(0).per_point) {
    const double count = v * 1000;  // an exact share: count / 1000 for a whole count
    CHECK(count == doctest::Approx(std::round(count)).epsilon(1e-15));
    CHECK(v == std::round(count) / 1000);
  }
}

TEST_CASE("training length: the primary endpoint is the mean error over the sigma grid") {
  // Equal weight per grid sigma: the area under the error curve divided by the grid's points.
  CHECK(icl::mean_error_over_sigma({{1, 0.0}, {2, 0.5}, {3, 1.0}}) == doctest::Approx(0.5));
  CHECK(icl::mean_error_over_sigma({{1, 0.25}}) == 0.25);
  CHECK(std::isnan(icl::mean_error_over_sigma({})));
  // A diverged cell (infinite error) makes the run's endpoint infinite, never silently finite.
  CHECK(std::isinf(icl::mean_error_over_sigma({{1, 0.1}, {2, INFINITY}})));
}
