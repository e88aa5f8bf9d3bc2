// A trained model's attention over sentences: per sentence, layer and head the scores S and the
// weights P of one unmodified forward pass (no dropout), as the model computes them. Used by the
// `attention` command (JSON + SVG heatmaps) and by `saturation` (probing/saturation.h).
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "encoder/config.h"

namespace bb {

struct SentenceAttention {
  std::vector<int32_t> ids;         // (L) incl. <s> and </s>
  std::vector<std::string> pieces;  // (L) SentencePiece pieces ("▁the", "<s>", ...)
  // (layers, heads, L, L) row-major: [layer][head][query][key]
  std::vector<float> scores, weights;
  int length() const { return int(ids.size()); }
  // Layer l, head h's (L, L) block.
  const float* scores_of(int l, int h, int H) const { return scores.data() + block(l, h, H); }
  const float* weights_of(int l, int h, int H) const { return weights.data() + block(l, h, H); }

 private:
  int64_t block(int l, int h, int H) const {
    return (int64_t(l) * H + h) * int64_t(length()) * length();
  }
};

struct ModelAttention {
  std::filesystem::path model;
  Config config;
  // The scoring function's effective trainable values per (layer, head), [l * heads + h]: ssa
  // b, n; softmax-t tau in v0. 0 where the function has none.
  std::vector<double> v0, v1;
  std::vector<SentenceAttention> sentences;
};

// Tokenizes `sentences` with the model directory's tokenizer (a sentence that is not UTF-8 or is
// longer than the model's max_tokens is a one-line error naming its number) and runs them in
// batches of about 512 tokens on the CPU. `keep_scores` false leaves `scores` empty.
ModelAttention read_attention(const std::filesystem::path& model_dir,
                              const std::vector<std::string>& sentences, bool keep_scores);

// {"tokens": [...], "weights": [layer][head][query][key]} per sentence, in a JSON object with the
// model, its label and the number of layers and heads (docs/attention-and-saturation.md).
nlohmann::json attention_json(const ModelAttention& a);

// A grid of heatmaps per sentence (layers down, heads across; token pieces on both axes of the
// first column and the last row), one colour scale from 0 to 1 shared by every cell, with a
// legend. Sentences stacked top to bottom.
std::string attention_svg(const ModelAttention& a);

}  // namespace bb
