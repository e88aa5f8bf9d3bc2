#include "probing/scorer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <tuple>

#include "backend/threads.h"
#include "common/error.h"
#include "encoder/checkpoint.h"
#include "encoder/config_keys.h"
#include "tokenizer/normalizer.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

struct MethodRow {
  Method method;
  const char* name;
  ModelKind kind;
  Reduction reduction;           // the literature's default
  const char *sum_field, *mean_field;  // score's JSONL field under each reduction
  size_t first_id;               // the id of logprobs[0]
};
// The scoring methods, in enum order.
constexpr MethodRow kMethodTable[] = {
    {Method::holistic, "holistic", ModelKind::roberta, Reduction::mean, "sum_ce", "mean_ce", 0},
    {Method::pll, "pll", ModelKind::roberta, Reduction::sum, "pll", "mean_pll", 1},
    {Method::pll_word_l2r, "pll-word-l2r", ModelKind::roberta, Reduction::sum, "pll", "mean_pll",
     1},
    {Method::causal, "causal", ModelKind::gpt2, Reduction::sum, "logprob", "mean_logprob", 1},
};
static_assert(std::size(kMethodTable) == std::size(kAllMethods), "a row per method");

const MethodRow& row(Method m) { return kMethodTable[size_t(m)]; }

}  // namespace

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (Method m : kAllMethods) names.push_back(method_name(m));
  return names;
}

std::vector<std::string> method_names(ModelKind kind) {
  std::vector<std::string> names;
  for (const MethodRow& r : kMethodTable)
    if (r.kind == kind) names.push_back(r.name);
  return names;
}

Method parse_method(const std::string& s) {
  for (Method m : kAllMethods)
    if (s == method_name(m)) return m;
  fail("unknown scoring method '{}' (expected {})", s, fmt::join(method_names(), ", "));
}

std::string method_name(Method m) { return row(m).name; }

bool higher_is_better(Method m) { return m != Method::holistic; }

ModelKind method_kind(Method m) { return row(m).kind; }

Method default_method(ModelKind kind) {
  for (const MethodRow& r : kMethodTable)
    if (r.kind == kind) return r.method;  // the kind's first method
  fail("internal: no scoring method for this model kind");
}

Method method_for(const std::string& name, ModelKind kind, std::string_view command) {
  if (name.empty()) return default_method(kind);
  const Method m = parse_method(name);
  if (method_kind(m) == kind) return m;
  throw UsageError(fmt::format("{}: --method {} scores {} models; a {} model takes {}", command,
                               name, config_keys(method_kind(m)).model_type,
                               config_keys(kind).model_type, fmt::join(method_names(kind), ", ")));
}

size_t first_scored_id(Method m) { return row(m).first_id; }

Reduction parse_reduction(const std::string& s) {
  if (s == "sum") return Reduction::sum;
  if (s == "mean") return Reduction::mean;
  fail("unknown reduction '{}' (expected sum or mean)", s);
}

std::string reduction_name(Reduction r) { return r == Reduction::sum ? "sum" : "mean"; }

Reduction default_reduction(Method m) { return row(m).reduction; }

double reduce_logprobs(const std::vector<double>& logprobs, Method m, Reduction r) {
  double sum = 0;
  for (double lp : logprobs) sum += lp;
  const double v = r == Reduction::sum ? sum : logprobs.empty() ? 0.0 : sum / double(logprobs.size());
  return m == Method::holistic ? -v : v;
}

double reduce_to_logprob(const std::vector<double>& logprobs, Reduction r) {
  return reduce_logprobs(logprobs, Method::pll, r);  // pll's reduction keeps the log-prob's sign
}

