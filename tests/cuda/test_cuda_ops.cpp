// Every CUDA op against its CPU twin (backend/ops.h) on random inputs, forward and backward:
// max |cuda - cpu| / max |cpu| <= 1e-4 per output tensor. Without a CUDA device every case
// reports "skipped: no CUDA device" (ctest shows the binary as skipped).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cuda/device.h"
#include "backend/cuda/ops.h"
#include "backend/device.h"
#include "backend/ops.h"
#include "common/error.h"
#include "cuda/cuda_test.h"

using bb::AttentionFunction;
using bb::cuda::DeviceArray;
using bb::test::random_floats;
using bb::test::dev;
using bb::test::kTol;
using bb::test::rel_err;
namespace ops = bb::ops;
namespace cu = bb::cuda;

TEST_CASE("cuda gemm, linear forward and backward") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int M = 37, N = 53, K = 29;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const auto A = random_floats(M * K, 1), B = random_floats(K * N, 2);
      auto C = random_floats(M * N, 3);
      auto dA = dev(A), dB = dev(B), dC = dev(C);
      const int lda = ta ? M : K, ldb = tb ? K : N;
      ops::gemm<float>(ta, tb, M, N, K, 0.7f, A.data(), lda, B.data(), ldb, 0.5f, C.data(), N);
      cu::gemm(ta, tb, M, N, K, 0.7f, dA.data(), lda, dB.data(), ldb, 0.5f, dC.data(), N);
      CHECK(rel_err(dC.download(), C) <= kTol);
    }
  const int rows = 41, in = 64, out = 96;
  const auto x = random_floats(rows * in, 4), W = random_floats(out * in, 5), bias = random_floats(out, 6),
             dy = random_floats(rows * out, 7);
  std::vector<float> y(rows * out), dx(rows * in), dW = random_floats(out * in, 8), db = random_floats(out, 9);
  auto gx = dev(x), gW = dev(W), gb = dev(bias), gdy = dev(dy), gdW = dev(dW), gdb = dev(db);
  DeviceArray<float> gy(y.size()), gdx(dx.size());
  ops::linear_forward<float>(y.data(), x.data(), W.data(), bias.data(), rows, in, out);
  cu::linear_forward(gy.data(), gx.data(), gW.data(), gb.data(), rows, in, out);
  CHECK(rel_err(gy.download(), y) <= kTol);
  ops::linear_backward<float>(dx.data(), dW.data(), db.data(), dy.data(), x.data(), W.data(), rows,
                              in, out);
  cu::linear_backward(gdx.data(), gdW.data(), gdb.data(), gdy.data(), gx.data(), gW.data(), rows,
                      in, out);
  CHECK(rel_err(gdx.download(), dx) <= kTol);
  CHECK(rel_err(gdW.download(), dW) <= kTol);
  CHECK(rel_err(gdb.download(), db) <= kTol);
}

TEST_CASE("cuda embedding forward and backward (repeated ids and positions)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int V = 50, P = 20, C = 48, N = 70;
  std::vector<int32_t> ids(N), pos(N);
  for (int n = 0; n < N; ++n) ids[n] = (n * 7) % 13, pos[n] = 2 + n % 11;
  const auto wte = random_floats(V * C, 1), wpe = random_floats(P * C, 2), wtt = random_floats(C, 3),
             dout = random_floats(N * C, 4);
  std::vector<float> out(N * C), dwte = random_floats(V * C, 5), dwpe = random_floats(P * C, 6),
                                 dwtt = random_floats(C, 7);
  auto gids = dev(ids), gpos = dev(pos);
  auto gwte = dev(wte), gwpe = dev(wpe), gwtt = dev(wtt), gdout = dev(dout);
  auto gdwte = dev(dwte), gdwpe = dev(dwpe), gdwtt = dev(dwtt);
  DeviceArray<float> gout(out.size());
  ops::embedding_forward<float>(out.data(), ids.data(), pos.data(), wte.data(), wpe.data(), N, C);
  ops::add_row_forward<float>(out.data(), wtt.data(), N, C);
  cu::embedding_forward(gout.data(), gids.data(), gpos.data(), gwte.data(), gwpe.data(), N, C);
  cu::add_row_forward(gout.data(), gwtt.data(), N, C);
  CHECK(rel_err(gout.download(), out) <= kTol);
  ops::embedding_backward<float>(dwte.data(), dwpe.data(), dout.data(), ids.data(), pos.data(), N,
                                 C);
  ops::add_row_backward<float>(dwtt.data(), dout.data(), N, C);
  cu::embedding_backward(gdwte.data(), gdwpe.data(), gdout.data(), gids.data(), gpos.data(), N, C);
  cu::add_row_backward(gdwtt.data(), gdout.data(), N, C);
  CHECK(rel_err(gdwte.download(), dwte) <= kTol);
  CHECK(rel_err(gdwpe.download(), dwpe) <= kTol);
  CHECK(rel_err(gdwtt.download(), dwtt) <= kTol);
}

