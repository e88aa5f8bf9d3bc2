#include "python/loaded_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "backend/attention_function.h"
#include "backend/threads.h"
#include "common/error.h"
#include "common/files.h"
#include "encoder/checkpoint.h"
#include "models/model_kind.h"

namespace bb::python {

namespace fs = std::filesystem;

namespace {

// `dir`, once the model-kind table says babyberta.load takes its kind (else babyberta.Error).
const fs::path& loadable(const fs::path& dir) {
  require_model_kind(dir, ModelCommand::python_load);
  return dir;
}

// The device after setting the thread count the scorer's replicas are sized for.
Device prepared_device(const std::string& device, int threads) {
  BB_CHECK(threads >= 1 && threads <= 1024,
           "threads: expected a whole number in [1, 1024] (as --threads), got {}", threads);
  set_threads(threads);
  return usable_device(device);
}

}  // namespace

LoadedModel::LoadedModel(const fs::path& dir, const std::string& device, int threads,
                         const std::string& precision)
    : dir_(dir), threads_(threads), scorer_(loadable(dir), 0, prepared_device(device, threads)) {
  scorer_.set_precision(parse_precision(precision));  // bf16: exits (Error) without the ISA
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
  for (size_t i = 0; i < sentences.size(); ++i)  // the CLI's check (score: stdin:N)
    check_sentence_to_score(sentences[i], fmt::format("sentences[{}]", i), scorer_.tokenizer(),
                            scorer_.config().max_tokens());
  use_threads();
  return scorer_.score(sentences, m);
}

std::vector<int32_t> LoadedModel::ids_with_masks(const std::string& text) const {
  static constexpr std::string_view kMask = "<mask>";
  const Config& c = scorer_.config();
  std::vector<int32_t> ids{c.bos_id};
  for (size_t pos = 0;;) {
    const size_t at = std::min(text.find(kMask, pos), text.size());
    const std::string segment = text.substr(pos, at - pos);
    if (segment.find_first_not_of(" \t") != std::string::npos) {
      const auto seg = scorer_.tokenizer().encode(segment);
      BB_CHECK(seg, "\"{}\": invalid UTF-8 (expected UTF-8 text)", text.substr(0, 60));
      ids.insert(ids.end(), seg->begin() + 1, seg->end() - 1);  // without its <s>, </s>
    }
    if (at == text.size()) break;
    ids.push_back(c.mask_id);
    pos = at + kMask.size();
  }
  ids.push_back(c.eos_id);
  BB_CHECK(int(ids.size()) <= c.max_tokens(), "\"{}\": {} tokens, longer than the model's {}",
           text.substr(0, 60), ids.size(), c.max_tokens());
  return ids;
}

std::vector<float> LoadedModel::logits(const std::string& sentence, std::vector<int32_t>& ids) {
  use_threads();
  ids = ids_with_masks(sentence);
  return scorer_.logits(ids);
}

std::vector<std::vector<LoadedModel::Filled>> LoadedModel::fill_mask(const std::string& text,
                                                                     int k) {
  BB_CHECK(k >= 1, "fill_mask: k is {}, expected at least 1", k);
  std::vector<int32_t> ids;
  const std::vector<float> z = logits(text, ids);
  const int V = scorer_.config().vocab_size;
  std::vector<std::vector<Filled>> out;
  for (size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] != scorer_.config().mask_id) continue;
    const float* row = z.data() + t * size_t(V);
    const double top = *std::max_element(row, row + V);
    double sum = 0;
    for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - top);
    std::vector<int32_t> order(static_cast<size_t>(V));
    std::iota(order.begin(), order.end(), 0);
    const int n = std::min(k, V);
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [&](int32_t a, int32_t b) {
                        return row[a] > row[b] || (row[a] == row[b] && a < b);
                      });
    std::vector<Filled> best;
    for (int i = 0; i < n; ++i)
      best.push_back({order[size_t(i)], scorer_.tokenizer().piece(order[size_t(i)]),
                      std::exp(double(row[order[size_t(i)]]) - top) / sum});
    out.push_back(std::move(best));
  }
  BB_CHECK(!out.empty(), "fill_mask: \"{}\" has no <mask>", text.substr(0, 60));
  return out;
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

std::vector<WordScore> LoadedModel::words(const SentenceScore& s, Method m) const {
  return word_scores(s, m, scorer_.tokenizer(), scorer_.config());
}

std::vector<std::vector<double>> LoadedModel::conditional_logprobs(
    const std::vector<std::string>& prefixes, const std::vector<std::string>& continuations,
    Method m, const std::string& call) {
  BB_CHECK(prefixes.size() == continuations.size(),
           "{}: {} prefixes for {} continuations (expected as many, or one prefix)", call,
           prefixes.size(), continuations.size());
  std::vector<std::string> joined;
  for (size_t i = 0; i < prefixes.size(); ++i)
    joined.push_back(prefixes[i] + " " + continuations[i]);
  const std::vector<SentenceScore> scores = score(joined, m);
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < scores.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", call, i);
    const size_t begin = prefix_ids(scorer_.tokenizer(), prefixes[i], scores[i], where);
    out.push_back(continuation_logprobs(scores[i], m, begin, where));
  }
  return out;
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
