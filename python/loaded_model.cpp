#include "python/loaded_model.h"

#include "backend/attention_function.h"
#include "backend/threads.h"
#include "common/error.h"
#include "common/files.h"
#include "encoder/checkpoint.h"

namespace bb::python {

namespace fs = std::filesystem;

namespace {

// The device after setting the thread count the scorer's replicas are sized for.
Device prepared_device(const std::string& device, int threads) {
  set_threads(threads);
  return usable_device(device);
}

}  // namespace

LoadedModel::LoadedModel(const fs::path& dir, const std::string& device, int threads)
    : dir_(dir), threads_(threads), scorer_(dir, 0, prepared_device(device, threads)) {
  config_json_ = nlohmann::json::parse(read_file(dir / "config.json"));
  // The trained values, read as `info` reads them: a one-sequence model holding the weights.
  const Config& c = scorer_.config();
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  if (f.value_count == 0) return;
  Model<float> model(c, Capacity{1, 1, 1, 1});
  load_model_weights(dir, model);
  for (int slot = 0; slot < f.value_count; ++slot) {
    std::vector<double>& v = values_[std::string(f.values[size_t(slot)].name)];
    for (int l = 0; l < c.layers; ++l)
      for (int h = 0; h < c.heads; ++h) v.push_back(model.head_value(l, h, slot));
  }
}

std::string LoadedModel::attention_label() const { return scorer_.config().label(); }
int LoadedModel::layers() const { return scorer_.config().layers; }
int LoadedModel::heads() const { return scorer_.config().heads; }

void LoadedModel::use_threads() const { set_threads(threads_); }

std::vector<SentenceScore> LoadedModel::score(const std::vector<std::string>& sentences, Method m) {
  use_threads();
  return scorer_.score(sentences, m);
}

SentenceAttention LoadedModel::attention(const std::string& sentence) const {
  use_threads();
  return std::move(read_attention(dir_, {sentence}, /*keep_scores=*/false).sentences.at(0));
}

std::vector<std::string> LoadedModel::scored_pieces(const SentenceScore& s) const {
  const size_t skip = s.logprobs.size() == s.ids.size() ? 0 : 1;  // pll: not <s>
  std::vector<std::string> pieces;
  for (size_t t = 0; t < s.logprobs.size(); ++t)
    pieces.push_back(scorer_.tokenizer().piece(s.ids[t + skip]));
  return pieces;
}

std::vector<std::pair<std::vector<int32_t>, std::vector<std::string>>> LoadedModel::encode(
    const std::vector<std::string>& sentences) const {
  std::vector<std::pair<std::vector<int32_t>, std::vector<std::string>>> out;
  for (size_t s = 0; s < sentences.size(); ++s) {
    auto ids = scorer_.tokenizer().encode(sentences[s]);
    BB_CHECK(ids, "sentence {}: invalid UTF-8 (expected UTF-8 text)", s + 1);
    std::vector<std::string> pieces;
    for (int32_t id : *ids) pieces.push_back(scorer_.tokenizer().piece(id));
    out.emplace_back(std::move(*ids), std::move(pieces));
  }
  return out;
}

}  // namespace bb::python
