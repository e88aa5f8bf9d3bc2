// Fused multi-head attention over packed sequences: finite differences (all seven scoring
// functions, with attention dropout), equality with the same attention composed from elementary ops on a padded
// layout with a key mask, and independence from the other sequences in the batch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/ops.h"
#include "grad_check.h"

using bb::AttentionFunction;
using bb::test::dot;
using bb::test::fd_max_rel_error;
using bb::test::random_vector;
namespace ops = bb::ops;

namespace {

struct Packed {
  std::vector<int32_t> offsets;
  std::vector<int64_t> store_at;
  int H, C;
  ops::AttentionShape shape() const {
    return {int(offsets.size()) - 1, H, C, offsets.data(), store_at.data()};
  }
  int N() const { return offsets.back(); }
  int64_t store() const { return store_at.back(); }
};

Packed make_packed(const std::vector<int>& lens, int H, int C) {
  Packed p{{0}, {0}, H, C};
  for (int L : lens) {
    p.offsets.push_back(p.offsets.back() + L);
    p.store_at.push_back(p.store_at.back() + int64_t(H) * L * L);
  }
  return p;
}

}  // namespace

TEST_CASE("attention gradients match finite differences (qkv, trainable values; with dropout)") {
  const int H = 2, C = 6;
  const Packed pk = make_packed({1, 4, 7}, H, C);
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    for (float p : {0.0f, 0.3f}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      auto qkv = random_vector(int64_t(pk.N()) * 3 * C, 11, -2, 2);
      std::vector<double> b = {0.8, 1.7}, n = {1.3, 2.2};  // v0 (ssa b, softmax-t tau), v1
      const auto w = random_vector(int64_t(pk.N()) * C, 12);
      std::vector<double> ctx(pk.N() * C), S(pk.store()), P(pk.store()), M(pk.store());
      const uint64_t key = 99;
      auto loss = [&] {
        ops::attention_forward<double>(ctx.data(), S.data(), P.data(), M.data(), qkv.data(),
                                       pk.shape(), kind, b.data(), n.data(), p, &key);
        return dot(w, ctx.data());
      };
      loss();
      std::vector<double> dqkv(qkv.size()), db(H, 0.0), dn(H, 0.0), scratch(2 * H * 3);
      ops::attention_backward<double>(dqkv.data(), db.data(), dn.data(), scratch.data(), w.data(),
                                      qkv.data(), S.data(), P.data(), M.data(), pk.shape(), kind,
                                      b.data(), n.data());
      CHECK(fd_max_rel_error(qkv, dqkv, loss) < 1e-6);
      if (bb::head_value_count(kind) > 0) CHECK(fd_max_rel_error(b, db, loss) < 1e-6);
      if (bb::head_value_count(kind) > 1) CHECK(fd_max_rel_error(n, dn, loss) < 1e-6);
    }
  }
}

