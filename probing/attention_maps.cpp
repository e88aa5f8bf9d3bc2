#include "probing/attention_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "encoder/checkpoint.h"
#include "encoder/model.h"
#include "probing/scorer.h"
#include "common/svg.h"
#include "tokenizer/tokenizer.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

constexpr int kBatchTokens = 512;

// Copies the observed layer's blocks into the batch's sentences (first..first+B).
void copy_blocks(std::vector<SentenceAttention>& out, size_t first, const Batch& batch, int layer,
                 int H, const float* S, const float* P, bool keep_scores) {
  int64_t at = 0;
  for (int b = 0; b < batch.num_seqs(); ++b) {
    SentenceAttention& s = out[first + b];
    const int64_t L = s.length(), block = H * L * L;
    std::copy(P + at, P + at + block, s.weights.begin() + layer * block);
    if (keep_scores) std::copy(S + at, S + at + block, s.scores.begin() + layer * block);
    at += block;
  }
}

}  // namespace

ModelAttention read_attention(const fs::path& model_dir, const std::vector<std::string>& sentences,
                              bool keep_scores) {
  ModelAttention a;
  a.model = model_dir;
  a.config = read_model_config(model_dir);
  const Config& c = a.config;
  const Tokenizer tok = Tokenizer::load(model_dir);
  check_tokenizer_matches(model_dir, c, tok);
  const int L_max = c.max_tokens(), H = c.heads;
  Capacity cap{std::max(kBatchTokens, L_max), std::max(kBatchTokens, L_max), L_max,
               std::max(kBatchTokens, L_max)};
  cap.inference_only = true;
  Model<float> model(c, cap);
  load_model_weights(model_dir, model);
  const int values = head_value_count(c.attention);
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < H; ++h) {
      a.v0.push_back(values > 0 ? double(model.head_value(l, h, 0)) : 0.0);
      a.v1.push_back(values > 1 ? double(model.head_value(l, h, 1)) : 0.0);
    }

  for (size_t i = 0; i < sentences.size(); ++i) {
    auto ids = tok.encode(sentences[i]);
    BB_CHECK(ids, "sentence {}: invalid UTF-8 (expected UTF-8 text)", i + 1);
    BB_CHECK(int(ids->size()) <= L_max, "sentence {}: {} tokens, longer than the model's {} (\"{}\")",
             i + 1, ids->size(), L_max, sentences[i].substr(0, 60));
    SentenceAttention& s = a.sentences.emplace_back();
    s.ids = std::move(*ids);
    for (int32_t id : s.ids) s.pieces.push_back(tok.piece(id));
    const int64_t n = int64_t(c.layers) * H * s.length() * s.length();
    s.weights.assign(n, 0.f);
    if (keep_scores) s.scores.assign(n, 0.f);
  }

  // Batches of whole sentences; the LM head runs at one row per sentence (its output unused).
  for (size_t first = 0; first < a.sentences.size();) {
    Batch batch;
    batch.clear();
    size_t end = first;
    while (end < a.sentences.size() &&
           (end == first || batch.num_tokens() + a.sentences[end].length() <= cap.max_tokens)) {
      batch.rows.push_back(batch.num_tokens());
      const auto& ids = a.sentences[end].ids;
      batch.ids.insert(batch.ids.end(), ids.begin(), ids.end());
      batch.offsets.push_back(batch.num_tokens());
      ++end;
    }
    model.observe_attention([&](int layer, const float* S, const float* P) {
      copy_blocks(a.sentences, first, batch, layer, H, S, P, keep_scores);
    });
    model.forward(batch, {false, 0, 0});
    first = end;
  }
  model.observe_attention(nullptr);
  return a;
}

nlohmann::json attention_json(const ModelAttention& a) {
  using json = nlohmann::json;
  const Config& c = a.config;
  json sentences = json::array();
  for (const SentenceAttention& s : a.sentences) {
    const int L = s.length();
    json layers = json::array();
    for (int l = 0; l < c.layers; ++l) {
      json heads = json::array();
      for (int h = 0; h < c.heads; ++h) {
        const float* w = s.weights_of(l, h, c.heads);
        json rows = json::array();
        for (int i = 0; i < L; ++i)
          rows.push_back(std::vector<float>(w + int64_t(i) * L, w + int64_t(i + 1) * L));
        heads.push_back(std::move(rows));
      }
      layers.push_back(std::move(heads));
    }
    sentences.push_back({{"tokens", s.pieces}, {"weights", std::move(layers)}});
  }
  return {{"model", fs::absolute(a.model).string()},
          {"attention_scoring", attention_function_name(c.attention)},
          {"label", c.label()},
          {"layers", c.layers},
          {"heads", c.heads},
          {"weights_index", "[layer][head][query][key]"},
          {"sentences", std::move(sentences)}};
}

