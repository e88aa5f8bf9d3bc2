#include "probing/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bb {

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
