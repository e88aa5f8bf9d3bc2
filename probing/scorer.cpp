#include "probing/scorer.h"

#include <cmath>

#include "backend/ops.h"
#include "common/error.h"
#include "encoder/checkpoint.h"

namespace bb {

namespace fs = std::filesystem;

Method parse_method(const std::string& s) {
  if (s == "holistic") return Method::holistic;
  if (s == "pll") return Method::pll;
  if (s == "pll-word-l2r") return Method::pll_word_l2r;
  fail("unknown scoring method '{}' (expected holistic, pll or pll-word-l2r)", s);
}

std::string method_name(Method m) {
  return m == Method::holistic ? "holistic" : m == Method::pll ? "pll" : "pll-word-l2r";
}

bool higher_is_better(Method m) { return m != Method::holistic; }

Scorer::Scorer(const fs::path& dir, int batch_tokens)
    : tok_(Tokenizer::load(dir)), batch_tokens_(batch_tokens) {
  const Config c = read_config(dir / "config.json");
  BB_CHECK(c.vocab_size == tok_->vocab_size(),
           "{}: config.json says vocab_size {}, tokenizer.model has {} pieces", dir.string(),
           c.vocab_size, tok_->vocab_size());
  const int L = c.max_tokens();
  batch_tokens_ = std::max(batch_tokens_, L);
  model_ = std::make_unique<Model<float>>(
      c, Capacity{batch_tokens_, batch_tokens_, L, batch_tokens_});
  load_model_weights(dir, *model_);
  word_start_.resize(c.vocab_size);
  for (int id = 0; id < c.vocab_size; ++id)
    word_start_[id] = id < 5 || tok_->piece(id).rfind("\xE2\x96\x81", 0) == 0;
}

Scorer::Scorer(const Config& c, uint64_t seed, int batch_tokens)
    : batch_tokens_(std::max(batch_tokens, c.max_tokens())) {
  const int L = c.max_tokens();
  model_ = std::make_unique<Model<float>>(
      c, Capacity{batch_tokens_, batch_tokens_, L, batch_tokens_});
  model_->init_weights(seed);
  word_start_.assign(c.vocab_size, true);
}

namespace {
// One sequence to run: a sentence or a masked copy, and the rows of it that are scored.
struct Item {
  int sentence;
  std::vector<int32_t> ids;
  std::vector<int> positions;  // scored positions
  std::vector<int> slots;      // where each scored position's log-prob goes in logprobs
};
}  // namespace

std::vector<SentenceScore> Scorer::score(const std::vector<std::string>& sentences, Method m,
                                         const std::function<void(int64_t)>& progress) {
  BB_CHECK(tok_, "internal: this scorer has no tokenizer");
  std::vector<std::vector<int32_t>> all;
  for (size_t s = 0; s < sentences.size(); ++s) {
    auto ids = tok_->encode(sentences[s]);
    BB_CHECK(ids, "sentence {}: invalid UTF-8 (expected UTF-8 text)", s + 1);
    BB_CHECK(int(ids->size()) <= model_->config().max_tokens(),
             "sentence {}: {} tokens, longer than the model's {} (\"{}\")", s + 1, ids->size(),
             model_->config().max_tokens(), sentences[s].substr(0, 60));
    all.push_back(std::move(*ids));
  }
  return score_ids(std::move(all), m, progress);
}

std::vector<SentenceScore> Scorer::score_ids(std::vector<std::vector<int32_t>> all, Method m,
                                             const std::function<void(int64_t)>& progress) {
  const Config& c = model_->config();
  std::vector<SentenceScore> out(all.size());
  std::vector<Item> items;
  for (size_t s = 0; s < all.size(); ++s) {
    const std::vector<int32_t>* ids = &all[s];
    out[s].ids = *ids;
    const int L = int(ids->size());
    if (m == Method::holistic) {
      out[s].logprobs.assign(L, 0.0);
      Item it{int(s), *ids, {}, {}};
      for (int t = 0; t < L; ++t) it.positions.push_back(t), it.slots.push_back(t);
      items.push_back(std::move(it));
      continue;
    }
    out[s].logprobs.assign(std::max(0, L - 2), 0.0);
    for (int t = 1; t < L - 1; ++t) {
      Item it{int(s), *ids, {t}, {t - 1}};
      it.ids[t] = c.mask_id;
      if (m == Method::pll_word_l2r)  // also hide the rest of this word
        for (int u = t + 1; u < L - 1 && !word_start_[(*ids)[u]]; ++u) it.ids[u] = c.mask_id;
      items.push_back(std::move(it));
    }
  }
  // Pack items into batches of at most batch_tokens_ tokens; score; scatter log-probs back.
  Batch batch;
  std::vector<float> logp;
  std::vector<int> batch_items;
  int64_t done_sentences = 0;
  auto flush = [&] {
    if (batch_items.empty()) return;
    model_->forward(batch, {false, 0, 0});
    logp.resize(batch.rows.size());
    ops::target_log_probs<float>(logp.data(), model_->logits(), batch.labels.data(),
                                 batch.num_rows(), c.vocab_size);
    size_t r = 0;
    for (int i : batch_items)
      for (int slot : items[i].slots) out[items[i].sentence].logprobs[slot] = logp[r++];
    done_sentences = items[batch_items.back()].sentence + 1;
    if (progress) progress(done_sentences);
    batch.clear();
    batch_items.clear();
  };
  batch.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    if (batch.num_tokens() + int(it.ids.size()) > batch_tokens_) flush();
    const int off = batch.num_tokens();
    batch.ids.insert(batch.ids.end(), it.ids.begin(), it.ids.end());
    batch.offsets.push_back(batch.num_tokens());
    for (int t : it.positions) {
      batch.rows.push_back(off + t);
      batch.labels.push_back(out[it.sentence].ids[t]);
    }
    batch_items.push_back(int(i));
  }
  flush();
  for (SentenceScore& s : out) {
    double sum = 0;
    for (double lp : s.logprobs) sum += lp;
    s.score = m == Method::holistic ? -sum / double(s.logprobs.size()) : sum;
  }
  return out;
}

}  // namespace bb
