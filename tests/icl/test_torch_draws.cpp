// icl/torch_draws.h against PyTorch 1.13's own draws (tests/fixtures/make_torch_draws.py): the
// single draws (the authors' x values) bit-identical; randn(n >= 16) (their function
// coefficients) within 2 ulp, since PyTorch computes those with vectorised SLEEF log and sincos.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "common/json_read.h"
#include "icl/torch_draws.h"

TEST_CASE("torch.manual_seed(s); torch.randn(n) reproduced bit for bit") {
  const nlohmann::json j = bb::read_json_file(std::string(BB_FIXTURES) + "/torch_randn.json");
  int cases = 0;
  for (const auto& d : j.at("draws")) {
    const uint64_t seed = d.at("seed").get<uint64_t>();
    const int n = d.at("n").get<int>();
    CAPTURE(seed);
    CAPTURE(n);
    const std::vector<float> got = bb::icl::torch_randn(seed, n);
    const std::vector<double> want = d.at("values").get<std::vector<double>>();
    REQUIRE(got.size() == want.size());
    int same = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      same += got[i] == float(want[i]);
      CHECK(std::abs(double(got[i]) - want[i]) <= 2 * 1.2e-7 * std::max(1.0, std::abs(want[i])));
    }
    if (n < 16) CHECK(same == n);
    else CHECK(same >= n * 8 / 10);
    ++cases;
  }
  CHECK(cases == 15);
}
