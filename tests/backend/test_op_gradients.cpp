// Every op's backward against central finite differences in double precision.
// Each loss is sum(w * out) with fixed random w, so dout = w.
#include <doctest/doctest.h>

#include <vector>

#include "backend/ops.h"
#include "grad_check.h"

using bb::test::dot;
using bb::test::fd_max_rel_error;
using bb::test::random_vector;
namespace ops = bb::ops;

TEST_CASE("linear: dx, dW, dbias") {
  const int N = 3, in = 4, out = 5;
  auto x = random_vector(N * in, 1), W = random_vector(out * in, 2), b = random_vector(out, 3);
  const auto w = random_vector(N * out, 4);
  std::vector<double> y(N * out), dx(N * in), dW(out * in, 0.0), db(out, 0.0);
  auto loss = [&] {
    ops::linear_forward<double>(y.data(), x.data(), W.data(), b.data(), N, in, out);
    return dot(w, y.data());
  };
  loss();
  ops::linear_backward<double>(dx.data(), dW.data(), db.data(), w.data(), x.data(), W.data(), N,
                               in, out);
  CHECK(fd_max_rel_error(x, dx, loss) < 1e-6);
  CHECK(fd_max_rel_error(W, dW, loss) < 1e-6);
  CHECK(fd_max_rel_error(b, db, loss) < 1e-6);
}

TEST_CASE("parameter gradients accumulate, activation gradients overwrite") {
  const int N = 2, in = 3, out = 2;
  auto x = random_vector(N * in, 1), W = random_vector(out * in, 2);
  const auto dy = random_vector(N * out, 3);
  std::vector<double> dx(N * in, 123.0), dW(out * in, 0.0), db(out, 0.0);
  ops::linear_backward<double>(dx.data(), dW.data(), db.data(), dy.data(), x.data(), W.data(), N,
                               in, out);
  const auto dW1 = dW, dx1 = dx;
  ops::linear_backward<double>(dx.data(), dW.data(), db.data(), dy.data(), x.data(), W.data(), N,
                               in, out);
  for (size_t i = 0; i < dW.size(); ++i) CHECK(dW[i] == doctest::Approx(2 * dW1[i]));
  for (size_t i = 0; i < dx.size(); ++i) CHECK(dx[i] == dx1[i]);
}

TEST_CASE("embedding + add_row: (word + position) + type rows, repeated ids accumulate") {
  const int N = 4, C = 3, V = 5, P = 6;
  const std::vector<int32_t> ids = {2, 4, 2, 0}, pos = {2, 3, 4, 5};
  auto wte = random_vector(V * C, 1), wpe = random_vector(P * C, 2), wtt = random_vector(C, 3);
  const auto w = random_vector(N * C, 4);
  std::vector<double> out(N * C), dwte(V * C, 0.0), dwpe(P * C, 0.0), dwtt(C, 0.0);
  auto loss = [&] {
    ops::embedding_forward<double>(out.data(), ids.data(), pos.data(), wte.data(), wpe.data(), N,
                                   C);
    ops::add_row_forward<double>(out.data(), wtt.data(), N, C);
    return dot(w, out.data());
  };
  loss();
  CHECK(out[C + 1] == doctest::Approx(wte[4 * C + 1] + wpe[3 * C + 1] + wtt[1]));
  ops::embedding_backward<double>(dwte.data(), dwpe.data(), w.data(), ids.data(), pos.data(), N,
                                  C);
  ops::add_row_backward<double>(dwtt.data(), w.data(), N, C);
  CHECK(fd_max_rel_error(wte, dwte, loss) < 1e-6);
  CHECK(fd_max_rel_error(wpe, dwpe, loss) < 1e-6);
  CHECK(fd_max_rel_error(wtt, dwtt, loss) < 1e-6);
}

TEST_CASE("layernorm: forward statistics and dx, dw, db") {
  const int N = 3, C = 7;
  auto x = random_vector(N * C, 1, -2, 2), g = random_vector(C, 2, 0.5, 1.5),
       b = random_vector(C, 3);
  const auto w = random_vector(N * C, 4);
  std::vector<double> out(N * C), mean(N), rstd(N), dx(N * C), dg(C, 0.0), db(C, 0.0);
  auto loss = [&] {
    ops::layernorm_forward<double>(out.data(), mean.data(), rstd.data(), x.data(), g.data(),
                                   b.data(), N, C, 1e-5);
    return dot(w, out.data());
  };
  loss();
  double m = 0;
  for (int c = 0; c < C; ++c) m += x[c];
  CHECK(mean[0] == doctest::Approx(m / C));
  ops::layernorm_backward<double>(dx.data(), dg.data(), db.data(), w.data(), x.data(), mean.data(),
                                  rstd.data(), g.data(), N, C);
  CHECK(fd_max_rel_error(x, dx, loss) < 1e-6);
  CHECK(fd_max_rel_error(g, dg, loss) < 1e-6);
  CHECK(fd_max_rel_error(b, db, loss) < 1e-6);
}