void check_sentence_to_score(const std::string& s, const std::string& where, const Tokenizer& tok,
                             int max_tokens) {
  BB_CHECK(s.find_first_not_of(" \t\r") != std::string::npos,
           "{}: empty sentence, nothing to score (expected one sentence per line)", where);
  BB_CHECK(is_valid_utf8(s), "{}: not valid UTF-8 (expected UTF-8 text)", where);
  const auto ids = tok.encode(s);
  BB_CHECK(ids && ids->size() > 2,
           "{}: nothing to score once normalised (only space or invisible characters)", where);
  BB_CHECK(int(ids->size()) <= max_tokens, "{}: {} tokens, longer than the model's {}", where,
           ids->size(), max_tokens);
}

int64_t normalized_words(const std::string& s, const Tokenizer& tok) {
  const auto text = tok.normalizer().normalize(s);
  BB_CHECK(text.has_value(), "internal: words of a sentence that is not valid UTF-8");
  int64_t n = 0;
  bool in_word = false;
  for (const char ch : *text) {  // normalised: words are separated by single ASCII spaces
    if (ch != ' ' && !in_word) ++n;
    in_word = ch != ' ';
  }
  return n;
}

std::string score_field(Method m, Reduction r) {
  return r == Reduction::sum ? row(m).sum_field : row(m).mean_field;
}

int default_batch_tokens(Device device) { return device == Device::cuda ? 8192 : 512; }

namespace {
// The batch size a scorer uses: the request (0: the device's default), at least one sequence.
int resolved_batch_tokens(int requested, Device device, const Config& c) {
  return std::max(requested > 0 ? requested : default_batch_tokens(device), c.max_tokens());
}
}  // namespace

void check_tokenizer_matches(const fs::path& dir, const Config& c, const Tokenizer& tok) {
  const std::string config = (dir / "config.json").string();
  const std::string model = (dir / "tokenizer.model").string();
  BB_CHECK(c.vocab_size == tok.vocab_size(), "{}: vocab_size {} does not match {} ({} pieces)",
           config, c.vocab_size, model, tok.vocab_size());
  const std::tuple<const char*, int, const char*> ids[] = {
      {"mask_token_id", c.mask_id, "<mask>"}, {"pad_token_id", c.pad_id, "<pad>"},
      {"unk_token_id", c.unk_id, "<unk>"}, {"bos_token_id", c.bos_id, "<s>"},
      {"eos_token_id", c.eos_id, "</s>"}};
  for (const auto& [key, id, piece] : ids)
    BB_CHECK(id == tok.piece_id(piece), "{}: {} {} does not match {} (its {} is {})", config, key,
             id, model, piece, tok.piece_id(piece));
}

Scorer::Scorer(const fs::path& dir, int batch_tokens, Device device) : device_(device) {
  const Config c = read_model_config(dir);
  tok_.emplace(Tokenizer::load(dir));
  check_tokenizer_matches(dir, c, *tok_);
  batch_tokens_ = resolved_batch_tokens(batch_tokens, device, c);
  models_.push_back(std::make_unique<Model<float>>(c, capacity(c), device));
  load_model_weights(dir, *models_[0]);
  word_start_.resize(c.vocab_size);
  for (int id = 0; id < c.vocab_size; ++id)
    word_start_[id] = id < 5 || tok_->piece(id).rfind("\xE2\x96\x81", 0) == 0;
}

Scorer::Scorer(const Config& c, uint64_t seed, int batch_tokens, Device device)
    : batch_tokens_(resolved_batch_tokens(batch_tokens, device, c)), device_(device) {
  models_.push_back(std::make_unique<Model<float>>(c, capacity(c), device));
  models_[0]->init_weights(seed);
  word_start_.assign(c.vocab_size, true);
}

Capacity Scorer::capacity(const Config& c) const {
  const int L = c.max_tokens();
  Capacity cap{batch_tokens_, batch_tokens_, L, batch_tokens_};
  cap.inference_only = true;
  return cap;
}

const Config& Scorer::config() const { return models_[0]->config(); }

void Scorer::set_precision(Precision p) {
  for (auto& m : models_) m->set_precision(p);
}

