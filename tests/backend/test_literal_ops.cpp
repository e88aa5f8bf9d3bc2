// Ops on small inputs whose outputs are known by hand (CTranslate2's literal tests), run on every
// device through on_each_device: the CPU always, CUDA where present. Float, since CUDA is.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "backend/on_devices.h"
#include "backend/ops.h"

using bb::AttentionFunction;
using bb::test::on_each_device;
using bb::test::OnDevice;
namespace ops = bb::ops;

namespace {

void check_close(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("softmax of a 2x5 block") {
  on_each_device([](OnDevice& on) {
    float* P = on.zeros<float>(10);
    ops::attention_function_forward<float>(P, on.copy<float>({1, 2, 3, 4, 5, 0, 0, 0, 0, 0}),
                                           nullptr, 2, 5, AttentionFunction::softmax, 0.f, 0.f);
    // e^s / sum_k e^k, sum_k e^k = 233.20418...; an all-zero row is uniform
    check_close(on.read(P, 10), {0.011656230956039607, 0.03168492079612427, 0.0861285444362687,
                                 0.23412165725273662, 0.6364086465588308, 0.2, 0.2, 0.2, 0.2,
                                 0.2});
  });
}

TEST_CASE("ssa rows with known b, n: P = f(s) / sum f, f(x) = (1 + b|x|)^(sign(x) n)") {
  on_each_device([](OnDevice& on) {
    const float* S = on.copy<float>({2, -1, 0, 2, -2, 0, 7});
    float* P = on.zeros<float>(7);
    // b = 1, n = 1: f = [3, 1/2, 1] -> [6, 1, 2] / 9
    ops::attention_function_forward<float>(P, S, nullptr, 1, 3, AttentionFunction::ssa, 1.f, 1.f);
    check_close(on.read(P, 3), {6.0 / 9, 1.0 / 9, 2.0 / 9});
    // b = 0.5, n = 3, the last key padded: f = [8, 1/8, 1] -> [64, 1, 8] / 73, padded exactly 0
    ops::attention_function_forward<float>(P + 3, S + 3, on.copy<uint8_t>({1, 1, 1, 0}), 1, 4,
                                           AttentionFunction::ssa, 0.5f, 3.f);
    const auto p = on.read(P + 3, 4);
    check_close({p[0], p[1], p[2]}, {64.0 / 73, 1.0 / 73, 8.0 / 73});
    CHECK(p[3] == 0.f);
  });
}

TEST_CASE("head_values_effective and head_values_raw_grads on known values") {
  on_each_device([](OnDevice& on) {
    float *b = on.zeros<float>(2), *n = on.zeros<float>(2);
    // b = exp(beta), n = 1 + exp(nu); without raw1 (softmax-t's tau alone) v1 is left as it is
    ops::head_values_effective<float>(b, n, on.copy<float>({0, std::log(2.f)}),
                                      on.copy<float>({0, std::log(0.5f)}), 2);
    check_close(on.read(b, 2), {1, 2});
    check_close(on.read(n, 2), {2, 1.5});
    float* tau = on.zeros<float>(2);
    float* untouched = on.copy<float>({7, 7});
    ops::head_values_effective<float>(tau, untouched, on.copy<float>({std::log(3.f), 0}), nullptr,
                                      2);
    check_close(on.read(tau, 2), {3, 1});
    check_close(on.read(untouched, 2), {7, 7});
    // dbeta += db b, dnu += dn (n - 1), each skipped when frozen
    const float *db = on.copy<float>({0.5f, 2}), *dn = on.copy<float>({3, -1});
    const float *bv = on.copy<float>({2, 0.25f}), *nv = on.copy<float>({1.5f, 3});
    for (bool freeze_b : {false, true})
      for (bool freeze_n : {false, true}) {
        float *dbeta = on.copy<float>({1, 1}), *dnu = on.copy<float>({0, 0});
        ops::head_values_raw_grads<float>(dbeta, dnu, db, dn, bv, nv, 2, freeze_b, freeze_n);
        using V = std::vector<double>;
        check_close(on.read(dbeta, 2), freeze_b ? V{1, 1} : V{2, 1.5});
        check_close(on.read(dnu, 2), freeze_n ? V{0, 0} : V{1.5, -2});
      }
  });
}

TEST_CASE("layernorm of a known row") {
  on_each_device([](OnDevice& on) {
    float *out = on.zeros<float>(4), *mean = on.zeros<float>(1), *rstd = on.zeros<float>(1);
    ops::layernorm_forward<float>(out, mean, rstd, on.copy<float>({1, 2, 3, 4}),
                                  on.copy<float>({1, 0.5f, 2, -1}), on.copy<float>({0, 1, 0, 0.5f}),
                                  1, 4, 1e-5f);
    // mean 2.5, biased variance 1.25: rstd = 1/sqrt(1.25 + 1e-5); out = (x - mean) rstd w + b
    check_close(on.read(mean, 1), {2.5});
    check_close(on.read(rstd, 1), {0.894423613312618});
    check_close(on.read(out, 4),
                {-1.3416354199689269, 0.7763940966718454, 0.894423613312618, -0.8416354199689269});
  });
}

TEST_CASE("gelu, residual add, dropout at p = 0, linear and embedding on known values") {
  on_each_device([](OnDevice& on) {
    const float* x = on.copy<float>({-1, 0, 0.5f, 2});
    float* g = on.zeros<float>(4);
    ops::gelu_forward<float>(g, x, 4);  // x Phi(x)
    check_close(on.read(g, 4), {-0.15865525393145707, 0, 0.34573123063700656, 1.9544997361036416});
    ops::add_inplace<float>(g, x, 4);
    check_close(on.read(g, 4), {-1.15865525393145707, 0, 0.84573123063700656, 3.9544997361036416});
    float *out = on.zeros<float>(4), *mask = on.zeros<float>(4);
    ops::dropout_forward<float>(out, mask, x, on.copy<int64_t>({0, 1}), 2, 2, 0.f, nullptr);
    check_close(on.read(mask, 4), {1, 1, 1, 1});
    check_close(on.read(out, 4), {-1, 0, 0.5, 2});
    // y = x W^T + bias: x (1,2), W (3,2)
    float* y = on.zeros<float>(3);
    ops::linear_forward<float>(y, on.copy<float>({1, 2}), on.copy<float>({1, 0, 0, 1, 1, 1}),
                               on.copy<float>({0.5f, 0, -1}), 1, 2, 3);
    check_close(on.read(y, 3), {1.5, 2, 2});
    // out = wte[ids] + wpe[pos], then + wtt on every row
    float* e = on.zeros<float>(4);
    ops::embedding_forward<float>(e, on.copy<int32_t>({2, 0}), on.copy<int32_t>({1, 3}),
                                  on.copy<float>({1, 2, 3, 4, 5, 6}),
                                  on.copy<float>({10, 20, 30, 40, 50, 60, 70, 80}), 2, 2);
    check_close(on.read(e, 4), {35, 46, 71, 82});
    ops::add_row_forward<float>(e, on.copy<float>({100, 200}), 2, 2);
    check_close(on.read(e, 4), {135, 246, 171, 282});
    // drow += the rows' column sums
    float* drow = on.copy<float>({1, 2});
    ops::add_row_backward<float>(drow, on.copy<float>({1, 2, 3, 4, 5, 6}), 3, 2);
    check_close(on.read(drow, 2), {10, 14});
  });
}

TEST_CASE("gather_rows, scatter_rows (repeated rows add up) and fill_zero") {
  on_each_device([](OnDevice& on) {
    const int32_t* rows = on.copy<int32_t>({2, 0, 2});
    float* gathered = on.zeros<float>(6);
    ops::gather_rows<float>(gathered, on.copy<float>({1, 2, 3, 4, 5, 6}), rows, 3, 2);
    check_close(on.read(gathered, 6), {5, 6, 1, 2, 5, 6});
    float* dx = on.copy<float>(std::vector<float>(8, 9.f));  // every row overwritten
    ops::scatter_rows<float>(dx, on.copy<float>({1, 2, 3, 4, 5, 6}), rows, 3, 4, 2);
    check_close(on.read(dx, 8), {3, 4, 0, 0, 6, 8, 0, 0});
    float* p = on.copy<float>({1, -2, 3});
    ops::fill_zero<float>(p, 3);
    check_close(on.read(p, 3), {0, 0, 0});
  });
}

TEST_CASE("cross-entropy and target log-probabilities of known rows") {
  on_each_device([](OnDevice& on) {
    // row 0: logits [0, ln 3], target 1: loss = ln 4 - ln 3; row 1 ignored (target -1)
    const float* logits = on.copy<float>({0, std::log(3.f), 5, 5});
    float *loss = on.zeros<float>(1), *lse = on.zeros<float>(2), *logp = on.zeros<float>(2);
    ops::cross_entropy_forward<float>(loss, lse, logits, on.copy<int32_t>({1, -1}), 2, 2);
    check_close(on.read(loss, 1), {0.28768207245178085});
    check_close(on.read(lse, 1), {std::log(4.0)});
    ops::target_log_probs<float>(logp, logits, on.copy<int32_t>({1, 0}), 2, 2);
    check_close(on.read(logp, 2), {-0.28768207245178085, std::log(0.5)});
  });
}
