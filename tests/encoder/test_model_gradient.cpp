// Whole-model gradient check: every parameter (and SSA's b, n through their raw values) against
// central finite differences of the mean MLM loss, in double precision, with dropout on.
#include <doctest/doctest.h>

#include "encoder/model.h"
#include "grad_check.h"
#include "model_fixtures.h"

using namespace bb;

TEST_CASE("whole-model gradient matches finite differences on a micro model") {
  for (Scoring kind : {Scoring::softmax, Scoring::ssa}) {
    CAPTURE(scoring_name(kind));
    const Config c = test::micro_config(kind);
    const Batch batch = test::micro_batch();
    Model<double> model(c, test::capacity_for(batch, c.max_tokens()));
    model.init_weights(5);
    for (size_t i = 0; i < model.params.size(); ++i)  // biases and norms away from 0 and 1
      model.params[i] += 0.01 * double(i % 7);
    const StepContext ctx{true, 17, 3};
    auto loss = [&] { return double(model.forward(batch, ctx)); };
    loss();
    model.zero_grads();
    model.backward();
    const std::vector<double> analytic(model.grads.begin(), model.grads.end());
    for (const ParamTensor& t : model.layout().tensors) {
      CAPTURE(t.name);
      std::vector<double> x(model.params.begin() + t.offset,
                            model.params.begin() + t.offset + t.size);
      std::vector<double> g(analytic.begin() + t.offset, analytic.begin() + t.offset + t.size);
      auto tensor_loss = [&] {
        std::copy(x.begin(), x.end(), model.params.begin() + t.offset);
        return loss();
      };
      CHECK(test::fd_max_rel_error(x, g, tensor_loss, 1e-4, 1e-6, 60) < 1e-5);
      std::copy(x.begin(), x.end(), model.params.begin() + t.offset);
    }
  }
}

TEST_CASE("frozen SSA values get no gradient") {
  Config c = test::micro_config(Scoring::ssa);
  c.ssa.freeze_n = true;
  const Batch batch = test::micro_batch();
  Model<double> model(c, test::capacity_for(batch, c.max_tokens()));
  model.init_weights(5);
  model.forward(batch, {false, 0, 0});
  model.zero_grads();
  model.backward();
  const auto& nu = model.layout().at("roberta.encoder.layer.0.attention.self.ssa_nu");
  const auto& beta = model.layout().at("roberta.encoder.layer.0.attention.self.ssa_beta");
  CHECK(model.grads[nu.offset] == 0.0);
  CHECK(model.grads[beta.offset] != 0.0);
  CHECK(model.ssa_n(0, 0) == doctest::Approx(1.7));
  CHECK(model.ssa_b(1, 1) == doctest::Approx(0.8));
}
