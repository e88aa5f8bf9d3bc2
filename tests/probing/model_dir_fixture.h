// A random tiny model with a toy tokenizer, saved as a model directory (the probing tests'
// fixture: scorer, attention maps, saturation).
#pragma once
#include <filesystem>

#include "encoder/checkpoint.h"
#include "encoder/model.h"
#include "tokenizer/tokenizer.h"
#include "toy_corpus.h"

namespace bb::test {

inline void make_model_dir(const std::filesystem::path& dir, AttentionFunction scoring,
                           double init_std = 0.3) {
  Tokenizer::train(toy_sentences(300), {.vocab_size = 400}, dir);
  const Tokenizer tok = Tokenizer::load(dir);
  Config c = preset("tiny");
  c.vocab_size = tok.vocab_size();
  c.attention = scoring;
  c.init_std = init_std;  // 0.3: far from uniform predictions and attention
  c.tokenizer = tok.settings();
  Model<float> m(c, {1, 1, 1, 1});
  m.init_weights(11);
  save_model(dir, m);
  std::filesystem::remove(dir / "tokenizer.json");  // a model directory keeps them in config.json
}

}  // namespace bb::test
