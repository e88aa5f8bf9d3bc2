#include "runs/train_run.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>

#include "backend/kernel_choice.h"
#include "backend/precision.h"
#include "common/flag_names.h"
#include "runs/metrics_log.h"
#include "runs/progress.h"
#include "runs/run_directory.h"
#include "runs/run_extension.h"
#include "runs/run_settings.h"
#include "runs/training_data.h"
#include "common/error.h"
#include "common/dir_lock.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/stop_signals.h"
#include "encoder/recipe.h"
#include "backend/threads.h"
#include "parallel/mpi.h"

namespace bb {

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
  if (!saved.contains(flag_name::dev_seed) && a.dev_seed == TrainArgs{}.dev_seed) a.dev_from_seed = true;
}

DataParallel mpi_data_parallel() {
  const mpi::World& w = mpi::world();
  return {w.rank, w.size, [](float* p, size_t n) { mpi::sum(p, n); },
          [](double* p, size_t n) { mpi::sum(p, n); }};
}

namespace {

// Everything a run needs before its first step. Rank 0 prepares and owns the run directory
// (tokenizer, run.json, token cache, checkpoints); the other ranks read it once it is ready.
struct PreparedRun {
  std::optional<Tokenizer> tok;
  std::optional<Config> config;
  TrainingData data;
};

void prepare_run(TrainArgs& a, const DataParallel& parallel, PreparedRun& p) {
  const bool lead = parallel.rank == 0;
  const fs::path out = a.out;
  for (int turn = 0; turn < 2; ++turn) {  // rank 0 first, then the others
    if (lead == (turn == 0)) {
      p.tok.emplace(tokenizer_for(a));
      if (a.resume)
        if (const auto saved = read_run_settings(out)) keep_recorded_dev_split(a, *saved);
      if (lead) {
        const std::string corpus_sha = sha256_hex(read_file(a.corpus));
        if (a.extend_to > 0) extend_run(a, train_settings(a, corpus_sha, p.tok->fingerprint()));
        check_run_directory(a, train_settings(a, corpus_sha, p.tok->fingerprint()));
        if (!fs::exists(out / "tokenizer.model")) save_tokenizer_model(out, *p.tok);
      }
      if (a.extend_to > 0) a.steps = a.extend_to;  // (rank 0: set by extend_run)
      p.config.emplace(model_config(a, *p.tok));
      load_training_data(a, *p.tok, *p.config, p.data);
    }
    if (parallel.ranks > 1 && turn == 0) mpi::barrier();
  }
}

// Removes `dir` when destroyed by an exception before disarm() (a failed start of a new run).
class RemoveIfStartFails {
 public:
  RemoveIfStartFails(fs::path dir, bool armed)
      : dir_(std::move(dir)), armed_(armed), exceptions_(std::uncaught_exceptions()) {}
  ~RemoveIfStartFails() {
    if (!armed_ || std::uncaught_exceptions() <= exceptions_) return;
    std::error_code ec;
    fs::remove_all(dir_, ec);  // best effort: the error being raised is the one to report
  }
  RemoveIfStartFails(const RemoveIfStartFails&) = delete;
  RemoveIfStartFails& operator=(const RemoveIfStartFails&) = delete;
  void disarm() { armed_ = false; }

 private:
  fs::path dir_;
  bool armed_;
  int exceptions_;
};

// run.json's record of this session: where the run continues from and what computes it.
void record_session(const TrainArgs& a, int64_t start, Device device, int ranks) {
  const fs::path out = a.out;
  if (!fs::exists(out / "run.json")) return;
  nlohmann::ordered_json session = session_entry(start, a.threads, a.device, device, a.precision);
  session["corpus"] = fs::absolute(a.corpus).string();
  if (ranks > 1) session["ranks"] = ranks;
  record_run_session(out, session);  // warns where kernels or threads changed
}

}  // namespace

void run_train(TrainArgs a, const DataParallel& parallel,
               const std::function<void(const StepLog&)>& on_step) {
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
  const Precision precision = parse_precision(a.precision);
  require_precision(precision, device);
  const fs::path out = a.out;
  const bool lead = parallel.rank == 0;
  if (!lead) a.quiet = true;
  // A start that fails before training (a bad corpus, a tokenizer that does not fit) leaves no
  // run directory behind when this start created it; declared before the lock, so that the lock
  // is released first.
  RemoveIfStartFails created(out, lead && !fs::exists(out));
  std::optional<DirLock> lock;
  if (lead) {
    lock.emplace(out);  // one process per run directory
    for (const fs::path& d : {out, out / "checkpoints", out / "cache", out / "probes"})
      remove_stale_temporaries(d);  // half-written files of a crashed earlier run
  }
  PreparedRun run;
  prepare_run(a, parallel, run);
  TrainingData& data = run.data;
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
                    .device = device, .precision = precision, .cuda_graphs = a.cuda_graphs,
                    .parallel = parallel};
  BatchStream& batches = *data.batches;
  Trainer trainer(*run.config, cap, topt,
                  [&](uint64_t, int64_t step, Batch& b) { batches.batch(step, b); });
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
  if (lead) record_session(a, start, device, ranks);
  created.disarm();  // training begins: from here a failure keeps its checkpoints
  trainer.run([&](const StepLog& s) {
    if (!lead) return;  // rank 0 evaluates, probes and logs while the others wait for its step
    metrics.on_step(s);
    if (on_step) {
      StepLog with_dev = s;
      with_dev.dev_loss = metrics.dev_loss_at(s.step);
      on_step(with_dev);
    }
    else if (!a.quiet)
      progress.update(s.step, fmt::format("loss {:.3f} lr {:.2e} {:.0f} tok/s", s.loss, s.lr,
                                          metrics.tokens() / progress.seconds()));
  });
  if (!a.quiet && !on_step) progress.finish();
  if (!lead) return;
  if (Trainer::stop_requested) {
    const std::string saved =
        fmt::format("checkpoint saved at step {} in {}", trainer.step(), out.string());
    throw Interrupted(fmt::format("interrupted: {}; to continue: {}", saved, resume_command()),
                      saved);
  }
  if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

}  // namespace bb
