// The ICL model against a plain PyTorch GPT-2 (tests/fixtures/make_icl_parity.py): trained tiny
// models for every attention function (and three architectures for softmax and ssa), their
// float32 weights loaded here, predictions within 1e-5 relative of PyTorch's float64 ones (or of
// PyTorch's own float32 error, where that is larger), and in double within 1e-10.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "backend/attention_function.h"
#include "common/safetensors.h"
#include "icl/model.h"
#include "icl/trainer.h"
#include "test_util.h"

namespace fs = std::filesystem;

TEST_CASE("ICL predictions match PyTorch (every attention function, trained tiny models)") {
  int fixtures = 0;
  for (const auto& entry : fs::directory_iterator(BB_FIXTURES)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("icl_parity_", 0) != 0) continue;
    CAPTURE(name);
    ++fixtures;
    const bb::icl::Config cfg = bb::icl::read_model_config(entry.path());
    bb::icl::Model<float> model(cfg);
    bb::icl::load_model(entry.path(), model);
    const auto ref = bb::SafetensorsFile::read(entry.path() / "reference.safetensors");
    const bb::Tensor& z = ref.tensors.at("z");
    const int B = int(z.shape[0]), L = int(z.shape[1]);
    const std::vector<float> zf = z.to_f32();
    const std::vector<float> expected = ref.tensors.at("predictions").to_f32();
    model.forward(zf, {}, B, L, bb::ops::PointLoss::squared_error, false);
    const std::vector<float> got = model.predictions();
    REQUIRE(got.size() == expected.size());
    const std::vector<float> torch32 = ref.tensors.at("predictions_float32").to_f32();
    double worst = 0, torch_worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double scale = std::max(1.0, std::abs(double(expected[i])));
      worst = bb::test::worse(worst, std::abs(double(got[i]) - expected[i]) / scale);
      torch_worst =
          bb::test::worse(torch_worst, std::abs(double(torch32[i]) - expected[i]) / scale);
    }
    MESSAGE(name << ": max relative error " << worst << " (PyTorch float32: " << torch_worst
                 << ")");
    CHECK(worst <= std::max(1e-5, torch_worst));
    // In double from the same weights: the same function, up to rounding.
    bb::icl::Model<double> exact(cfg);
    std::copy(model.params.begin(), model.params.end(), exact.params.begin());
    exact.forward(std::vector<double>(zf.begin(), zf.end()), {}, B, L,
                  bb::ops::PointLoss::squared_error, false);
    const std::vector<double> got64 = exact.predictions();
    const std::vector<double> expected64 = [&] {
      const std::string& bytes = ref.tensors.at("predictions").bytes;
      std::vector<double> v(bytes.size() / sizeof(double));
      std::memcpy(v.data(), bytes.data(), bytes.size());
      return v;
    }();
    double worst64 = 0;
    for (size_t i = 0; i < got64.size(); ++i)
      worst64 = bb::test::worse(worst64, std::abs(got64[i] - expected64[i]) /
                                      std::max(1.0, std::abs(expected64[i])));
    CHECK(worst64 <= 1e-10);
  }
  // Every function's `full` model, and softmax's and ssa's two attention-only ones.
  for (bb::AttentionFunction f : bb::kAllAttentionFunctions) {
    const std::string name = std::string(bb::attention_function_name(f));
    CAPTURE(name);
    CHECK(fs::is_directory(fs::path(BB_FIXTURES) / ("icl_parity_" + name + "_full")));
  }
  CHECK(fixtures == int(bb::kAttentionFunctionCount) + 4);
}
