// Whole-model gradient check, for each of the seven scoring functions: every parameter (and the
// trainable scoring values through their raw values) against central finite differences of the
// mean MLM loss, in double precision, with dropout on.
#include <doctest/doctest.h>

#include "encoder/model.h"
#include "grad_check.h"
#include "model_fixtures.h"

using namespace bb;

TEST_CASE("whole-model gradient matches finite differences on a micro model") {
  for (AttentionFunction kind : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(kind));
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
      // h = 1e-4 steps over ssa's C1 kink at s = 0. The piecewise sparse functions take a
      // smaller step, so that no step moves a key across the edge of a support, and judge
      // gradients below 1e-5 absolutely (the key bias's is exactly 0 for shift-invariant
      // functions: a difference quotient of h = 1e-5 is then rounding noise of ~1e-11).
      const bool sparse =
          kind == AttentionFunction::sparsemax || kind == AttentionFunction::entmax15;
      CHECK(test::fd_max_rel_error(x, g, tensor_loss, sparse ? 1e-5 : 1e-4, sparse ? 1e-5 : 1e-6,
                                   60) < 1e-5);
      std::copy(x.begin(), x.end(), model.params.begin() + t.offset);
    }
  }
}

TEST_CASE("frozen SSA values get no gradient") {
  Config c = test::micro_config(AttentionFunction::ssa);
  c.head_value(AttentionFunction::ssa, 1).freeze = true;
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
  CHECK(model.head_value(0, 0, 1) == doctest::Approx(1.7));
  CHECK(model.head_value(1, 1, 0) == doctest::Approx(0.8));
}

TEST_CASE("softmax-t: tau starts at --temperature, and a frozen tau gets no gradient") {
  Config c = test::micro_config(AttentionFunction::softmax_t);
  c.head_value(AttentionFunction::softmax_t, 0).init = 2.5;
  for (bool freeze : {false, true}) {
    c.head_value(AttentionFunction::softmax_t, 0).freeze = freeze;
    const Batch batch = test::micro_batch();
    Model<double> model(c, test::capacity_for(batch, c.max_tokens()));
    model.init_weights(5);
    CHECK(model.head_value(1, 0, 0) == doctest::Approx(2.5));
    model.forward(batch, {false, 0, 0});
    model.zero_grads();
    model.backward();
    const auto& theta = model.layout().at("roberta.encoder.layer.0.attention.self.log_temperature");
    CHECK(theta.saved_name == "roberta.encoder.layer.0.attention.self.temperature");
    CHECK((model.grads[theta.offset] == 0.0) == freeze);
  }
}
