// The CUDA attention functions' rows and attention (bidirectional and causal) against their CPU
// twins, for all seven functions: max |cuda - cpu| / max |cpu| <= 1e-4 per output tensor.
// Without a CUDA device every case reports "skipped: no CUDA device".
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

TEST_CASE("cuda scoring rows: all seven functions with masked keys") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int R = 9, L = 70;
  std::vector<uint8_t> valid(L, 1);
  for (int j = 50; j < L; ++j) valid[j] = 0;  // padded keys
  const auto signed_scores = random_floats(R * L, 1, -4, 4), dP = random_floats(R * L, 2);
  auto gdP = dev(dP);
  auto gvalid = dev(valid);
  for (AttentionFunction kind : bb::kAllAttentionFunctions) {
    CAPTURE(int(kind));
    std::vector<float> S = signed_scores;
    if (bb::scores_relu_features(kind))  // cosformer scores ReLU features: >= 0
      for (float& x : S) x = std::abs(x);
    auto gS = dev(S);
    std::vector<float> P(R * L), dS(R * L), db = {0.25f}, dn = {-0.5f};
    DeviceArray<float> gP(P.size()), gdS(dS.size());
    auto gdb = dev(db), gdn = dev(dn);
    ops::attention_function_forward<float>(P.data(), S.data(), valid.data(), R, L, kind, 1.3f,
                                           1.7f);
    cu::attention_function_forward(gP.data(), gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f);
    const auto got = gP.download();
    CHECK(rel_err(got, P) <= kTol);
    for (int r = 0; r < R; ++r)
      for (int j = 50; j < L; ++j) CHECK(got[r * L + j] == 0.0f);  // exactly zero
    ops::attention_function_backward<float>(dS.data(), db.data(), dn.data(), dP.data(), P.data(),
                                            S.data(), valid.data(), R, L, kind, 1.3f, 1.7f);
    cu::attention_function_backward(gdS.data(), gdb.data(), gdn.data(), gdP.data(), gP.data(),
                                    gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f);
    CHECK(rel_err(gdS.download(), dS) <= kTol);
    CHECK(rel_err(gdb.download(), db) <= kTol);
    CHECK(rel_err(gdn.download(), dn) <= kTol);
  }
}

TEST_CASE("cuda scoring rows on literal rows: ties, equal scores, a padded key, no valid key") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int R = 4, L = 5;
  const std::vector<float> signed_rows = {1, 1, 0, -2, 5,  0.7f, 0.7f, 0.7f, 0.7f, 0.7f,
                                          -0.3f, -0.3f, -0.3f, -0.3f, -0.3f,  2, -1, 0.5f, 1, 3};
  const std::vector<float> dP = {0.3f, -0.7f, 1.1f, 0.4f, 2,  1, 2, 3, 4, 5,
                                 -1, 0.5f, 0.25f, 2, 1,  0.1f, 0.2f, -0.3f, 0.4f, 0.5f};
  auto gdP = dev(dP);
  for (const std::vector<uint8_t>& valid :
       {std::vector<uint8_t>{1, 1, 1, 1, 0}, std::vector<uint8_t>{0, 0, 0, 0, 0}}) {
    auto gvalid = dev(valid);
    for (AttentionFunction kind : bb::kAllAttentionFunctions) {
      CAPTURE(int(kind));
      CAPTURE(int(valid[0]));
      std::vector<float> S = signed_rows;
      if (bb::scores_relu_features(kind))
        for (float& x : S) x = std::abs(x);
      auto gS = dev(S);
      std::vector<float> P(R * L), dS(R * L), dv0 = {0.f}, dv1 = {0.f};
      DeviceArray<float> gP(P.size()), gdS(dS.size());
      auto gdv0 = dev(dv0), gdv1 = dev(dv1);
      ops::attention_function_forward<float>(P.data(), S.data(), valid.data(), R, L, kind, 1.3f,
                                             1.7f);
      cu::attention_function_forward(gP.data(), gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f);
      const auto got = gP.download();
      for (int e = 0; e < R * L; ++e) CHECK(got[e] == doctest::Approx(P[e]).epsilon(1e-5));
      ops::attention_function_backward<float>(dS.data(), dv0.data(), dv1.data(), dP.data(),
                                              P.data(), S.data(), valid.data(), R, L, kind, 1.3f,
                                              1.7f);
      cu::attention_function_backward(gdS.data(), gdv0.data(), gdv1.data(), gdP.data(), gP.data(),
                                      gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f);
      const auto gotd = gdS.download();
      for (int e = 0; e < R * L; ++e) CHECK(gotd[e] == doctest::Approx(dS[e]).epsilon(1e-4));
      CHECK(gdv0.download()[0] == doctest::Approx(dv0[0]).epsilon(1e-4));
      CHECK(gdv1.download()[0] == doctest::Approx(dv1[0]).epsilon(1e-4));
    }
  }
}