void Scorer::add_replicas(int n) {
  while (int(models_.size()) < n) {
    models_.push_back(std::make_unique<Model<float>>(config(), capacity(config())));
    models_.back()->set_precision(models_[0]->precision());
    models_.back()->params = models_[0]->params;
    models_.back()->upload_params();
  }
}

// Sequences (a sentence, or one masked copy per token for pll) packed into batches of at most
// batch_tokens_ tokens. Labels are kept apart from the batch, so forward() skips its loss.
struct ScoringBatches {
  // Where a scored row's log-prob goes: the sentence and the index in its logprobs.
  struct Slot {
    int sentence, index;
  };
  std::vector<Batch> batches;
  std::vector<std::vector<int32_t>> labels;  // per batch, per scored row: the target id
  std::vector<std::vector<Slot>> slots;      // per batch, per scored row
  int64_t sequences = 0;
  size_t sentences = 0;
};

std::vector<SentenceScore> Scorer::score(const std::vector<std::string>& sentences, Method m,
                                         const std::function<void(int64_t)>& progress) {
  BB_CHECK(tok_, "internal: this scorer has no tokenizer");
  std::vector<std::vector<int32_t>> all;
  for (size_t s = 0; s < sentences.size(); ++s) {
    auto ids = tok_->encode(sentences[s]);
    BB_CHECK(ids, "sentence {}: invalid UTF-8 (expected UTF-8 text)", s + 1);
    BB_CHECK(int(ids->size()) <= config().max_tokens(),
             "sentence {}: {} tokens, longer than the model's {} (\"{}\")", s + 1, ids->size(),
             config().max_tokens(), sentences[s].substr(0, 60));
    all.push_back(std::move(*ids));
  }
  return score_ids(std::move(all), m, progress);
}

std::vector<float> Scorer::logits(const std::vector<int32_t>& ids) {
  const int L = int(ids.size());
  BB_CHECK(L >= 2 && L <= config().max_tokens(), "{} tokens, expected 2 to the model's {}", L,
           config().max_tokens());
  Batch b;
  b.clear();
  b.ids = ids;
  b.offsets.push_back(L);
  for (int t = 0; t < L; ++t) b.rows.push_back(t);
  Model<float>& model = *models_[0];
  model.forward(b, {false, 0, 0});
  std::vector<float> out;
  model.logits_to_host(out);
  return out;
}

ScoringBatches Scorer::pack(const std::vector<std::vector<int32_t>>& all, Method m) const {
  const Config& c = config();
  ScoringBatches p;
  p.sentences = all.size();
  auto add_sequence = [&](const std::vector<int32_t>& ids) -> Batch& {
    const int L = int(ids.size());
    if (p.batches.empty() || p.batches.back().num_tokens() + L > batch_tokens_) {
      p.batches.emplace_back().clear();
      p.labels.emplace_back();
      p.slots.emplace_back();
    }
    Batch& b = p.batches.back();
    b.ids.insert(b.ids.end(), ids.begin(), ids.end());
    b.offsets.push_back(b.num_tokens());
    ++p.sequences;
    return b;
  };
  auto score_row = [&](Batch& b, int off, int t, int32_t target, ScoringBatches::Slot slot) {
    b.rows.push_back(off + t);
    p.labels.back().push_back(target);
    p.slots.back().push_back(slot);
  };
  for (size_t s = 0; s < all.size(); ++s) {
    const std::vector<int32_t>& ids = all[s];
    const int L = int(ids.size());
    if (m == Method::holistic) {
      Batch& b = add_sequence(ids);
      const int off = b.num_tokens() - L;
      for (int t = 0; t < L; ++t) score_row(b, off, t, ids[t], {int(s), t});
      continue;
    }
    if (m == Method::causal) {  // position t predicts token t + 1
      Batch& b = add_sequence(ids);
      const int off = b.num_tokens() - L;
      for (int t = 0; t + 1 < L; ++t) score_row(b, off, t, ids[t + 1], {int(s), t});
      continue;
    }
    for (int t = 1; t < L - 1; ++t) {
      Batch& b = add_sequence(ids);
      const int off = b.num_tokens() - L;
      b.ids[off + t] = c.mask_id;
      if (m == Method::pll_word_l2r)  // also hide the rest of this word
        for (int u = t + 1; u < L - 1 && !word_start_[ids[u]]; ++u) b.ids[off + u] = c.mask_id;
      score_row(b, off, t, ids[t], {int(s), t - 1});
    }
  }
  return p;
}