TEST_CASE("cuda gather and scatter of rows, a row taken more than once (every copy's gradient "
          "summed)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int N = 12, C = 40;
  const std::vector<int32_t> rows = {3, 0, 3, 7, 0, 0, 11, 3};
  const int M = int(rows.size());
  const auto x = random_floats(N * C, 8), d = random_floats(M * C, 9);
  std::vector<float> out(M * C), dx = random_floats(N * C, 10);  // overwritten: dx = 0, then +=
  auto grows = dev(rows);
  auto gx = dev(x), gd = dev(d), gdx = dev(dx);
  DeviceArray<float> gout(out.size());
  ops::gather_rows<float>(out.data(), x.data(), rows.data(), M, C);
  cu::gather_rows(gout.data(), gx.data(), grows.data(), M, C);
  CHECK(gout.download() == out);  // copies: exact
  ops::scatter_rows<float>(dx.data(), d.data(), rows.data(), M, N, C);
  cu::scatter_rows(gdx.data(), gd.data(), grows.data(), M, N, C);
  const auto got = gdx.download();
  CHECK(rel_err(got, dx) <= kTol);
  for (int c = 0; c < C; ++c) {  // row 3 holds three rows' gradients, row 5 none
    CHECK(got[3 * C + c] == doctest::Approx(double(d[0 * C + c]) + d[2 * C + c] + d[7 * C + c]));
    CHECK(got[5 * C + c] == 0.0f);
  }
}

