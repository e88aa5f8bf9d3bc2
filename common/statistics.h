// The seed-level statistics of compare and of the ICL reports (a leaf: links no model): mean and
// sd, Welch's and the paired t test on per-seed values (the seed is the unit of replication), the
// detectable difference, and Holm's step-down correction for testing many things at once.
#pragma once
#include <vector>

namespace bb {

struct Stat {
  double mean = 0, sd = 0;
  int n = 0;
};
// Mean and sample sd of the values; no values: mean NaN (shown as "—", never as 0).
Stat stat_of(const std::vector<double>& v);

struct WelchTest {
  double t = 0, df = 0, se = 0;  // se: the standard error of the difference of means
  double p = -1;  // two-sided; -1: not computable (fewer than 2 values in a group, or no variance
                  // in either group while the means differ)
};

// Welch's unequal-variance t-test of mean(b) - mean(a). Needs at least 2 values in each group
// (kMinSeedsForTest); equal groups without variance give p = 1.
WelchTest welch_t_test(const std::vector<double>& a, const std::vector<double>& b);
inline constexpr int kMinSeedsForTest = 2;

// The paired t test of mean(b_i - a_i) (pairs i: the same seed). Needs at least 2 pairs.
struct PairedTest {
  int n = 0;                      // pairs
  double mean = 0, sd = 0, se = 0, df = 0, t = 0;
  double p = -1;                  // two-sided; -1: fewer than 2 pairs (or no variance, mean != 0)
  double lo = 0, hi = 0;          // 95% t interval of the mean difference (when p >= 0)
};
PairedTest paired_t_test(const std::vector<double>& a, const std::vector<double>& b);

// Equivalence of paired values within ±margin by two one-sided paired t tests (TOST, level alpha
// each side): the (1 - 2 alpha) t interval of mean(b_i - a_i), and equivalent exactly when it lies
// inside (-margin, margin), i.e. when p = max of the two one-sided p < alpha. Needs 2 pairs.
struct EquivalenceTest {
  int n = 0;
  double mean = 0, sd = 0, se = 0, df = 0;
  double lo = 0, hi = 0;  // the (1 - 2 alpha) interval
  double p = -1;          // the larger one-sided p; -1: fewer than 2 pairs
  bool equivalent = false;
};
EquivalenceTest equivalence_test(const std::vector<double>& a, const std::vector<double>& b,
                                 double margin, double alpha = 0.05);

// The power of a two-sided level-alpha t test with df degrees of freedom when the true effect is
// `ncp` standard errors: P(|T'| > t_crit) for T' noncentral t(df, ncp) = (Z + ncp) / sqrt(V/df),
// V ~ chi2(df), averaged over 4,000 quantiles of V.
double t_test_power(double ncp, double df, double alpha = 0.05);
// The smallest true difference a two-sided level-alpha t test with standard error `se` and df
// degrees of freedom detects with probability `power`: ncp * se for the ncp whose power that is.
// An estimate: se itself comes from the data (with 2 df, uncertain by a factor of several).
double minimum_detectable_difference(double se, double df, double alpha = 0.05, double power = 0.8);

// Regularised lower incomplete gamma P(a, x) (series below a + 1, continued fraction above).
double incomplete_gamma(double a, double x);

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
