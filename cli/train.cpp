#include "cli/train.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/probe.h"
#include "cli/progress.h"
#include "common/error.h"
#include "common/files.h"
#include "common/threads.h"

namespace bb::cli {

namespace fs = std::filesystem;

void add_train_options(CLI::App* cmd, TrainArgs& a) {
  cmd->add_option("--corpus", a.corpus, "Training corpus, one utterance per line")->required();
  cmd->add_option("--out", a.out, "Output (model) directory")->required();
  cmd->add_option("--attention", a.attention, "Attention scoring: softmax or ssa")
      ->capture_default_str();
  cmd->add_option("--preset", a.preset, "Model size: babyberta, small, tiny")->capture_default_str();
  cmd->add_option("--steps", a.steps, "Optimizer steps")->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed (init, data order, masks, dropout)")->capture_default_str();
  cmd->add_option("--threads", a.threads, "Compute threads")->capture_default_str();
  cmd->add_option("--device", a.device, "cpu or cuda (a -DBABYBERTA_CUDA=ON build with a GPU)")
      ->capture_default_str();
  cmd->add_option("--cuda-graphs", a.cuda_graphs,
                  "CUDA: replay each step as a captured CUDA graph (on/off; off: launch every op)")
      ->capture_default_str();
  cmd->add_flag("--resume", a.resume, "Continue from the latest checkpoint in --out");
  cmd->add_option("--tokenizer", a.tokenizer, "Use this tokenizer directory instead of training one");
  cmd->add_option("--vocab-size", a.vocab_size, "Vocabulary size of a newly trained tokenizer")
      ->capture_default_str();
  cmd->add_option("--tokenizer-type", a.tokenizer_type, "bpe or unigram")->capture_default_str();
  cmd->add_flag("--keep-case", a.keep_case, "Do not lower-case text");
  cmd->add_flag("--strict", a.strict, "Invalid UTF-8 in the corpus is an error");
  cmd->add_option("--batch-size", a.batching.batch_size, "Utterances per batch")->capture_default_str();
  cmd->add_option("--mask-patterns", a.batching.mask_patterns,
                  "BabyBERTa: fixed mask patterns per utterance")->capture_default_str();
  cmd->add_flag("--hf-masking", a.hf_masking,
                "HF recipe: 80/10/10 and a fresh pattern at every visit (default BabyBERTa 90/10/0)");
  cmd->add_option("--mask-prob", a.batching.masking.prob, "Masking probability")->capture_default_str();
  cmd->add_option("--bucket-batches", a.batching.bucket_batches,
                  "Batches per length-sorted chunk (1: no bucketing)")->capture_default_str();
  cmd->add_option("--lr", a.optim.lr, "Peak learning rate")->capture_default_str();
  cmd->add_option("--warmup-steps", a.optim.warmup_steps, "Warmup (-1: min(24000, steps/10))")
      ->capture_default_str();
  cmd->add_option("--weight-decay", a.optim.weight_decay, "AdamW weight decay")->capture_default_str();
  cmd->add_option("--clip", a.optim.clip_norm, "Global grad-norm clip (0: off)")->capture_default_str();
  cmd->add_option("--adam-eps", a.optim.eps, "AdamW epsilon")->capture_default_str();
  cmd->add_flag("!--no-bias-correction", a.optim.bias_correction,
                "Adam without bias correction (reproduces BabyBERTa)");
  cmd->add_option("--dropout", a.dropout, "Hidden and attention dropout")->capture_default_str();
  cmd->add_option("--ssa-b-init", a.ssa.b_init, "SSA: initial b (> 0)")->capture_default_str();
  cmd->add_option("--ssa-n-init", a.ssa.n_init, "SSA: initial n (> 1)")->capture_default_str();
  cmd->add_flag("--ssa-freeze-b", a.ssa.freeze_b, "SSA: keep b fixed");
  cmd->add_flag("--ssa-freeze-n", a.ssa.freeze_n, "SSA: keep n fixed (SSA-1.5, SSA-2)");
  cmd->add_option("--ssa-lr-mult", a.optim.ssa_lr_mult, "SSA: learning-rate multiplier for b, n")
      ->capture_default_str();
  cmd->add_option("--eval-every", a.eval_every, "Dev loss, checkpoint and metrics line every K steps")
      ->capture_default_str();
  cmd->add_option("--dev-fraction", a.dev_fraction, "Held-out dev share of utterances")
      ->capture_default_str();
  cmd->add_option("--dev-batches", a.dev_batches, "Dev batches per evaluation")->capture_default_str();
  cmd->add_option("--probe-every", a.probe_every,
                  "Probe --probe-suite every K steps (a multiple of --eval-every; 0: never)")
      ->capture_default_str();
  cmd->add_option("--probe-suite", a.probe_suite, "Suite for --probe-every (learning curves)");
}

namespace {

Tokenizer tokenizer_for(const TrainArgs& a) {
  const fs::path out = a.out;
  if (!a.tokenizer.empty()) return Tokenizer::load(a.tokenizer);
  if (fs::exists(out / "tokenizer.model")) return Tokenizer::load(out);
  TokenizerTrainOptions opt{.model_type = a.tokenizer_type, .vocab_size = a.vocab_size,
                            .normalization = {.nfkc = true, .lowercase = !a.keep_case},
                            .threads = a.threads};
  CorpusStats stats;
  const auto lines = read_corpus_lines(a.corpus, {.min_words = 1, .strict = a.strict},
                                       Normalizer(opt.normalization), stats);
  Tokenizer::train(lines, opt, out);
  return Tokenizer::load(out);
}

// Mean MLM loss over the first `n` dev batches (fixed masks, no dropout), weighted by masked tokens.
double dev_loss(Model<float>& model, MlmBatches& dev, int64_t n) {
  Batch b;
  double total = 0;
  int64_t count = 0;
  for (int64_t k = 0; k < std::min(n, dev.batches_per_epoch()); ++k) {
    dev.batch(k, b);
    total += double(model.forward(b, {false, 0, 0})) * b.num_rows();
    count += b.num_rows();
  }
  return count ? total / count : 0.0;
}

// metrics.jsonl keeps only lines of steps the model has (a resumed run rewrites the rest).
void keep_metrics_up_to(const fs::path& path, int64_t step) {
  if (!fs::exists(path)) return;
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line)) {
    try {
      if (nlohmann::json::parse(line).at("step").get<int64_t>() <= step) kept += line + "\n";
    } catch (const nlohmann::json::exception&) {
      // a torn last line from a crash: dropped
    }
  }
  write_file_atomic(path, kept);
}

}  // namespace