TEST_CASE("cuda layernorm, gelu, residual add and dropout") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int N = 45, C = 256;
  const auto x = random_floats(N * C, 1, -3, 3), w = random_floats(C, 2), b = random_floats(C, 3),
             dout = random_floats(N * C, 4);
  std::vector<float> out(N * C), mean(N), rstd(N), dx(N * C), dw = random_floats(C, 5),
                     db = random_floats(C, 6);
  auto gx = dev(x), gw = dev(w), gb = dev(b), gdout = dev(dout), gdw = dev(dw), gdb = dev(db);
  DeviceArray<float> gout(out.size()), gmean(N), grstd(N), gdx(dx.size());
  ops::layernorm_forward<float>(out.data(), mean.data(), rstd.data(), x.data(), w.data(),
                                b.data(), N, C, 1e-5f);
  cu::layernorm_forward(gout.data(), gmean.data(), grstd.data(), gx.data(), gw.data(), gb.data(),
                        N, C, 1e-5f);
  CHECK(rel_err(gout.download(), out) <= kTol);
  CHECK(rel_err(grstd.download(), rstd) <= kTol);
  ops::layernorm_backward<float>(dx.data(), dw.data(), db.data(), dout.data(), x.data(),
                                 mean.data(), rstd.data(), w.data(), N, C);
  cu::layernorm_backward(gdx.data(), gdw.data(), gdb.data(), gdout.data(), gx.data(),
                         gmean.data(), grstd.data(), gw.data(), N, C);
  CHECK(rel_err(gdx.download(), dx) <= kTol);
  CHECK(rel_err(gdw.download(), dw) <= kTol);
  CHECK(rel_err(gdb.download(), db) <= kTol);

  const int64_t n = int64_t(N) * C;
  std::vector<float> g(n), dg(n);
  DeviceArray<float> gg(n), gdg(n);
  ops::gelu_forward<float>(g.data(), x.data(), n);
  cu::gelu_forward(gg.data(), gx.data(), n);
  CHECK(rel_err(gg.download(), g) <= kTol);
  ops::gelu_backward<float>(dg.data(), dout.data(), x.data(), n);
  cu::gelu_backward(gdg.data(), gdout.data(), gx.data(), n);
  CHECK(rel_err(gdg.download(), dg) <= kTol);
  ops::add_inplace<float>(g.data(), dout.data(), n);
  cu::add_inplace(gg.data(), gdout.data(), n);
  CHECK(rel_err(gg.download(), g) <= kTol);

  std::vector<int64_t> row_ids(N);
  for (int r = 0; r < N; ++r) row_ids[r] = (int64_t(r % 3) << 16) | (r * 5);
  auto grow = dev(row_ids);
  const uint64_t key = 1234;  // the CPU op reads it from host memory, the CUDA op from device
  auto gkey = dev(std::vector<uint64_t>{key});
  for (float p : {0.0f, 0.1f, 0.5f}) {
    std::vector<float> o(n), m(n), back(n);
    DeviceArray<float> go(n), gm(n), gback(n);
    ops::dropout_forward<float>(o.data(), m.data(), x.data(), row_ids.data(), N, C, p, &key);
    cu::dropout_forward(go.data(), gm.data(), gx.data(), grow.data(), N, C, p, gkey.data());
    CHECK(gm.download() == m);  // the same Philox draws: identical masks
    CHECK(rel_err(go.download(), o) <= kTol);
    ops::dropout_backward<float>(back.data(), dout.data(), m.data(), n);
    cu::dropout_backward(gback.data(), gdout.data(), gm.data(), n);
    CHECK(rel_err(gback.download(), back) <= kTol);
  }
}

TEST_CASE("cuda cross-entropy, target log-probs, gradient norm and AdamW") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int M = 23, V = 8192;
  const auto logits = random_floats(int64_t(M) * V, 1, -8, 8);
  std::vector<int32_t> targets(M);
  for (int m = 0; m < M; ++m) targets[m] = m % 5 == 4 ? -1 : (m * 977) % V;  // some ignored
  auto glogits = dev(logits);
  auto gtargets = dev(targets);
  std::vector<float> lse(M), dlogits(logits.size()), logp(M);
  DeviceArray<float> glse(M), gdlogits(logits.size()), glogp(M), gloss(1);
  float loss = 0;
  ops::cross_entropy_forward<float>(&loss, lse.data(), logits.data(), targets.data(), M, V);
  cu::cross_entropy_forward(gloss.data(), glse.data(), glogits.data(), gtargets.data(), M, V);
  CHECK(gloss.download()[0] == doctest::Approx(loss).epsilon(kTol));
  CHECK(rel_err(glse.download(), lse) <= kTol);
  ops::cross_entropy_backward<float>(dlogits.data(), logits.data(), lse.data(), targets.data(), M,
                                     V, 1.f);
  cu::cross_entropy_backward(gdlogits.data(), glogits.data(), glse.data(), gtargets.data(), M, V,
                             1.f);
  CHECK(rel_err(gdlogits.download(), dlogits) <= kTol);
  for (int32_t& t : targets) t = std::max(t, 0);  // log-probs: every row scored
  gtargets = dev(targets);
  ops::target_log_probs<float>(logp.data(), logits.data(), targets.data(), M, V);
  cu::target_log_probs(glogp.data(), glogits.data(), gtargets.data(), M, V);
  CHECK(rel_err(glogp.download(), logp) <= kTol);

  const int64_t n = 300001;
  const auto g = random_floats(n, 2);
  auto p = random_floats(n, 3), m = random_floats(n, 4, 0, 0.1f),
       v = random_floats(n, 5, 0, 0.01f);
  auto gg = dev(g), gp = dev(p), gm = dev(m), gv = dev(v);
  // The schedule: lr 1e-3 at update 7; sumsq written by sum_squares on each side (the gradient
  // norm is ~316, so clip 0.5 scales the gradient).
  ops::AdamWSchedule sched{1e-3, 7, 0};
  auto gsched = dev(std::vector<ops::AdamWSchedule>{sched});
  ops::sum_squares(&sched.sumsq, g.data(), n);
  cu::sum_squares(&gsched.data()->sumsq, gg.data(), n);
  CHECK(gsched.download()[0].sumsq == doctest::Approx(sched.sumsq).epsilon(1e-9));
  const ops::AdamWStep step{0.9f, 0.999f, 1e-6f, 0.01f, 1.0, 0.5, true};
  ops::adamw_update(p.data(), g.data(), m.data(), v.data(), n, step, &sched);
  cu::adamw_update(gp.data(), gg.data(), gm.data(), gv.data(), n, step, gsched.data());
  CHECK(rel_err(gp.download(), p) <= kTol);
  CHECK(rel_err(gm.download(), m) <= kTol);
  CHECK(rel_err(gv.download(), v) <= kTol);
}