namespace {

// Weight 0 -> white, 1 -> dark blue (linear in each channel).
std::string colour(double w) {
  w = std::clamp(w, 0.0, 1.0);
  auto ch = [&](int full) { return int(std::lround(255 + (full - 255) * w)); };
  return fmt::format("#{:02x}{:02x}{:02x}", ch(8), ch(48), ch(107));
}

}  // namespace

std::string attention_svg(const ModelAttention& a) {
  const Config& c = a.config;
  const double left = 110, top = 50, gap = 14, label_room = 80;
  int longest = 1;
  for (const auto& s : a.sentences) longest = std::max(longest, s.length());
  const double cell = std::clamp(150.0 / longest, 4.0, 14.0);
  const double panel = cell * longest;
  const double grid_w = c.heads * (panel + gap), grid_h = c.layers * (panel + gap);
  const double sentence_h = grid_h + label_room + 40;
  const double width = left + grid_w + 90;
  const double height = top + sentence_h * double(a.sentences.size()) + 10;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"9\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
      "Attention weights: {} ({} layers x {} heads; rows: queries, columns: keys)</text>\n",
      width, height, svg_escape(c.label()), c.layers, c.heads);
  // Legend: the shared scale 0..1.
  const double lx = left + grid_w + 20;
  for (int k = 0; k < 50; ++k)
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"3.2\" fill=\"{}\"/>",
                     lx, top + 160 - k * 3.2, colour(k / 49.0));
  s += fmt::format("\n<text x=\"{:.1f}\" y=\"{:.1f}\">1</text><text x=\"{:.1f}\" y=\"{:.1f}\">0"
                   "</text><text x=\"{:.1f}\" y=\"{:.1f}\">weight</text>\n",
                   lx + 18, top + 8, lx + 18, top + 166, lx, top - 6);
  for (size_t si = 0; si < a.sentences.size(); ++si) {
    const SentenceAttention& sent = a.sentences[si];
    const int L = sent.length();
    const double y0 = top + sentence_h * double(si) + 20;
    std::string text;
    for (const auto& p : sent.pieces) text += p + " ";
    s += fmt::format("<text x=\"10\" y=\"{:.1f}\" font-size=\"12\">{}</text>\n", y0 - 6,
                     svg_escape(text));
    for (int h = 0; h < c.heads; ++h)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">head {}</text>\n",
                       left + h * (panel + gap) + panel / 2, y0 + 10, h);
    for (int l = 0; l < c.layers; ++l) {
      const double py = y0 + 16 + l * (panel + gap);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">layer {}</text>\n",
                       left - 46, py + panel / 2, l);
      for (int h = 0; h < c.heads; ++h) {
        const double px = left + h * (panel + gap);
        const float* w = sent.weights_of(l, h, c.heads);
        for (int i = 0; i < L; ++i)
          for (int j = 0; j < L; ++j)
            s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                             "fill=\"{}\"><title>{} -> {}: {:.3f}</title></rect>",
                             px + j * cell, py + i * cell, cell, cell,
                             colour(w[int64_t(i) * L + j]), svg_escape(sent.pieces[i]),
                             svg_escape(sent.pieces[j]), w[int64_t(i) * L + j]);
        s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                         "fill=\"none\" stroke=\"#999\"/>\n", px, py, panel, panel);
        if (h == 0)  // query pieces left of the first column
          for (int i = 0; i < L; ++i)
            s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
                             "font-size=\"{:.0f}\">{}</text>",
                             px - 3, py + (i + 0.8) * cell, std::min(9.0, cell),
                             svg_escape(sent.pieces[i]));
        if (l == c.layers - 1)  // key pieces under the last row, rotated
          for (int j = 0; j < L; ++j) {
            const double x = px + (j + 0.7) * cell, y = py + panel + 4;
            s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(60)\" "
                             "font-size=\"{:.0f}\">{}</text>",
                             x, y, std::min(9.0, cell), svg_escape(sent.pieces[j]));
          }
      }
      s += "\n";
    }
  }
  return s + "</svg>\n";
}

}  // namespace bb
