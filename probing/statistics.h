// The seed-level statistics of compare: Welch's t-test on per-seed accuracies (the seed is the
// unit of replication) and Holm's step-down correction for testing many paradigms at once.
#pragma once
#include <vector>

namespace bb {

struct WelchTest {
  double t = 0, df = 0, se = 0;  // se: the standard error of the difference of means
  double p = -1;  // two-sided; -1: not computable (fewer than 2 values in a group, or no variance
                  // in either group while the means differ)
};

// Welch's unequal-variance t-test of mean(b) - mean(a). Needs at least 2 values in each group
// (kMinSeedsForTest); equal groups without variance give p = 1.
WelchTest welch_t_test(const std::vector<double>& a, const std::vector<double>& b);
inline constexpr int kMinSeedsForTest = 2;

// P(|T| >= |t|) for Student's t with df degrees of freedom (df > 0, not necessarily whole).
double student_t_two_sided_p(double t, double df);

// The t with P(|T| >= t) = p for Student's t with df degrees of freedom (bisection; p in (0, 1)).
double student_t_quantile(double p, double df);

// Regularised incomplete beta I_x(a, b) (continued fraction, Lentz's method).
double incomplete_beta(double a, double b, double x);

// Holm's step-down adjustment of the p-values >= 0 (entries < 0 are not tests and stay -1):
// sorted ascending, p_(i) * (m - i + 1), made monotone, capped at 1.
std::vector<double> holm_adjust(const std::vector<double>& p);

}  // namespace bb
