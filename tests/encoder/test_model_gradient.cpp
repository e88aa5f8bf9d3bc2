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
    test::check_whole_model_gradient(model, batch);
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