TEST_CASE("cuda attention at lengths 1, 7, 64, 128: all seven functions, with and without dropout") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const int H = 8, C = 256;
  const bb::test::PackedSequences packed({1, 7, 64, 128, 3}, H);
  const int B = packed.B, N = packed.N;
  const int64_t st = packed.scores;
  const std::vector<int32_t>& offsets = packed.offsets;
  const std::vector<int64_t>& store_at = packed.store_at;
  const ops::AttentionShape host_shape{B, H, C, offsets.data(), store_at.data()};
  auto goff = dev(offsets);
  auto gstore = dev(store_at);
  const ops::AttentionShape dev_shape{B, H, C, goff.data(), gstore.data()};
  const auto qkv = random_floats(int64_t(N) * 3 * C, 1, -2, 2), dctx = random_floats(int64_t(N) * C, 2);
  const std::vector<float> bh = {0.5f, 1.f, 1.5f, 2.f, 0.7f, 1.1f, 3.f, 1.f};
  const std::vector<float> nh = {1.1f, 1.5f, 2.f, 3.f, 1.2f, 1.9f, 1.f, 2.5f};
  auto gqkv = dev(qkv), gdctx = dev(dctx), gbh = dev(bh), gnh = dev(nh);
  const uint64_t key = 77;
  auto gkey = dev(std::vector<uint64_t>{key});
  for (AttentionFunction kind : bb::kAllAttentionFunctions)
    for (float p : {0.0f, 0.1f}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      std::vector<float> ctx(int64_t(N) * C), S(st), P(st), M(st), dqkv(qkv.size());
      std::vector<float> db(H, 0.f), dn(H, 0.f), scratch(2 * H * B);
      DeviceArray<float> gctx(ctx.size()), gS(st), gP(st), gM(st), gdqkv(qkv.size()),
          gscratch(scratch.size());
      auto gdb = dev(db), gdn = dev(dn);
      ops::attention_forward<float>(ctx.data(), S.data(), P.data(), M.data(), qkv.data(),
                                    host_shape, kind, bh.data(), nh.data(), p, &key);
      cu::attention_forward(gctx.data(), gS.data(), gP.data(), gM.data(), gqkv.data(), dev_shape,
                            kind, gbh.data(), gnh.data(), p, gkey.data());
      CHECK(rel_err(gctx.download(), ctx) <= kTol);
      CHECK(rel_err(gS.download(), S) <= kTol);
      CHECK(rel_err(gP.download(), P) <= kTol);
      CHECK(gM.download() == M);
      ops::attention_backward<float>(dqkv.data(), db.data(), dn.data(), scratch.data(),
                                     dctx.data(), qkv.data(), S.data(), P.data(), M.data(),
                                     host_shape, kind, bh.data(), nh.data());
      cu::attention_backward(gdqkv.data(), gdb.data(), gdn.data(), gscratch.data(), gdctx.data(),
                             gqkv.data(), gS.data(), gP.data(), gM.data(), dev_shape, kind,
                             gbh.data(), gnh.data());
      CHECK(rel_err(gdqkv.download(), dqkv) <= kTol);
      if (bb::head_value_count(kind) > 0) CHECK(rel_err(gdb.download(), db) <= kTol);
      if (bb::head_value_count(kind) > 1) CHECK(rel_err(gdn.download(), dn) <= kTol);
    }
}

