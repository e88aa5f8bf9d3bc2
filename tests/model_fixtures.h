// Small configs and batches shared by the encoder tests.
#pragma once
#include <doctest/doctest.h>

#include "corpora/synthetic.h"
#include "encoder/batch.h"
#include "encoder/config.h"
#include "encoder/model.h"
#include "grad_check.h"

namespace bb::test {

// A model small enough for finite differences over every parameter tensor.
inline Config micro_config(AttentionFunction scoring) {
  Config c = preset("tiny");
  c.vocab_size = 24, c.hidden = 8, c.heads = 2, c.ffn = 12, c.layers = 2, c.max_positions = 14;
  c.attention = scoring;
  c.head_value(AttentionFunction::ssa, 0).init = 0.8;
  c.head_value(AttentionFunction::ssa, 1).init = 1.7;
  c.init_std = 0.4;  // large weights: attention far from uniform, every path exercised
  return c;
}

// Three sequences of lengths 5, 3, 7 (incl. <s>, </s>), four scored rows.
inline Batch micro_batch() {
  Batch b;
  b.ids = {3, 7, 0, 9, 4, 3, 12, 4, 3, 15, 6, 0, 0, 21, 4};
  b.offsets = {0, 5, 8, 15};
  b.rows = {2, 6, 11, 12};
  b.labels = {11, 5, 8, 19};
  return b;
}

inline Capacity capacity_for(const Batch& b, int max_len) {
  return {b.num_seqs(), b.num_tokens(), max_len, b.num_rows()};
}

// Every parameter tensor of `model` (either text kind; its weights nudged off 0 and 1) against
// central finite differences of its mean loss on `batch` with dropout on: the whole-model check
// of each kind's tests. The piecewise sparse functions take a smaller step, so that no step moves
// a key across the edge of a support, and judge gradients below 1e-5 absolutely (the key bias's
// is exactly 0 for shift-invariant functions: a difference quotient of h = 1e-5 is then rounding
// noise of ~1e-11); the others step h = 1e-4 over ssa's C1 kink at s = 0.
inline void check_whole_model_gradient(Model<double>& model, const Batch& batch) {
  model.init_weights(5);
  for (size_t i = 0; i < model.params.size(); ++i)  // biases and norms away from 0 and 1
    model.params[i] += 0.01 * double(i % 7);
  const StepContext ctx{true, 17, 3};
  auto loss = [&] { return double(model.forward(batch, ctx)); };
  loss();
  model.zero_grads();
  model.backward();
  const std::vector<double> analytic(model.grads.begin(), model.grads.end());
  const AttentionFunction f = model.config().attention;
  const bool sparse = f == AttentionFunction::sparsemax || f == AttentionFunction::entmax15;
  for (const ParamTensor& t : model.layout().tensors) {
    CAPTURE(t.name);
    std::vector<double> x(model.params.begin() + t.offset,
                          model.params.begin() + t.offset + t.size);
    std::vector<double> g(analytic.begin() + t.offset, analytic.begin() + t.offset + t.size);
    auto tensor_loss = [&] {
      std::copy(x.begin(), x.end(), model.params.begin() + t.offset);
      return loss();
    };
    CHECK(fd_max_rel_error(x, g, tensor_loss, sparse ? 1e-5 : 1e-4, sparse ? 1e-5 : 1e-6, 60) <
          1e-5);
    std::copy(x.begin(), x.end(), model.params.begin() + t.offset);
  }
}

}  // namespace bb::test