void run_train(TrainArgs a) {
  BB_CHECK(a.probe_every == 0 || (!a.probe_suite.empty() && a.probe_every % a.eval_every == 0),
           "--probe-every needs --probe-suite and must be a multiple of --eval-every ({})",
           a.eval_every);
  set_threads(a.threads);
  const Device device = usable_device(a.device);  // fail before any work
  const fs::path out = a.out;
  if (!a.resume && latest_checkpoint(out))
    fail("{}: holds checkpoints already; pass --resume to continue or choose a new --out",
         out.string());
  fs::create_directories(out);
  for (const fs::path& d : {out, out / "checkpoints", out / "cache", out / "probes"})
    remove_stale_temporaries(d);  // half-written files of a crashed earlier run
  const Tokenizer tok = tokenizer_for(a);
  if (!fs::exists(out / "tokenizer.model")) save_tokenizer_model(out, tok);

  Config config = preset(a.preset);
  config.vocab_size = tok.vocab_size();
  config.scoring = parse_scoring(a.attention);
  config.ssa = a.ssa;
  config.hidden_dropout = config.attention_dropout = a.dropout;
  config.tokenizer = tok.settings();
  config.validate("train options");

  const CorpusOptions corpus_opt{.min_words = 3, .max_tokens = config.max_tokens(),
                                 .strict = a.strict};
  const TokenizedCorpus all = load_tokenized_corpus(a.corpus, tok, corpus_opt,
                                                    out / "cache" / "corpus.tokens");
  warn_invalid_lines(a.corpus, all.stats);
  auto [train_set, dev_set] = split_dev(all, a.dev_fraction, a.seed);
  if (a.hf_masking) {
    a.batching.masking.mask_frac = 0.8;
    a.batching.mask_patterns = 0;
  }
  a.batching.masking.vocab_size = config.vocab_size;
  a.batching.masking.mask_id = config.mask_id;
  MlmBatches batches(train_set, a.batching, a.seed);
  BatchingOptions dev_opt = a.batching;
  dev_opt.mask_patterns = 1;
  MlmBatches dev(dev_set.size() > 0 ? dev_set : train_set, dev_opt, a.seed + 1);
  if (!a.quiet) {
    fmt::print(stderr, "corpus {}: {}\n", a.corpus, all.stats.summary());
    fmt::print(stderr, "train {} utterances ({} tokens), dev {}; {} batches per epoch, padding "
               "fraction if padded {:.3f}\n",
               train_set.size(), train_set.ids.size(), dev_set.size(), batches.batches_per_epoch(),
               batches.padding_fraction());
  }

  int longest = 0;
  for (int64_t i = 0; i < all.size(); ++i) longest = std::max(longest, all.length(i));
  const int B = a.batching.batch_size;
  const Capacity cap{B, B * longest, longest, B * longest};
  TrainOptions topt;
  topt.steps = a.steps;
  topt.seed = a.seed;
  topt.optim = a.optim;
  topt.checkpoint_every = a.eval_every;
  topt.out = out;
  topt.resume = a.resume;
  topt.device = device;
  topt.cuda_graphs = a.cuda_graphs;
  Trainer trainer(config, cap, topt, [&](uint64_t, int64_t step, Batch& b) { batches.batch(step, b); });
  keep_metrics_up_to(out / "metrics.jsonl", trainer.step());

  Progress progress(a.steps, "steps", std::max<int64_t>(1, a.eval_every / 10));
  double loss_sum = 0;
  int64_t loss_n = 0, tokens = 0;
  const int64_t start = trainer.step();
  std::ofstream metrics(out / "metrics.jsonl", std::ios::app);
  trainer.run([&](const StepLog& s) {
    loss_sum += s.loss, ++loss_n, tokens += s.tokens;
    if (!a.quiet)
      progress.update(s.step, fmt::format("loss {:.3f} lr {:.2e} {:.0f} tok/s", s.loss, s.lr,
                                          tokens / progress.seconds()));
    if (s.step % a.eval_every == 0 || s.step == a.steps) {
      const double dl = dev_loss(trainer.model(), dev, a.dev_batches);
      nlohmann::json line{{"step", s.step},
                          {"train_loss", loss_sum / std::max<int64_t>(1, loss_n)},
                          {"dev_loss", dl},
                          {"lr", s.lr},
                          {"grad_norm", s.grad_norm},
                          {"tokens_per_s", tokens / progress.seconds()},
                          {"elapsed_s", progress.seconds()}};
      if (a.probe_every > 0 && s.step % a.probe_every == 0) {
        // The checkpoint of this step is the top-level model now: probe it (learning curves).
        ProbeArgs pa{.model = a.out, .suite = a.probe_suite,
                     .out = (out / "probes" / fmt::format("step-{}.json", s.step)).string(),
                     .threads = a.threads, .device = a.device, .quiet = true};
        const ProbeSummary ps = run_probe(pa);
        line["probe_overall"] = ps.overall;
        line["probe_phenomena"] = ps.phenomena;
        if (!a.quiet) fmt::print(stderr, "\nstep {}: probe overall {:.1f}\n", s.step, ps.overall);
      }
      metrics << line.dump() << "\n" << std::flush;
      loss_sum = 0, loss_n = 0;
      if (!a.quiet && !isatty(STDERR_FILENO))
        fmt::print(stderr, "step {}: dev loss {:.4f}\n", s.step, dl);
    }
  });
  if (!a.quiet) progress.finish();
  if (Trainer::stop_requested)
    fmt::print(stderr, "interrupted: checkpoint saved at step {} in {}\n", trainer.step(),
               out.string());
  else if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

void add_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a masked language model on a corpus");
  auto a = std::make_shared<TrainArgs>();
  add_train_options(cmd, *a);
  cmd->callback([a] { run_train(*a); });
}

}  // namespace bb::cli