// Fused attention with head size d against the same attention composed from gemm + scoring.
void check_fused_against_composed(const int d) {
  const int H = 2, C = H * d, T = 5;  // T: padded length
  const std::vector<int> lens = {5, 2, 3};
  const Packed pk = make_packed(lens, H, C);
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    CAPTURE(int(kind));
    const bool relu = bb::scores_relu_features(kind);  // cosformer: relu(q) relu(k)^T, no scale
    const auto qkv = random_vector(int64_t(pk.N()) * 3 * C, 21, -2, 2);
    const auto dctx = random_vector(int64_t(pk.N()) * C, 22);
    const std::vector<double> b = {0.6, 1.4}, n = {1.5, 2.5};
    std::vector<double> ctx(pk.N() * C), S(pk.store()), P(pk.store()), M(pk.store());
    std::vector<double> dqkv(qkv.size()), db(H, 0.0), dn(H, 0.0), scratch(2 * H * 3);
    ops::attention_forward<double>(ctx.data(), S.data(), P.data(), M.data(), qkv.data(),
                                   pk.shape(), kind, b.data(), n.data(), 0.f, nullptr);
    ops::attention_backward<double>(dqkv.data(), db.data(), dn.data(), scratch.data(), dctx.data(),
                                    qkv.data(), S.data(), P.data(), M.data(), pk.shape(), kind,
                                    b.data(), n.data());
    double cdb[2] = {0, 0}, cdn[2] = {0, 0};
    for (size_t s = 0; s < lens.size(); ++s) {
      const int L = lens[s], off = pk.offsets[s];
      std::vector<uint8_t> valid(T, 0);
      for (int j = 0; j < L; ++j) valid[j] = 1;
      for (int h = 0; h < H; ++h) {
        // Padded copies (T, d): rows >= L hold garbage that the key mask must neutralise.
        std::vector<double> q(T * d, 7.0), k(T * d, -9.0), v(T * d, 5.0), g(T * d, 3.0);
        for (int i = 0; i < L; ++i)
          for (int c = 0; c < d; ++c) {
            const int64_t r = int64_t(off + i) * 3 * C + h * d + c;
            q[i * d + c] = relu ? std::max(qkv[r], 0.0) : qkv[r];
            k[i * d + c] = relu ? std::max(qkv[r + C], 0.0) : qkv[r + C];
            v[i * d + c] = qkv[r + 2 * C];
            g[i * d + c] = dctx[int64_t(off + i) * C + h * d + c];
          }
        std::vector<double> Sp(T * T), Pp(T * T), o(T * d), dP(T * T), dS(T * T), dq(T * d),
            dk(T * d), dv(T * d);
        const double scale = relu ? 1.0 : 1 / std::sqrt(double(d));
        ops::gemm<double>(false, true, T, T, d, scale, q.data(), d, k.data(), d, 0, Sp.data(), T);
        ops::attention_function_forward<double>(Pp.data(), Sp.data(), valid.data(), T, T, kind,
                                                b[h], n[h]);
        ops::gemm<double>(false, false, T, d, T, 1, Pp.data(), T, v.data(), d, 0, o.data(), d);
        for (int i = T - 1; i >= L; --i)  // padded query rows carry no gradient
          for (int c = 0; c < d; ++c) g[i * d + c] = 0;
        ops::gemm<double>(false, true, T, T, d, 1, g.data(), d, v.data(), d, 0, dP.data(), T);
        ops::gemm<double>(true, false, T, d, T, 1, Pp.data(), T, g.data(), d, 0, dv.data(), d);
        ops::attention_function_backward<double>(dS.data(), &cdb[h], &cdn[h], dP.data(), Pp.data(),
                                                 Sp.data(), valid.data(), T, T, kind, b[h], n[h]);
        ops::gemm<double>(false, false, T, d, T, scale, dS.data(), T, k.data(), d, 0, dq.data(), d);
        ops::gemm<double>(true, false, T, d, T, scale, dS.data(), T, q.data(), d, 0, dk.data(), d);
        for (int i = 0; i < L; ++i)
          for (int c = 0; c < d; ++c) {
            const int64_t r = int64_t(off + i) * 3 * C + h * d + c;
            if (relu && qkv[r] <= 0) dq[i * d + c] = 0;  // ReLU's gradient
            if (relu && qkv[r + C] <= 0) dk[i * d + c] = 0;
            CHECK(ctx[int64_t(off + i) * C + h * d + c] == doctest::Approx(o[i * d + c]).epsilon(1e-12));
            CHECK(dqkv[r] == doctest::Approx(dq[i * d + c]).epsilon(1e-10));
            CHECK(dqkv[r + C] == doctest::Approx(dk[i * d + c]).epsilon(1e-10));
            CHECK(dqkv[r + 2 * C] == doctest::Approx(dv[i * d + c]).epsilon(1e-10));
          }
      }
    }
    for (int h = 0; h < H; ++h) {
      CHECK(db[h] == doctest::Approx(cdb[h]).epsilon(1e-10));
      CHECK(dn[h] == doctest::Approx(cdn[h]).epsilon(1e-10));
    }
  }
}

TEST_CASE("fused attention equals attention composed from gemm + scoring on a padded layout") {
  // Head size 4 runs the run-time-d loops, 32 (every preset's) the compile-time ones.
  for (const int d : {4, 32}) {
    CAPTURE(d);
    check_fused_against_composed(d);
  }
}

TEST_CASE("a sequence's attention does not depend on the other sequences in the batch") {
  const int H = 2, C = 4;
  const auto alone_qkv = random_vector(3 * 3 * C, 31);
  const Packed alone = make_packed({3}, H, C), batch = make_packed({5, 3, 1}, H, C);
  auto qkv = random_vector(int64_t(batch.N()) * 3 * C, 32);
  std::copy(alone_qkv.begin(), alone_qkv.end(), qkv.begin() + 5 * 3 * C);
  const std::vector<double> b = {1, 1}, n = {1.5, 1.5};
  std::vector<double> c1(3 * C), c2(batch.N() * C);
  std::vector<double> S1(alone.store()), P1(alone.store()), M1(alone.store());
  std::vector<double> S2(batch.store()), P2(batch.store()), M2(batch.store());
  ops::attention_forward<double>(c1.data(), S1.data(), P1.data(), M1.data(), alone_qkv.data(),
                                 alone.shape(), AttentionFunction::ssa, b.data(), n.data(), 0.f,
                                 nullptr);
  ops::attention_forward<double>(c2.data(), S2.data(), P2.data(), M2.data(), qkv.data(),
                                 batch.shape(), AttentionFunction::ssa, b.data(), n.data(), 0.f,
                                 nullptr);
  for (int i = 0; i < 3 * C; ++i) CHECK(c1[i] == c2[5 * C + i]);
}
