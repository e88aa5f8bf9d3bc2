#include "cli/train.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <tuple>

#include "backend/cpu/blas_core.h"
#include "cli/commands.h"
#include "cli/flag_ranges.h"
#include "cli/probe.h"
#include "cli/progress.h"
#include "cli/run_extension.h"
#include "cli/run_settings.h"
#include "common/error.h"
#include "common/dir_lock.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/stop_signals.h"
#include "encoder/recipe.h"
#include "backend/threads.h"
#include "parallel/mpi.h"

namespace bb::cli {

namespace fs = std::filesystem;

void check_schedule(const TrainArgs& a) {
  BB_CHECK(a.optim.schedule != Schedule::wsd || a.optim.decay_steps >= 1,
           "--schedule wsd needs --decay-steps (the steps of its final decay)");
  BB_CHECK(a.optim.schedule == Schedule::wsd || a.optim.decay_steps == 0,
           "--decay-steps is for --schedule wsd (this run's schedule is {})", a.schedule);
  BB_CHECK(a.optim.schedule != Schedule::wsd ||
               a.optim.decay_steps <= a.steps - std::max<int64_t>(0, a.optim.warmup_steps),
           "--decay-steps {} is more than --steps {} minus the warmup ({})", a.optim.decay_steps,
           a.steps, a.optim.warmup_steps);
}

void keep_recorded_dev_split(TrainArgs& a, const nlohmann::ordered_json& saved) {
  if (!saved.contains("--dev-seed") && a.dev_seed == TrainArgs{}.dev_seed) a.dev_from_seed = true;
}

namespace {

using ojson = nlohmann::ordered_json;

Tokenizer tokenizer_for(const TrainArgs& a) {
  const fs::path out = a.out;
  if (!a.tokenizer.empty()) return Tokenizer::load(a.tokenizer);
  if (fs::exists(out / "tokenizer.model")) return Tokenizer::load(out);
  TokenizerTrainOptions opt{.model_type = a.tokenizer_type, .vocab_size = a.vocab_size,
                            .normalization = {.nfkc = true, .lowercase = !a.keep_case},
                            .threads = a.threads, .source = a.corpus};
  CorpusStats stats;
  const auto lines = read_corpus_lines(a.corpus, {.min_words = 1, .strict = a.strict},
                                       Normalizer(opt.normalization), stats);
  Tokenizer::train(lines, opt, out);
  return Tokenizer::load(out);
}

// A new run may not start over checkpoints; --resume needs one and the settings it was made with.
void check_run_directory(const TrainArgs& a, const ojson& settings) {
  const fs::path out = a.out;
  const auto last = latest_checkpoint(out);
  if (!a.resume) {
    if (last)
      fail("{}: holds checkpoints already; pass --resume to continue or choose a new --out",
           out.string());
    fs::remove(out / "metrics.jsonl");  // from a run killed before its first checkpoint
    write_run_settings(out, settings);
    return;
  }
  if (!last) fail("{}: --resume, but there is no checkpoint to resume from", out.string());
  const auto saved = read_run_settings(out);
  if (!saved) {
    fmt::print(stderr, "babyberta: warning: {}: no run.json (written by an older version); only "
               "the model config and seed are checked on resume\n", out.string());
    return;
  }
  const auto diff = settings_differences(*saved, settings, "checkpoint");
  const bool longer = saved->value("--steps", int64_t(0)) < a.steps;
  if (!diff.empty())
    fail("{}: cannot resume with other settings ({}); use the original flags (only {} may "
         "change){}",
         out.string(), fmt::join(diff, "; "), resumable_flags(),
         !longer ? ""
         : a.optim.schedule == Schedule::linear
             ? "; a linear-schedule run cannot be made longer (its decay reaches 0 at --steps): "
               "train with --schedule wsd --decay-steps D or --schedule constant, whose runs "
               "--extend-to N extends"
             : "; to make it longer give the original --steps and --extend-to N");
}

Config model_config(const TrainArgs& a, const Tokenizer& tok) {
  Config config = preset(a.preset);
  if (a.layer_norm_eps > 0) config.layer_norm_eps = a.layer_norm_eps;
  config.vocab_size = tok.vocab_size();
  config.attention = parse_attention_function(a.attention);
  config.head_values = a.head_values;
  config.hidden_dropout = config.attention_dropout = a.dropout;
  config.tokenizer = tok.settings();
  config.validate("train options");
  return config;
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

// The corpus as training and dev batches, with BabyBERTa's filters and the run's masking recipe.
struct TrainingData {
  TokenizedCorpus all, train, dev;
  std::unique_ptr<MlmBatches> batches, dev_batches;
  int longest = 0;  // tokens of the longest utterance
};

// Fills `d` in place: its batches refer to its corpora.
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
  a.batching.masking.vocab_size = config.vocab_size;
  a.batching.masking.mask_id = config.mask_id;
  d.batches = std::make_unique<MlmBatches>(d.train, a.batching, a.seed);
  BatchingOptions dev_opt = a.batching;
  dev_opt.mask_patterns = 1;
  // The dev masks too are the same for every training seed.
  if (!a.no_dev) d.dev_batches = std::make_unique<MlmBatches>(d.dev, dev_opt, dev_seed + 1);
  for (int64_t i = 0; i < d.all.size(); ++i) d.longest = std::max(d.longest, d.all.length(i));
  if (!a.quiet) {
    fmt::print(stderr, "corpus {}: {}\n", a.corpus, d.all.stats.summary());
    fmt::print(stderr, "train {} utterances ({} tokens), dev {}; {} batches per epoch, padding "
               "fraction if padded {:.3f}\n", d.train.size(), d.train.ids.size(),
               a.no_dev ? std::string("none (--no-dev)") : std::to_string(d.dev.size()),
               d.batches->batches_per_epoch(), d.batches->padding_fraction());
  }
}

// One metrics line per evaluation: the window's mean training loss, the dev loss and, with
// --probe-every, the probe of this step's model (learning curves). elapsed_s is the trainer's
// clock, which counts on across resumes.
class MetricsLog {
 public:
  // dev: nullptr with --no-dev (no dev loss)
  MetricsLog(const TrainArgs& a, Trainer& trainer, MlmBatches* dev, Progress& progress)
      : a_(a), trainer_(trainer), dev_(dev), progress_(progress) {
    const nlohmann::json& w = trainer.window();  // a resume between two lines: their window
    loss_sum_ = w.value("loss_sum", 0.0), loss_n_ = w.value("loss_n", int64_t(0));
  }

