// Data parallelism without MPI: the shares of a batch (take_share), each trained with its global
// first sequence and loss weight, give the global batch's loss and gradients when summed, dropout
// on; so R ranks summing gradients make one process's update. (tests/mpi/ runs it under mpirun.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "corpora/synthetic.h"
#include "encoder/model.h"
#include "test_util.h"

using namespace bb;

TEST_CASE("take_share splits a batch into contiguous shares that together are the batch") {
  Batch g;
  synthetic_batch(4, 2, 7, MaskingOptions{.vocab_size = 300}, 20, g);
  for (int ranks : {1, 2, 3, 7, 8, 11}) {  // 8, 11: more ranks than sequences, some shares empty
    CAPTURE(ranks);
    Batch joined;
    joined.clear();
    int next_seq = 0;
    for (int r = 0; r < ranks; ++r) {
      Batch s;
      const int first = take_share(g, r, ranks, s);
      CHECK(first == next_seq);
      CHECK(s.num_seqs() >= (ranks <= g.num_seqs() ? 1 : 0));
      CHECK(s.num_seqs() <= 1 + (g.num_seqs() - 1) / ranks + 1);
      next_seq += s.num_seqs();
      const int base = joined.num_tokens();
      joined.ids.insert(joined.ids.end(), s.ids.begin(), s.ids.end());
      for (int b = 1; b <= s.num_seqs(); ++b) joined.offsets.push_back(base + s.offsets[b]);
      for (int m = 0; m < s.num_rows(); ++m) {
        joined.rows.push_back(base + s.rows[m]);
        joined.labels.push_back(s.labels[m]);
      }
    }
    CHECK(next_seq == g.num_seqs());
    CHECK(joined.ids == g.ids);
    CHECK(joined.offsets == g.offsets);
    CHECK(joined.rows == g.rows);
    CHECK(joined.labels == g.labels);
  }
  Batch s;
  CHECK(take_share(g, 0, 8, s) == 0);  // 7 sequences, 8 ranks: rank 0's share is empty
  CHECK(s.num_seqs() == 0);
  CHECK(s.num_rows() == 0);
}

TEST_CASE("shares weighted by their masked tokens sum to the global loss and gradients (dropout on)") {
  for (AttentionFunction kind : {AttentionFunction::softmax, AttentionFunction::ssa}) {
    CAPTURE(attention_function_name(kind));
    Config c = preset("tiny");
    c.vocab_size = 300, c.attention = kind;
    Batch g;
    synthetic_batch(6, 1, 6, MaskingOptions{.vocab_size = 300}, 20, g);
    const Capacity cap{6, 6 * 20, 20, 6 * 20};
    Model<float> whole(c, cap), part(c, cap);
    whole.init_weights(3);
    part.init_weights(3);
    const StepContext ctx{true, 11, 5};
    whole.zero_grads();
    const double global_loss = whole.forward(g, ctx);
    whole.backward();
    for (int ranks : {2, 3}) {
      CAPTURE(ranks);
      std::vector<double> summed(part.grads.size(), 0.0);
      double loss = 0;
      for (int r = 0; r < ranks; ++r) {
        Batch s;
        StepContext sc = ctx;
        sc.first_seq = take_share(g, r, ranks, s);
        sc.loss_weight = float(double(labelled_rows(s)) / labelled_rows(g));
        part.zero_grads();
        loss += sc.loss_weight * double(part.forward(s, sc));
        part.backward();
        for (size_t i = 0; i < summed.size(); ++i) summed[i] += part.grads[i];
      }
      CHECK(loss == doctest::Approx(global_loss).epsilon(1e-6));
      double scale = 0, diff = 0;
      for (size_t i = 0; i < summed.size(); ++i) {
        scale = std::max(scale, double(std::abs(whole.grads[i])));
        diff = bb::test::worse(diff, std::abs(summed[i] - double(whole.grads[i])));
      }
      CHECK(scale > 0);
      CHECK(diff <= 1e-5 * scale);
      // Keyed by the local sequence instead, dropout would differ and so would the gradients.
      Batch s;
      take_share(g, 1, ranks, s);
      StepContext wrong = ctx;
      part.zero_grads();
      part.forward(s, wrong);
      StepContext right = ctx;
      right.first_seq = take_share(g, 1, ranks, s);
      Model<float> other(c, cap);
      other.init_weights(3);
      other.zero_grads();
      other.forward(s, right);
      CHECK(part.loss() != other.loss());
    }
  }
}
