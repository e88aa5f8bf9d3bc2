// The CUDA attention functions' rows and attention (bidirectional and causal) against their CPU
// twins, for all seven functions: max |cuda - cpu| / max |cpu| <= 1e-4 per output tensor; up to
// 1,024 tokens, where the keys and values no longer fit in shared memory (the same bits either way).
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

namespace {

// Packed sequences of the given lengths with random q, k, v and context gradients, on both
// devices; check() runs attention forward and backward on the CPU and on CUDA and compares every
// output: the context, S, P, the dropout masks, dqkv and the heads' value gradients.
struct AttentionCase {
  int H, C;
  bb::test::PackedSequences packed;
  std::vector<float> qkv, dctx, bh, nh;
  DeviceArray<int32_t> goff;
  DeviceArray<int64_t> gstore;
  DeviceArray<float> gqkv, gdctx, gbh, gnh;
  ops::AttentionShape host, device;

  AttentionCase(const std::vector<int>& lens, int heads, int hidden, uint64_t seed,
                std::vector<float> b, std::vector<float> n, bool causal, int max_len)
      : H(heads), C(hidden), packed(lens, heads),
        qkv(random_floats(int64_t(packed.N) * 3 * hidden, seed, -2, 2)),
        dctx(random_floats(int64_t(packed.N) * hidden, seed + 1)), bh(std::move(b)),
        nh(std::move(n)), goff(dev(packed.offsets)), gstore(dev(packed.store_at)), gqkv(dev(qkv)),
        gdctx(dev(dctx)), gbh(dev(bh)), gnh(dev(nh)),
        host{packed.B, heads, hidden, packed.offsets.data(), packed.store_at.data()},
        device{packed.B, heads, hidden, goff.data(), gstore.data()} {
    host.causal = device.causal = causal;
    host.max_len = device.max_len = max_len;
  }

  // What attention forward and backward give on one device.
  struct Outputs {
    std::vector<float> ctx, S, P, M, dqkv, db, dn;
    bool operator==(const Outputs&) const = default;
  };

  Outputs cpu(AttentionFunction kind, float p, uint64_t key, int first_seq) {
    host.first_seq = first_seq;  // the dropout rows' global ids
    const int64_t st = packed.scores;
    Outputs o{std::vector<float>(int64_t(packed.N) * C), std::vector<float>(st),
              std::vector<float>(st), std::vector<float>(st), std::vector<float>(qkv.size()),
              std::vector<float>(H, 0.f), std::vector<float>(H, 0.f)};
    std::vector<float> scratch(2 * H * packed.B);
    ops::attention_forward<float>(o.ctx.data(), o.S.data(), o.P.data(), o.M.data(), qkv.data(),
                                  host, kind, bh.data(), nh.data(), p, p > 0 ? &key : nullptr);
    ops::attention_backward<float>(o.dqkv.data(), o.db.data(), o.dn.data(), scratch.data(),
                                   dctx.data(), qkv.data(), o.S.data(), o.P.data(), o.M.data(),
                                   host, kind, bh.data(), nh.data());
    return o;
  }

  Outputs cuda(AttentionFunction kind, float p, uint64_t key, int first_seq) {
    device.first_seq = first_seq;
    const int64_t st = packed.scores;
    auto gkey = dev(std::vector<uint64_t>{key});
    DeviceArray<float> gctx(int64_t(packed.N) * C), gS(st), gP(st), gM(st), gdqkv(qkv.size()),
        gscratch(2 * H * packed.B);
    auto gdb = dev(std::vector<float>(H, 0.f)), gdn = dev(std::vector<float>(H, 0.f));
    cu::attention_forward(gctx.data(), gS.data(), gP.data(), gM.data(), gqkv.data(), device, kind,
                          gbh.data(), gnh.data(), p, p > 0 ? gkey.data() : nullptr);
    cu::attention_backward(gdqkv.data(), gdb.data(), gdn.data(), gscratch.data(), gdctx.data(),
                           gqkv.data(), gS.data(), gP.data(), gM.data(), device, kind, gbh.data(),
                           gnh.data());
    return {gctx.download(), gS.download(), gP.download(), gM.download(),
            gdqkv.download(), gdb.download(), gdn.download()};
  }

  void check(AttentionFunction kind, float p, uint64_t key, int first_seq) {
    const Outputs want = cpu(kind, p, key, first_seq), got = cuda(kind, p, key, first_seq);
    CHECK(rel_err(got.ctx, want.ctx) <= kTol);
    CHECK(rel_err(got.S, want.S) <= kTol);
    CHECK(rel_err(got.P, want.P) <= kTol);
    CHECK(got.M == want.M);  // the same keep/drop draws (all 1 without dropout)
    CHECK(rel_err(got.dqkv, want.dqkv) <= kTol);
    if (bb::head_value_count(kind) > 0) CHECK(rel_err(got.db, want.db) <= kTol);
    if (bb::head_value_count(kind) > 1) CHECK(rel_err(got.dn, want.dn) <= kTol);
  }
};

}  // namespace

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
  AttentionCase c({1, 7, 64, 128, 3}, 8, 256, 1, {0.5f, 1.f, 1.5f, 2.f, 0.7f, 1.1f, 3.f, 1.f},
                  {1.1f, 1.5f, 2.f, 3.f, 1.2f, 1.9f, 1.f, 2.5f}, false, 128);
  for (AttentionFunction kind : bb::kAllAttentionFunctions)
    for (float p : {0.0f, 0.1f}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      c.check(kind, p, 77, 0);
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
  AttentionCase c({1, 7, 82, 400}, 2, 64, 5, {0.5f, 2.f}, {1.1f, 2.5f}, true, 400);
  for (AttentionFunction kind : bb::kAllAttentionFunctions)
    for (const auto& [p, first_seq] :
         {std::pair{0.0f, 0}, std::pair{0.1f, 0}, std::pair{0.1f, 3}}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      CAPTURE(first_seq);
      c.check(kind, p, 91, first_seq);
    }
}

// decoder-114m's 1,024 positions at head size 64: the keys and values (2 L (d + 1) floats, 532 KB)
// outgrow any GPU's shared memory per block, so the kernels read them from global memory.
TEST_CASE("cuda causal attention over 1,024 tokens at head size 64 (keys and values read from "
          "global memory): all seven functions, with and without dropout") {
  SKIP_WITHOUT_CUDA_DEVICE();
  AttentionCase c({1024, 5, 600}, 2, 128, 9, {0.5f, 2.f}, {1.1f, 2.5f}, true, 1024);
  for (AttentionFunction kind : bb::kAllAttentionFunctions)
    for (float p : {0.0f, 0.1f}) {
      CAPTURE(int(kind));
      CAPTURE(p);
      c.check(kind, p, 93, 2);
    }
}

// The same sequences in one batch built for 64 tokens (keys and values in shared memory) and in
// one built for 1,024 (read from global memory): every output bit for bit the same.
TEST_CASE("cuda attention gives the same bits with keys and values in shared or global memory") {
  SKIP_WITHOUT_CUDA_DEVICE();
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    AttentionCase in_shared({9, 64, 1, 33}, 2, 128, 11, {0.5f, 2.f}, {1.1f, 2.5f}, causal, 64);
    AttentionCase streamed({9, 64, 1, 33}, 2, 128, 11, {0.5f, 2.f}, {1.1f, 2.5f}, causal, 1024);
    for (AttentionFunction kind : bb::kAllAttentionFunctions) {
      CAPTURE(int(kind));
      CHECK(in_shared.cuda(kind, 0.1f, 95, 0) == streamed.cuda(kind, 0.1f, 95, 0));
    }
  }
}