TEST_CASE("gelu: exact erf values and gradient") {
  std::vector<double> x = {-3.0, -1.0, 0.0, 0.5, 2.0}, out(5), dx(5);
  ops::gelu_forward<double>(out.data(), x.data(), 5);
  CHECK(out[1] == doctest::Approx(-0.15865525393145707).epsilon(1e-12));  // -1 * Phi(-1)
  CHECK(out[4] == doctest::Approx(1.9544997361036416).epsilon(1e-12));    // 2 * Phi(2)
  float xf = 0.5f, of;
  ops::gelu_forward<float>(&of, &xf, 1);
  CHECK(of == doctest::Approx(0.34573123063700656).epsilon(1e-6));
  auto big = random_vector(300, 1, -4, 4);
  const auto w = random_vector(300, 2);
  std::vector<double> o(300), d(300);
  auto loss = [&] {
    ops::gelu_forward<double>(o.data(), big.data(), 300);
    return dot(w, o.data());
  };
  ops::gelu_backward<double>(d.data(), w.data(), big.data(), 300);
  CHECK(fd_max_rel_error(big, d, loss) < 1e-6);
}

TEST_CASE("dropout: keep rate, scaling, determinism, gradient") {
  const int N = 64, C = 100;
  const float p = 0.1f;
  std::vector<int64_t> rows(N);
  for (int n = 0; n < N; ++n) rows[n] = n;
  auto x = random_vector(N * C, 1);
  std::vector<double> out(N * C), mask(N * C), mask2(N * C), dx(N * C);
  const uint64_t key = 42, other_key = 43;
  ops::dropout_forward<double>(out.data(), mask.data(), x.data(), rows.data(), N, C, p, &key);
  ops::dropout_forward<double>(out.data(), mask2.data(), x.data(), rows.data(), N, C, p, &key);
  CHECK(mask == mask2);
  int kept = 0;
  for (double m : mask) {
    CHECK((m == 0.0 || m == doctest::Approx(1 / 0.9)));
    kept += m != 0.0;
  }
  CHECK(double(kept) / (N * C) == doctest::Approx(0.9).epsilon(0.02));
  ops::dropout_forward<double>(out.data(), mask2.data(), x.data(), rows.data(), N, C, p,
                               &other_key);
  CHECK(mask != mask2);
  const auto w = random_vector(N * C, 2);
  auto loss = [&] {
    ops::dropout_forward<double>(out.data(), mask.data(), x.data(), rows.data(), N, C, p, &key);
    return dot(w, out.data());
  };
  ops::dropout_backward<double>(dx.data(), w.data(), mask.data(), N * C);
  CHECK(fd_max_rel_error(x, dx, loss) < 1e-6);
  ops::dropout_forward<double>(out.data(), mask.data(), x.data(), rows.data(), N, C, 0.f, nullptr);
  CHECK(out == x);
}

TEST_CASE("cross-entropy: mean loss at scored rows and gradient") {
  const int M = 3, V = 6;
  auto logits = random_vector(M * V, 1, -3, 3);
  const std::vector<int32_t> targets = {0, 5, 2};
  std::vector<double> lse(M), dl(M * V);
  auto loss = [&] {
    double l = 0;
    ops::cross_entropy_forward<double>(&l, lse.data(), logits.data(), targets.data(), M, V);
    return l;
  };
  const double l = loss();
  double expect = 0;
  for (int m = 0; m < M; ++m) {
    double s = 0;
    for (int v = 0; v < V; ++v) s += std::exp(logits[m * V + v]);
    expect += std::log(s) - logits[m * V + targets[m]];
  }
  CHECK(l == doctest::Approx(expect / M).epsilon(1e-12));
  ops::cross_entropy_backward<double>(dl.data(), logits.data(), lse.data(), targets.data(), M, V,
                                      1.0);
  CHECK(fd_max_rel_error(logits, dl, loss) < 1e-6);
  loss();  // lse of the unperturbed logits again
  std::vector<double> logp(M);
  ops::target_log_probs<double>(logp.data(), logits.data(), targets.data(), M, V);
  double sum = 0;
  for (int m = 0; m < M; ++m) {
    CHECK(logp[m] == doctest::Approx(logits[m * V + targets[m]] - lse[m]).epsilon(1e-12));
    sum -= logp[m];
  }
  CHECK(sum / M == doctest::Approx(l).epsilon(1e-12));
}