  void on_step(const StepLog& s) {
    loss_sum_ += s.loss, ++loss_n_, tokens_ += s.tokens;
    trainer_.set_window({{"loss_sum", loss_sum_}, {"loss_n", loss_n_}});
    if (s.step % a_.eval_every != 0 && s.step != a_.steps) return;
    const double seconds = progress_.seconds();
    nlohmann::json line{{"step", s.step},
                        {"train_loss", loss_sum_ / std::max<int64_t>(1, loss_n_)},
                        {"lr", s.lr},
                        {"grad_norm", s.grad_norm},
                        {"tokens_per_s", tokens_ / seconds},
                        {"elapsed_s", trainer_.elapsed()}};
    if (dev_) {
      const double dl = dev_loss(trainer_.model(), *dev_, a_.dev_batches);
      line["dev_loss"] = dl;
      if (!a_.quiet) progress_.note(fmt::format("step {}: dev loss {:.4f}", s.step, dl));
    }
    if (a_.probe_every > 0 && s.step % a_.probe_every == 0) probe(s.step, line);
    trainer_.add_metrics(std::move(line));  // written with this step's checkpoint
    loss_sum_ = 0, loss_n_ = 0;
    trainer_.set_window({{"loss_sum", 0.0}, {"loss_n", 0}});
  }
  double tokens() const { return double(tokens_); }