TEST_CASE("cuda causal scoring rows and causal attention up to 400 tokens: all seven functions, "
          "with and without dropout, the batch's first sequence at global index 0 and 3") {
  SKIP_WITHOUT_CUDA_DEVICE();
  {
    const int R = 70, L = 70;
    std::vector<uint8_t> valid(L, 1);
    const auto signed_scores = random_floats(R * L, 3, -4, 4), dP = random_floats(R * L, 4);
    auto gdP = dev(dP);
    auto gvalid = dev(valid);
    for (AttentionFunction kind : bb::kAllAttentionFunctions) {
      CAPTURE(int(kind));
      std::vector<float> S = signed_scores;
      if (bb::scores_relu_features(kind))
        for (float& x : S) x = std::abs(x);
      auto gS = dev(S);
      std::vector<float> P(R * L), dS(R * L), db = {0.25f}, dn = {-0.5f};
      DeviceArray<float> gP(P.size()), gdS(dS.size());
      auto gdb = dev(db), gdn = dev(dn);
      ops::attention_function_forward<float>(P.data(), S.data(), valid.data(), R, L, kind, 1.3f,
                                             1.7f, true);
      cu::attention_function_forward(gP.data(), gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f,
                                     true);
      const auto got = gP.download();
      CHECK(rel_err(got, P) <= kTol);
      for (int r = 0; r < R; ++r)
        for (int j = r + 1; j < L; ++j) CHECK(got[r * L + j] == 0.0f);
      ops::attention_function_backward<float>(dS.data(), db.data(), dn.data(), dP.data(),
                                              P.data(), S.data(), valid.data(), R, L, kind, 1.3f,
                                              1.7f, true);
      cu::attention_function_backward(gdS.data(), gdb.data(), gdn.data(), gdP.data(), gP.data(),
                                      gS.data(), gvalid.data(), R, L, kind, 1.3f, 1.7f, true);
      CHECK(rel_err(gdS.download(), dS) <= kTol);
      CHECK(rel_err(gdb.download(), db) <= kTol);
      CHECK(rel_err(gdn.download(), dn) <= kTol);
    }
  }
  const int H = 2, C = 64;
  const bb::test::PackedSequences packed({1, 7, 82, 400}, H);
  const int B = packed.B, N = packed.N;
  const int64_t st = packed.scores;
  const std::vector<int32_t>& offsets = packed.offsets;
  const std::vector<int64_t>& store_at = packed.store_at;
  ops::AttentionShape host_shape{B, H, C, offsets.data(), store_at.data()};
  host_shape.causal = true, host_shape.max_len = 400;
  auto goff = dev(offsets);
  auto gstore = dev(store_at);
  ops::AttentionShape dev_shape{B, H, C, goff.data(), gstore.data()};
  dev_shape.causal = true, dev_shape.max_len = 400;
  const auto qkv = random_floats(int64_t(N) * 3 * C, 5, -2, 2), dctx = random_floats(int64_t(N) * C, 6);
  const std::vector<float> bh = {0.5f, 2.f}, nh = {1.1f, 2.5f};
  auto gqkv = dev(qkv), gdctx = dev(dctx), gbh = dev(bh), gnh = dev(nh);
  const uint64_t key = 91;
  auto gkey = dev(std::vector<uint64_t>{key});
  for (AttentionFunction kind : bb::kAllAttentionFunctions)
    for (const auto& [p, first_seq] :
         {std::pair{0.0f, 0}, std::pair{0.1f, 0}, std::pair{0.1f, 3}}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      CAPTURE(first_seq);
      host_shape.first_seq = dev_shape.first_seq = first_seq;  // the dropout rows' global ids
      std::vector<float> ctx(int64_t(N) * C), S(st), P(st), M(st), dqkv(qkv.size());
      std::vector<float> db(H, 0.f), dn(H, 0.f), scratch(2 * H * B);
      DeviceArray<float> gctx(ctx.size()), gS(st), gP(st), gM(st), gdqkv(qkv.size()),
          gscratch(scratch.size());
      auto gdb = dev(db), gdn = dev(dn);
      ops::attention_forward<float>(ctx.data(), S.data(), P.data(), M.data(), qkv.data(),
                                    host_shape, kind, bh.data(), nh.data(), p,
                                    p > 0 ? &key : nullptr);
      cu::attention_forward(gctx.data(), gS.data(), gP.data(), gM.data(), gqkv.data(), dev_shape,
                            kind, gbh.data(), gnh.data(), p, p > 0 ? gkey.data() : nullptr);
      CHECK(rel_err(gctx.download(), ctx) <= kTol);
      CHECK(rel_err(gS.download(), S) <= kTol);
      CHECK(rel_err(gP.download(), P) <= kTol);
      CHECK(gM.download() == M);  // the same keep/drop draws (all 1 without dropout)
      ops::attention_backward<float>(dqkv.data(), db.data(), dn.data(), scratch.data(),
                                     dctx.data(), qkv.data(), S.data(), P.data(), M.data(),
                                     host_shape, kind, bh.data(), nh.data());
      cu::attention_backward(gdqkv.data(), gdb.data(), gdn.data(), gscratch.data(), gdctx.data(),
                             gqkv.data(), gS.data(), gP.data(), gM.data(), dev_shape, kind,
                             gbh.data(), gnh.data());
      CHECK(rel_err(gdqkv.download(), dqkv) <= kTol);
      if (bb::head_value_count(kind) > 0) CHECK(rel_err(gdb.download(), db) <= kTol);
      if (bb::head_value_count(kind) > 1) CHECK(rel_err(gdn.download(), dn) <= kTol);
    }
}