TEST_CASE("cross-entropy: rows with target -1 are ignored (loss, mean and gradient)") {
  const int V = 5;
  auto logits = random_vector(4 * V, 3, -3, 3);
  const std::vector<int32_t> padded = {3, -1, 1, -1};
  std::vector<double> kept_logits(logits.begin(), logits.begin() + V);
  kept_logits.insert(kept_logits.end(), logits.begin() + 2 * V, logits.begin() + 3 * V);
  const std::vector<int32_t> kept = {3, 1};
  double l_padded = 0, l_kept = 0;
  std::vector<double> lse(4), lse_kept(2), d(4 * V, 7.0), d_kept(2 * V);
  ops::cross_entropy_forward<double>(&l_padded, lse.data(), logits.data(), padded.data(), 4, V);
  ops::cross_entropy_forward<double>(&l_kept, lse_kept.data(), kept_logits.data(), kept.data(), 2,
                                     V);
  CHECK(l_padded == l_kept);
  ops::cross_entropy_backward<double>(d.data(), logits.data(), lse.data(), padded.data(), 4, V,
                                      1.0);
  ops::cross_entropy_backward<double>(d_kept.data(), kept_logits.data(), lse_kept.data(),
                                      kept.data(), 2, V, 1.0);
  for (int v = 0; v < V; ++v) {  // (vectorised exp: the last bit may depend on the address)
    CHECK(d[v] == doctest::Approx(d_kept[v]).epsilon(1e-14));
    CHECK(d[V + v] == 0.0);
    CHECK(d[2 * V + v] == doctest::Approx(d_kept[V + v]).epsilon(1e-14));
    CHECK(d[3 * V + v] == 0.0);
  }
  const std::vector<int32_t> none = {-1, -1};
  double l_none = 1;
  ops::cross_entropy_forward<double>(&l_none, lse.data(), logits.data(), none.data(), 2, V);
  CHECK(l_none == 0.0);
}

TEST_CASE("residual add") {
  std::vector<double> y = {1, 2, 3};
  const std::vector<double> x = {0.5, -2, 10};
  ops::add_inplace<double>(y.data(), x.data(), 3);
  CHECK(y == std::vector<double>{1.5, 0, 13});
}

TEST_CASE("trainable scoring values: head_values_raw_grads is the chain rule through "
          "head_values_effective") {
  // loss = sum_h wb_h b_h + wn_h n_h, b = exp(beta), n = 1 + exp(nu): dloss/db = wb, dloss/dn = wn
  const int H = 3;
  auto beta = random_vector(H, 1), nu = random_vector(H, 2);
  const auto wb = random_vector(H, 3), wn = random_vector(H, 4);
  std::vector<double> b(H), n(H), dbeta(H, 0.0), dnu(H, 0.0);
  auto loss = [&] {
    ops::head_values_effective<double>(b.data(), n.data(), beta.data(), nu.data(), H);
    return dot(wb, b.data()) + dot(wn, n.data());
  };
  loss();
  ops::head_values_raw_grads<double>(dbeta.data(), dnu.data(), wb.data(), wn.data(), b.data(),
                                     n.data(), H, false, false);
  CHECK(fd_max_rel_error(beta, dbeta, loss) < 1e-6);
  CHECK(fd_max_rel_error(nu, dnu, loss) < 1e-6);
}

TEST_CASE("tanh GELU: literal values and finite differences") {
  std::vector<double> x = {-3.0, -0.5, 0.0, 0.7, 2.0}, y(5), dx(5);
  ops::gelu_tanh_forward<double>(y.data(), x.data(), 5);
  // torch.nn.functional.gelu(x, approximate='tanh') in double
  const double expected[] = {-0.0036373920817729943, -0.15428599017485606, 0.0, 0.5305701347051167,
                             1.954597694087775};
  for (int i = 0; i < 5; ++i) CHECK(y[i] == doctest::Approx(expected[i]).epsilon(1e-12));
  const auto w = random_vector(5, 7);
  auto loss = [&] {
    ops::gelu_tanh_forward<double>(y.data(), x.data(), 5);
    return dot(w, y.data());
  };
  ops::gelu_tanh_backward<double>(dx.data(), w.data(), x.data(), 5);
  CHECK(fd_max_rel_error(x, dx, loss) < 1e-7);
}

TEST_CASE("point losses: BCE on logits and squared error, literal and finite differences") {
  std::vector<double> x = {-40.0, -1.5, 0.0, 2.0, 35.0}, t = {0, 1, 1, 0, 1}, d(5);
  double loss_v = 0;
  ops::point_loss_forward<double>(&loss_v, x.data(), t.data(), 5, ops::PointLoss::bce_logits);
  // BCE(sigmoid(x), t) = softplus(x) - x t, exactly: no overflow at |x| = 40
  double expected = 0;
  for (int i = 0; i < 5; ++i)
    expected += std::max(x[i], 0.0) + std::log1p(std::exp(-std::abs(x[i]))) - x[i] * t[i];
  CHECK(loss_v == doctest::Approx(expected / 5).epsilon(1e-14));
  CHECK(std::isfinite(loss_v));
  for (ops::PointLoss kind : {ops::PointLoss::bce_logits, ops::PointLoss::squared_error}) {
    auto loss = [&] {
      double l = 0;
      ops::point_loss_forward<double>(&l, x.data(), t.data(), 5, kind);
      return 3.0 * l;
    };
    ops::point_loss_backward<double>(d.data(), x.data(), t.data(), 5, kind, 3.0);
    CHECK(fd_max_rel_error(x, d, loss) < 1e-7);
  }
  ops::point_loss_forward<double>(&loss_v, x.data(), t.data(), 5, ops::PointLoss::squared_error);
  CHECK(loss_v == doctest::Approx((1600.0 + 6.25 + 1.0 + 4.0 + 34.0 * 34.0) / 5));
}
