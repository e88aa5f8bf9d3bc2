// Presets, labels, config.json round trip and validation.
#include <doctest/doctest.h>

#include "common/error.h"
#include "encoder/config.h"

using namespace bb;

TEST_CASE("presets follow BabyBERTa and the issue's small/tiny shapes") {
  const Config b = preset("babyberta");
  CHECK(b.vocab_size == 8192);
  CHECK(b.layers == 8);
  CHECK(b.heads == 8);
  CHECK(b.hidden == 256);
  CHECK(b.ffn == 1024);
  CHECK(b.max_positions == 130);
  CHECK(b.max_tokens() == 128);
  CHECK(preset("small").hidden == 128);
  CHECK(preset("tiny").layers == 2);
  CHECK_THROWS_WITH_AS(preset("huge"), doctest::Contains("unknown preset 'huge'"), Error);
}

TEST_CASE("labels name the scoring function and its non-default settings") {
  Config c = preset("tiny");
  CHECK(c.label() == "softmax");
  c.scoring = Scoring::ssa;
  CHECK(c.label() == "ssa");
  c.ssa.n_init = 2, c.ssa.freeze_n = true;
  CHECK(c.label() == "ssa(n=2 frozen)");
}

TEST_CASE("config.json round trip and validation") {
  Config c = preset("small");
  c.scoring = Scoring::ssa;
  c.ssa.b_init = 0.5;
  const auto j = to_json(c);
  CHECK(j["architectures"][0] == "RobertaForMaskedLM");
  CHECK(j["attention_scoring"] == "ssa");
  CHECK(j["ssa_b_init"] == 0.5);
  CHECK(to_json(config_from_json(j, "x")) == j);
  auto bad = j;
  bad["ssa_n_init"] = 1.0;
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("cfg.json: ssa_n_init must be > 1"), Error);
  bad = j;
  bad["attention_scoring"] = "sparsemax";
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("unknown attention scoring 'sparsemax'"), Error);
  bad = j;
  bad["hidden_size"] = "big";
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("key 'hidden_size' has the wrong type"), Error);
}