// Batches are independent: with T threads, T model replicas each run whole batches on one thread
// (BLAS and our ops run single-threaded inside the parallel region). This scales far better than
// splitting each small batch's GEMMs across threads. Every batch runs on one thread, whatever
// --threads says: a GEMM split across threads can round a row differently (oneDNN's and
// OpenBLAS's AVX2 kernels do), so with one replica (one batch, or --threads 1) the pool is
// narrowed to one thread while it runs. A sentence's score then never depends on --threads.
void Scorer::run(const ScoringBatches& p, std::vector<SentenceScore>& out,
                 const std::function<void(int64_t)>& progress) {
  const int64_t nb = int64_t(p.batches.size());
  const int T = device_ == Device::cuda
                    ? 1
                    : int(std::clamp<int64_t>(num_threads(), 1, std::max<int64_t>(nb, 1)));
  struct PoolBack {  // the pool's size back on every way out
    int threads;
    ~PoolBack() {
      if (threads > 1) set_threads(threads);
    }
  } pool_back{T == 1 && device_ != Device::cuda ? num_threads() : 0};
  if (pool_back.threads > 1) set_threads(1);
  add_replicas(T);
  std::atomic<int64_t> next{0}, sequences_done{0};
  int64_t reported = 0;
  std::exception_ptr error;
#pragma omp parallel num_threads(T) if (T > 1)
  {
    Model<float>& model = *models_[T > 1 ? omp_get_thread_num() : 0];
    std::vector<float> logp;
    for (int64_t k; (k = next++) < nb;) try {
      const Batch& batch = p.batches[k];
      model.forward(batch, {false, 0, 0});
      model.target_log_probs(p.labels[k], logp);
      for (size_t r = 0; r < p.slots[k].size(); ++r)
        out[p.slots[k][r].sentence].logprobs[p.slots[k][r].index] = logp[r];
      const int64_t done = sequences_done += batch.num_seqs();
      if (progress) {
        const int64_t sentences = int64_t(double(done) / double(p.sequences) * double(p.sentences));
#pragma omp critical(bb_scorer_progress)
        if (sentences > reported) progress(reported = sentences);  // monotonic
      }
    } catch (...) {  // an exception must not leave the parallel region: the first is rethrown
#pragma omp critical(bb_scorer_error)
      if (!error) error = std::current_exception();
      next = nb;
    }
  }
  if (error) std::rethrow_exception(error);
}

std::vector<SentenceScore> Scorer::score_ids(std::vector<std::vector<int32_t>> all, Method m,
                                             const std::function<void(int64_t)>& progress) {
  std::vector<SentenceScore> out(all.size());
  BB_CHECK(method_kind(m) == config().kind, "internal: --method {} on a {} model",
           method_name(m), config_keys(config().kind).model_type);
  for (size_t s = 0; s < all.size(); ++s) {  // holistic scores every token, pll all but <s> </s>,
    const int L = int(all[s].size());        // causal all but <s>
    out[s].logprobs.assign(m == Method::holistic ? L
                           : m == Method::causal ? std::max(0, L - 1)
                                                 : std::max(0, L - 2),
                           0.0);
  }
  run(pack(all, m), out, progress);
  for (size_t s = 0; s < out.size(); ++s) out[s].ids = std::move(all[s]);
  for (SentenceScore& s : out) s.score = reduce_logprobs(s.logprobs, m, default_reduction(m));
  return out;
}

}  // namespace bb