 private:
  void probe(int64_t step, nlohmann::json& line) {
    trainer_.save_model_files();  // the probe reads this step's model from the run directory
    const fs::path out = fs::path(a_.out) / "probes" / fmt::format("step-{}.json", step);
    ProbeArgs pa{.model = a_.out, .suite = a_.probe_suite, .out = out.string(),
                 .threads = a_.threads, .device = a_.device,
                 .pairs_per_paradigm = a_.probe_pairs, .quiet = a_.quiet};
    if (!a_.quiet) progress_.note(fmt::format("step {}: probing {}", step, a_.probe_suite));
    const ProbeSummary ps = run_probe(pa);
    line["probe_overall"] = ps.overall;
    line["probe_phenomena"] = ps.phenomena;
    if (!a_.quiet) progress_.note(fmt::format("step {}: probe overall {:.1f}", step, ps.overall));
  }

  const TrainArgs& a_;
  Trainer& trainer_;
  MlmBatches* dev_;
  Progress& progress_;
  double loss_sum_ = 0;
  int64_t loss_n_ = 0, tokens_ = 0;
};

// This command line with --resume added: what Ctrl-C tells the user to run.
std::string resume_command() {
  std::string cmdline = read_file("/proc/self/cmdline"), out;
  bool has_resume = false;
  for (size_t pos = 0; pos < cmdline.size();) {
    const size_t end = std::min(cmdline.find('\0', pos), cmdline.size());
    const std::string arg = cmdline.substr(pos, end - pos);
    has_resume |= arg == "--resume";
    const bool plain = arg.find_first_of(" \t'\"$\\") == std::string::npos && !arg.empty();
    out += (out.empty() ? "" : " ") + (plain ? arg : "'" + arg + "'");
    pos = end + 1;
  }
  return has_resume ? out : out + " --resume";
}

// A resumed run equals an uninterrupted one bit for bit only with the same kernels and thread
// count as the session before it (README, Threads): say so where they differ.
void warn_if_kernels_changed(const fs::path& out, const std::string& blas, int threads) {
  const auto run = read_run_record(out);
  if (!run || !(*run).contains("sessions") || !(*run)["sessions"].is_array() ||
      (*run)["sessions"].empty())
    return;
  const ojson& last = (*run)["sessions"].back();
  const std::string was = last.value("blas", std::string());
  const int was_threads = last.value("threads", threads);
  if (!was.empty() && was != blas)
    fmt::print(stderr, "babyberta: warning: {}: its last session ran on \"{}\", this one on \"{}\"; "
               "training continues correctly, but not bit for bit as an uninterrupted run\n",
               out.string(), was, blas);
  else if (was_threads != threads)
    fmt::print(stderr, "babyberta: warning: {}: its last session ran on {} threads, this one on {}; "
               "training continues correctly, but not bit for bit as an uninterrupted run\n",
               out.string(), was_threads, threads);
}

}  // namespace

DataParallel mpi_data_parallel() {
  const mpi::World& w = mpi::world();
  return {w.rank, w.size, [](float* p, size_t n) { mpi::sum(p, n); },
          [](double* p, size_t n) { mpi::sum(p, n); }};
}

void run_train(TrainArgs a, const DataParallel& parallel) {
  BB_CHECK(a.probe_every == 0 || (!a.probe_suite.empty() && a.probe_every % a.eval_every == 0),
           "--probe-every needs --probe-suite and must be a multiple of --eval-every ({})",
           a.eval_every);
  check_schedule(a);
  check_extension(a);
  const int ranks = parallel.ranks;
  BB_CHECK(a.batching.batch_size >= ranks,
           "--batch-size {} is smaller than the {} data-parallel ranks: each needs a sequence",
           a.batching.batch_size, ranks);
  set_threads(a.threads);
  const Device device = usable_device(a.device);  // fail before any work
  const fs::path out = a.out;
  // Rank 0 prepares and owns the run directory (tokenizer, run.json, token cache, checkpoints);
  // the other ranks read it once it is ready.
  const bool lead = parallel.rank == 0;
  if (!lead) a.quiet = true;
  std::optional<DirLock> lock;
  if (lead) {
    lock.emplace(out);  // one process per run directory
    for (const fs::path& d : {out, out / "checkpoints", out / "cache", out / "probes"})
      remove_stale_temporaries(d);  // half-written files of a crashed earlier run
  }
  std::optional<Tokenizer> tok;
  std::optional<Config> config;
  TrainingData data;
  for (int turn = 0; turn < 2; ++turn) {  // rank 0 first, then the others
    if (lead == (turn == 0)) {
      tok.emplace(tokenizer_for(a));
      if (a.resume)
        if (const auto saved = read_run_settings(out)) keep_recorded_dev_split(a, *saved);
      if (lead) {
        const std::string corpus_sha = sha256_hex(read_file(a.corpus));
        if (a.extend_to > 0) extend_run(a, train_settings(a, corpus_sha, tok->fingerprint()));
        check_run_directory(a, train_settings(a, corpus_sha, tok->fingerprint()));
        if (!fs::exists(out / "tokenizer.model")) save_tokenizer_model(out, *tok);
      }
      if (a.extend_to > 0) a.steps = a.extend_to;  // (rank 0: set by extend_run)
      config.emplace(model_config(a, *tok));
      load_training_data(a, *tok, *config, data);
    }
    if (ranks > 1 && turn == 0) mpi::barrier();
  }
  const std::string blas = blas_provenance();
  if (!a.quiet) fmt::print(stderr, "blas: {}\n", blas);
  if (!a.quiet && ranks > 1)
    fmt::print(stderr, "data parallel: {} ranks, {} utterances per batch in all\n", ranks,
               a.batching.batch_size);

  const int B = a.batching.batch_size;
  const Capacity cap{B, B * data.longest, data.longest, B * data.longest};
  TrainOptions topt{.steps = a.steps, .seed = a.seed, .optim = a.optim,
                    .checkpoint_every = a.eval_every,
                    .keep = {.last = a.keep_checkpoints, .every = a.probe_every, .also = {}},
                    .out = out, .resume = a.resume,
                    .device = device, .cuda_graphs = a.cuda_graphs, .parallel = parallel};
  MlmBatches& batches = *data.batches;
  Trainer trainer(*config, cap, topt, [&](uint64_t, int64_t step, Batch& b) { batches.batch(step, b); });
  const int64_t start = trainer.step();
  if (ranks > 1) {  // every rank must continue from the same checkpoint
    double steps = double(start);
    parallel.sum_doubles(&steps, 1);
    BB_CHECK(steps == double(start) * ranks,
             "{}: the ranks resumed from different steps (this one from {}); is --out on a "
             "filesystem every rank sees?", out.string(), start);
  }
  if (a.resume && !a.quiet) fmt::print(stderr, "resuming from step {}\n", start);
  Progress progress(a.steps, "steps", std::max<int64_t>(1, a.eval_every / 10), start);
  MetricsLog metrics(a, trainer, data.dev_batches.get(), progress);
  if (lead && fs::exists(out / "run.json")) {
    warn_if_kernels_changed(out, device == Device::cpu ? blas : "cuBLAS", a.threads);
    nlohmann::json session{{"from_step", start}, {"threads", a.threads}, {"device", a.device},
                           {"blas", device == Device::cpu ? blas : "cuBLAS"},
                           {"corpus", fs::absolute(a.corpus).string()}};
    if (ranks > 1) session["ranks"] = ranks;
    add_run_session(out, session);
  }
  trainer.run([&](const StepLog& s) {
    if (!lead) return;  // rank 0 evaluates, probes and logs while the others wait for its step
    metrics.on_step(s);
    if (!a.quiet)
      progress.update(s.step, fmt::format("loss {:.3f} lr {:.2e} {:.0f} tok/s", s.loss, s.lr,
                                          metrics.tokens() / progress.seconds()));
  });
  if (!a.quiet) progress.finish();
  if (!lead) return;
  if (Trainer::stop_requested)
    throw Interrupted(fmt::format("interrupted: checkpoint saved at step {} in {}; to continue: {}",
                                  trainer.step(), out.string(), resume_command()));
  if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

void add_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a masked language model on a corpus");
  auto a = std::make_shared<TrainArgs>();
  add_train_options(cmd, *a);
  cmd->callback([a, cmd] {
    stop_gracefully(Trainer::stop_requested);  // Ctrl-C, SIGTERM: save a checkpoint, exit 130
    apply_recipe(*a, *cmd);
    run_train(*a, mpi_data_parallel());
  });
}

}  // namespace bb::cli
