#include "runs/training_data.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "corpora/causal_batches.h"

namespace bb {

namespace fs = std::filesystem;
namespace {

// The tokenizer a run directory already holds (a resume, or a new start after one that failed)
// stays the run's: options that would train another one (`opt`, from the flags) are a usage
// error, never silently ignored. Compared with the settings Tokenizer::train recorded.
void check_kept_tokenizer(const fs::path& out, const Tokenizer& tok,
                          const TokenizerTrainOptions& opt) {
  const nlohmann::json s = tok.settings();
  std::vector<std::string> diff;
  if (s.contains("vocab_size") && s["vocab_size"] != opt.vocab_size)
    diff.push_back(fmt::format("--vocab-size {} there, now {}", s["vocab_size"].dump(),
                               opt.vocab_size));
  if (s.contains("model_type") && s["model_type"] != opt.model_type)
    diff.push_back(fmt::format("--tokenizer-type {} there, now {}",
                               s["model_type"].is_string() ? s["model_type"].get<std::string>()
                                                           : s["model_type"].dump(),
                               opt.model_type));
  const nlohmann::json was = s.value("normalization", nlohmann::json::object());
  const bool lowercase = opt.normalization.lowercase;
  if (was.contains("lowercase") && was["lowercase"] != lowercase)
    diff.push_back(fmt::format("--keep-case {} there, now {}", lowercase ? "on" : "off",
                               lowercase ? "off" : "on"));
  if (!diff.empty())
    usage_fail("{}: holds a tokenizer trained with other settings ({}); a run keeps its "
               "tokenizer: give its original flags, or a new --out",
               out.string(), fmt::join(diff, "; "));
}

}  // namespace

Tokenizer tokenizer_for(const TrainArgs& a) {
  const fs::path out = a.out;
  if (!a.tokenizer.empty()) return Tokenizer::load(a.tokenizer);
  const TokenizerTrainOptions opt{.model_type = a.tokenizer_type, .vocab_size = a.vocab_size,
                                  .normalization = {.nfkc = true, .lowercase = !a.keep_case},
                                  .threads = a.threads, .source = a.corpus};
  if (fs::exists(out / "tokenizer.model")) {
    Tokenizer tok = Tokenizer::load(out);
    check_kept_tokenizer(out, tok, opt);
    return tok;
  }
  CorpusStats stats;
  const auto lines = read_corpus_lines(a.corpus, {.min_words = 1, .strict = a.strict},
                                       Normalizer(opt.normalization), stats);
  Tokenizer::train(lines, opt, out);
  return Tokenizer::load(out);
}

Config model_config(const TrainArgs& a, const Tokenizer& tok) {
  Config config = preset(a.preset, text_kind(a));
  if (a.layer_norm_eps > 0) config.layer_norm_eps = a.layer_norm_eps;
  config.vocab_size = tok.vocab_size();
  config.attention = parse_attention_function(a.attention);
  config.head_values = a.head_values;
  config.hidden_dropout = config.attention_dropout = a.dropout;
  config.tokenizer = tok.settings();
  config.validate("train options");
  return config;
}

namespace {

// The kind's batch source (a model kind's own piece).
void make_batches(TrainArgs& a, const Config& config, uint64_t dev_seed, TrainingData& d) {
  switch (config.kind) {
    case ModelKind::roberta: {
      a.batching.masking.vocab_size = config.vocab_size;
      a.batching.masking.mask_id = config.mask_id;
      d.batches = std::make_unique<MlmBatches>(d.train, a.batching, a.seed);
      BatchingOptions dev_opt = a.batching;
      dev_opt.mask_patterns = 1;
      // The dev masks too are the same for every training seed.
      if (!a.no_dev) d.dev_batches = std::make_unique<MlmBatches>(d.dev, dev_opt, dev_seed + 1);
      return;
    }
    case ModelKind::gpt2: {
      const CausalBatching opt{.batch_size = a.batching.batch_size,
                               .bucket_batches = a.batching.bucket_batches,
                               .packing = parse_packing(a.packing),
                               .block = config.max_tokens(),
                               .bos_id = config.bos_id};
      d.batches = std::make_unique<CausalBatches>(d.train, opt, a.seed);
      if (opt.packing == Packing::packed) d.longest = opt.block;  // a block is a sequence
      CausalBatching dev_opt = opt;
      dev_opt.packing = Packing::utterance;
      if (!a.no_dev) d.dev_batches = std::make_unique<CausalBatches>(d.dev, dev_opt, dev_seed + 1);
      return;
    }
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: train makes no {} batches", config.kind == ModelKind::icl_gpt2 ? "ICL" : "?");
}

}  // namespace

void load_training_data(TrainArgs& a, const Tokenizer& tok, const Config& config, TrainingData& d) {
  const CorpusOptions corpus_opt{.min_words = 3, .max_tokens = config.max_tokens(),
                                 .strict = a.strict};
  d.all = load_tokenized_corpus(a.corpus, tok, corpus_opt, fs::path(a.out) / "cache" / "corpus.tokens");
  warn_invalid_lines(a.corpus, d.all.stats);
  const uint64_t dev_seed = a.dev_from_seed ? a.seed : a.dev_seed;  // older runs: the seed's
  std::tie(d.train, d.dev) = split_dev(d.all, a.no_dev ? 0.0 : a.dev_fraction, dev_seed);
  BB_CHECK(a.no_dev || d.dev.size() > 0,
           "{}: {} utterances after the filters leave no dev utterance at --dev-fraction {}; a dev "
           "set needs about {} utterances or more: give --no-dev to train without one (no dev "
           "loss) or a larger --dev-fraction", a.corpus, d.all.size(), a.dev_fraction,
           a.dev_fraction > 0 ? int64_t(std::ceil(1 / a.dev_fraction)) : int64_t(0));
  if (a.hf_masking) {
    a.batching.masking.mask_frac = 0.8;
    a.batching.mask_patterns = 0;
  }
  for (int64_t i = 0; i < d.all.size(); ++i) d.longest = std::max(d.longest, d.all.length(i));
  make_batches(a, config, dev_seed, d);
  if (!a.quiet) {
    fmt::print(stderr, "corpus {}: {}\n", a.corpus, d.all.stats.summary());
    fmt::print(stderr, "train {} utterances ({} tokens), dev {}; {} batches per epoch, padding "
               "fraction if padded {:.3f}\n", d.train.size(), d.train.ids.size(),
               a.no_dev ? std::string("none (--no-dev)") : std::to_string(d.dev.size()),
               d.batches->batches_per_epoch(), d.batches->padding_fraction());
  }
}

}  // namespace bb