TEST_CASE("an op given memory of the other device fails at the op (pointer checks)") {
  SKIP_WITHOUT_CUDA_DEVICE();
  ops::check_pointers(true);  // as the test main has it; said here because this case needs it
  std::vector<float> host(8, 1.f);
  DeviceArray<float> device(8);
  {
    const bb::DeviceScope on(bb::Device::cuda);
    CHECK_THROWS_WITH_AS(ops::gelu_forward<float>(device.data(), host.data(), 8),
                         "internal: gelu_forward runs on cuda but its pointer argument 2 is host "
                         "memory",
                         bb::Error);
    ops::gelu_forward<float>(device.data(), device.data(), 8);  // both on the device: runs
  }
  CHECK_THROWS_WITH_AS(ops::gelu_forward<float>(host.data(), device.data(), 8),
                       "internal: gelu_forward runs on the cpu but its pointer argument 2 is cuda "
                       "memory",
                       bb::Error);
}

TEST_CASE("cuda tanh GELU and point losses") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int n = 1000;
  const auto x = random_floats(n, 8, -5, 5), d = random_floats(n, 9);
  std::vector<float> y(n), dx(n);
  auto gx = dev(x), gd = dev(d);
  DeviceArray<float> gy(n), gdx(n);
  ops::gelu_tanh_forward<float>(y.data(), x.data(), n);
  cu::gelu_tanh_forward(gy.data(), gx.data(), n);
  CHECK(rel_err(gy.download(), y) <= kTol);
  ops::gelu_tanh_backward<float>(dx.data(), d.data(), x.data(), n);
  cu::gelu_tanh_backward(gdx.data(), gd.data(), gx.data(), n);
  CHECK(rel_err(gdx.download(), dx) <= kTol);
  const auto pred = random_floats(n, 10, -30, 30), t01 = random_floats(n, 11, 0, 1);
  auto gp = dev(pred), gt = dev(t01);
  for (ops::PointLoss kind : {ops::PointLoss::bce_logits, ops::PointLoss::squared_error}) {
    float loss = 0;
    DeviceArray<float> gloss(1), gdp(n);
    std::vector<float> dp(n);
    ops::point_loss_forward<float>(&loss, pred.data(), t01.data(), n, kind);
    cu::point_loss_forward(gloss.data(), gp.data(), gt.data(), n, kind);
    CHECK(rel_err(gloss.download(), {loss}) <= kTol);
    ops::point_loss_backward<float>(dp.data(), pred.data(), t01.data(), n, kind, 2.f);
    cu::point_loss_backward(gdp.data(), gp.data(), gt.data(), n, kind, 2.f);
    CHECK(rel_err(gdp.download(), dp) <= kTol);
  }
}
