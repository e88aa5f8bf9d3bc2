#include "common/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bb {

Stat stat_of(const std::vector<double>& v) {
  Stat s;
  s.n = int(v.size());
  if (v.empty()) {
    s.mean = std::nan("");
    return s;
  }
  for (double x : v) s.mean += x;
  s.mean /= std::max(1, s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / (s.n - 1));
  }
  return s;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // Use the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the continued fraction converges fast.
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 1000; ++m) {
    for (int step = 0; step < 2; ++step) {  // the even then the odd term of the fraction
      const double num = step == 0
                             ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                             : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      if (std::abs(d) < kTiny) d = kTiny;
      c = 1 + num / c;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1 / d;
      f *= c * d;
      if (step == 1 && std::abs(c * d - 1) < kEps) return std::exp(log_front) * f / a;
    }
  }
  return std::exp(log_front) * f / a;
}

double student_t_two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_quantile(double p, double df) {
  double lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) > p) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_two_sided_p(mid, df) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

WelchTest welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchTest w;
  const double na = double(a.size()), nb = double(b.size());
  if (a.size() < size_t(kMinSeedsForTest) || b.size() < size_t(kMinSeedsForTest)) return w;
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / na;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / nb;
  double va = 0, vb = 0;
  for (double x : a) va += (x - ma) * (x - ma);
  for (double x : b) vb += (x - mb) * (x - mb);
  va /= na - 1, vb /= nb - 1;
  const double se2 = va / na + vb / nb;
  if (se2 <= 0) {
    if (ma == mb) w.p = 1;  // identical constant groups: no difference at all
    return w;
  }
  w.se = std::sqrt(se2);
  w.t = (mb - ma) / w.se;
  w.df = se2 * se2 / ((va / na) * (va / na) / (na - 1) + (vb / nb) * (vb / nb) / (nb - 1));
  w.p = student_t_two_sided_p(w.t, w.df);
  return w;
}

PairedTest paired_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  PairedTest r;
  r.n = int(std::min(a.size(), b.size()));
  if (r.n == 0) return r;
  std::vector<double> d(size_t(r.n));
  for (size_t i = 0; i < d.size(); ++i) d[i] = b[i] - a[i];
  r.mean = std::accumulate(d.begin(), d.end(), 0.0) / r.n;
  r.lo = r.hi = r.mean;
  if (r.n < 2) return r;
  double ss = 0;
  for (double x : d) ss += (x - r.mean) * (x - r.mean);
  r.sd = std::sqrt(ss / (r.n - 1));
  r.se = r.sd / std::sqrt(double(r.n));
  r.df = r.n - 1;
  if (r.se <= 0) {
    if (r.mean == 0) r.p = 1;  // every pair equal: no difference at all
    return r;
  }
  r.t = r.mean / r.se;
  r.p = student_t_two_sided_p(r.t, r.df);
  const double half = student_t_quantile(0.05, r.df) * r.se;
  r.lo = r.mean - half, r.hi = r.mean + half;
  return r;
}

EquivalenceTest equivalence_test(const std::vector<double>& a, const std::vector<double>& b,
                                 double margin, double alpha) {
  const PairedTest t = paired_t_test(a, b);
  EquivalenceTest e{.n = t.n, .mean = t.mean, .sd = t.sd, .se = t.se, .df = t.df,
                    .lo = t.mean, .hi = t.mean, .p = -1, .equivalent = false};
  if (t.n < 2) return e;
  if (t.se <= 0) {  // every pair differs by the same amount: inside the margin or not
    e.p = std::abs(t.mean) < margin ? 0.0 : 1.0;
    e.equivalent = e.p < alpha;
    return e;
  }
  // one-sided p of T > (mean + margin) / se (H0: difference <= -margin) and of T < (mean -
  // margin) / se (H0: difference >= margin), from the two-sided p of each t
  auto upper_tail = [&](double tv) {  // P(T >= tv)
    const double two = student_t_two_sided_p(tv, t.df);
    return tv >= 0 ? two / 2 : 1 - two / 2;
  };
  const double p_low = upper_tail((t.mean + margin) / t.se);
  const double p_high = upper_tail(-(t.mean - margin) / t.se);
  e.p = std::max(p_low, p_high);
  const double half = student_t_quantile(2 * alpha, t.df) * t.se;
  e.lo = t.mean - half, e.hi = t.mean + half;
  e.equivalent = e.p < alpha;
  return e;
}

double incomplete_gamma(double a, double x) {
  if (x <= 0) return 0;
  const double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {  // series: sum x^n / (a (a+1) ... (a+n))
    double term = 1 / a, sum = term;
    for (int n = 1; n < 10000 && std::abs(term) > std::abs(sum) * 1e-16; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    return std::exp(log_front) * sum;
  }
  // Q(a, x) by Lentz's continued fraction, P = 1 - Q
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    if (std::abs(d * c - 1) < 1e-16) break;
  }
  return 1 - std::exp(log_front) * h;
}

namespace {

// sqrt(V / df) at the midpoints of `count` equal-probability slices of V ~ chi2(df).
std::vector<double> chi_scale_quantiles(double df, int count) {
  std::vector<double> out;
  double hi = df + 10 * std::sqrt(2 * df) + 50;
  while (incomplete_gamma(df / 2, hi / 2) < 1 - 0.5 / count) hi *= 2;
  for (int i = 0; i < count; ++i) {
    const double u = (i + 0.5) / count;
    double lo_v = 0, hi_v = hi;
    for (int it = 0; it < 60; ++it) {
      const double mid = (lo_v + hi_v) / 2;
      (incomplete_gamma(df / 2, mid / 2) < u ? lo_v : hi_v) = mid;
    }
    out.push_back(std::sqrt((lo_v + hi_v) / 2 / df));
  }
  return out;
}

double normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

double power_at(double ncp, double crit, const std::vector<double>& scales) {
  double sum = 0;
  for (double s : scales) sum += normal_upper(crit * s - ncp) + normal_upper(crit * s + ncp);
  return sum / double(scales.size());
}

}  // namespace

double t_test_power(double ncp, double df, double alpha) {
  return power_at(ncp, student_t_quantile(alpha, df), chi_scale_quantiles(df, 4000));
}

double minimum_detectable_difference(double se, double df, double alpha, double power) {
  if (!(se > 0) || !(df > 0)) return std::nan("");
  const double crit = student_t_quantile(alpha, df);
  const std::vector<double> scales = chi_scale_quantiles(df, 4000);
  double lo = 0, hi = 1;
  while (power_at(hi, crit, scales) < power) hi *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (power_at(mid, crit, scales) < power ? lo : hi) = mid;
  }
  return (lo + hi) / 2 * se;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] >= 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> adj(p.size(), -1.0);
  const double m = double(order.size());
  double running = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, (m - double(k)) * p[order[k]]));
    adj[order[k]] = running;
  }
  return adj;
}

}  // namespace bb
