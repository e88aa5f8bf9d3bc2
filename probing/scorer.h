// Scoring sentences with a trained model, as the probing literature does:
//   holistic (BabyBERTa/UnMasked): the unmasked sentence; score = mean cross-entropy of every
//     token incl. <s> and </s> at its own position (lower is better).
//   pll (Salazar et al. 2020): each token but <s>, </s> masked once; score = summed log-prob
//     (higher is better).
//   pll-word-l2r (Kauf & Ivanova 2023): like pll, but the later sub-tokens of the same word are
//     masked too.
//   causal (a gpt2 model; minicons' IncrementalLMScorer, BLiMP's protocol): score = summed
//     log P(w_t | w_<t) over every token after <s>, </s> included (higher is better).
// The roberta kind takes the first three, the gpt2 kind causal (kMethodTable).
// Sentences (or their masked copies) are packed into large batches; the vocabulary projection is
// computed only at the scored rows.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "encoder/model.h"
#include "tokenizer/tokenizer.h"

namespace bb {

struct ScoringBatches;  // scorer.cpp: sequences packed into batches, and where each row's score goes

enum class Method { holistic, pll, pll_word_l2r, causal };
inline constexpr Method kAllMethods[] = {Method::holistic, Method::pll, Method::pll_word_l2r,
                                         Method::causal};
Method parse_method(const std::string& s);
std::vector<std::string> method_names();  // holistic, pll, pll-word-l2r, causal
std::string method_name(Method m);
bool higher_is_better(Method m);
// The kind of model a method scores (roberta or gpt2), the methods of a kind, and its default
// (roberta: holistic, gpt2: causal).
ModelKind method_kind(Method m);
std::vector<std::string> method_names(ModelKind kind);
Method default_method(ModelKind kind);
// `name` (empty: the kind's default) for a model of `kind`; a method of another kind is a usage
// error (exit 2) naming the kind's methods: "probe: --method holistic scores roberta models; a
// gpt2 model takes causal".
Method method_for(const std::string& name, ModelKind kind, std::string_view command);

// How a sentence's per-token log-probs become its score: the sum or the mean over the tokens its
// method scores (holistic: every id incl. <s> and </s>, as cross-entropy, so lower is better;
// pll: every id but <s> and </s>, as log-probability). Each method's default is the literature's:
// holistic the mean (BabyBERTa's mean cross-entropy), pll the sum (Salazar et al.); minicons'
// sequence_score defaults to the mean.
enum class Reduction { sum, mean };
Reduction parse_reduction(const std::string& s);
std::string reduction_name(Reduction r);
Reduction default_reduction(Method m);
// The score of per-token log-probs under (m, r): holistic -sum or -mean, pll sum or mean.
double reduce_logprobs(const std::vector<double>& logprobs, Method m, Reduction r);
// The score's name in score's JSONL: mean_ce, sum_ce, pll, mean_pll.
std::string score_field(Method m, Reduction r);
// The log-probability (higher is better) of per-token log-probs under r, whatever the method: the
// Python module's sequence_score for every method. For holistic it is -(score's sum_ce or
// mean_ce): the CLI keeps BabyBERTa's cross-entropy.
double reduce_to_logprob(const std::vector<double>& logprobs, Reduction r);

// A sentence given to score (`where`: stdin:3, sentences[2]): not blank, valid UTF-8, at least
// one piece once normalised (a line of only invisible or Unicode space characters has none), at
// most `max_tokens` ids with <s> and </s>; else a one-line error naming `where`. The CLI's score
// and perplexity and the Python module check every sentence with it before any scoring.
void check_sentence_to_score(const std::string& s, const std::string& where, const Tokenizer& tok,
                             int max_tokens);
// Its whitespace words once normalised (every run of Unicode space one ASCII space): what
// perplexity divides by per word.
int64_t normalized_words(const std::string& s, const Tokenizer& tok);

struct SentenceScore {
  std::vector<int32_t> ids;      // incl. <s>, </s>
  double score = 0;
  // holistic: one per id; pll: one per id but <s>, </s>; causal: one per id but <s> (the first
  // token has none)
  std::vector<double> logprobs;
};
// The index in ids of logprobs[0] under m (holistic 0, pll and causal 1).
size_t first_scored_id(Method m);

// Tokens per scoring batch when the caller passes 0. CPU: 512 (a replica's largest activation,
// the logits of a holistic batch, is then 16 MB instead of 64 MB at 2,048: `bench score` max RSS
// 162 MB instead of 393 MB on 2 threads, same speed within this VM's noise, bench/RESULTS.md).
// CUDA: 8,192 (fewer, larger launches).
int default_batch_tokens(Device device);

// config.json and tokenizer.model of one model directory must agree on the vocabulary and on the
// special ids; else a one-line error naming both files.
void check_tokenizer_matches(const std::filesystem::path& dir, const Config& c,
                             const Tokenizer& tok);

class Scorer {
 public:
  // On Device::cuda one model on the GPU scores every batch; on the CPU one model replica per
  // thread (num_threads()) runs whole batches.
  explicit Scorer(const std::filesystem::path& model_dir, int batch_tokens = 0,
                  Device device = Device::cpu);
  // A randomly initialised model without tokenizer, for benchmarks (score_ids only; every piece
  // counts as a word start).
  Scorer(const Config& config, uint64_t seed, int batch_tokens = 0,
         Device device = Device::cpu);
  std::vector<SentenceScore> score(const std::vector<std::string>& sentences, Method m,
                                   const std::function<void(int64_t done)>& progress = {});
  // Sentences already as ids incl. <s> and </s>.
  std::vector<SentenceScore> score_ids(std::vector<std::vector<int32_t>> ids, Method m,
                                       const std::function<void(int64_t done)>& progress = {});
  // The output logits of every token of one sentence given as ids (with <s>, </s>): (L, V)
  // row-major, one unmodified forward pass (no dropout) on the scorer's first model.
  std::vector<float> logits(const std::vector<int32_t>& ids);
  const Config& config() const;
  // --precision (backend/precision.h): bf16 scores with the weights rounded to bf16 once and the
  // activations at each product (checks the machine first).
  void set_precision(Precision p);
  Precision precision() const { return models_[0]->precision(); }
  const Tokenizer& tokenizer() const { return *tok_; }
  int batch_tokens() const { return batch_tokens_; }

 private:
  Capacity capacity(const Config& c) const;
  void add_replicas(int n);  // models_[1..n) copy models_[0]'s weights
  ScoringBatches pack(const std::vector<std::vector<int32_t>>& all, Method m) const;
  // Runs every batch and writes each scored row's log-prob into `out`.
  void run(const ScoringBatches& p, std::vector<SentenceScore>& out,
           const std::function<void(int64_t done)>& progress);

  std::optional<Tokenizer> tok_;
  std::vector<std::unique_ptr<Model<float>>> models_;  // [0] loaded; the rest replicas per thread
  std::vector<bool> word_start_;  // piece id -> begins a word ("▁" prefix) or is special
  int batch_tokens_;
  Device device_;
};

}  // namespace bb
