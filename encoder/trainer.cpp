#include "encoder/trainer.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/files.h"

namespace bb {

namespace fs = std::filesystem;

static OptimConfig with_total(OptimConfig o, int64_t steps) {
  o.total_steps = steps;
  return o;
}

// Shapes of a captured CUDA step: tokens padded to a multiple of 16, scored rows of 8. A batch of
// 16 utterances then falls into a handful of shapes, each captured once.
constexpr int kTokenMultiple = 16, kRowMultiple = 8;

static bool use_graphs(const TrainOptions& o) {
  return o.device == Device::cuda && o.cuda_graphs && o.parallel.ranks == 1;
}

Trainer::Trainer(const Config& config, const Capacity& cap, const TrainOptions& opts,
                 BatchSource source)
    : opts_(opts),
      model_(config,
             use_graphs(opts) ? padded_capacity(cap, kTokenMultiple, kRowMultiple) : cap,
             opts.device),
      opt_(model_.layout(), config, with_total(opts.optim, opts.steps), opts.device),
      source_(std::move(source)),
      graphs_(opts.device, use_graphs(opts)) {
  model_.set_precision(opts.precision);  // bf16: checks the machine first
  model_.init_weights(opts.seed);
  state_.seed = opts.seed;
  if (opts.resume && !opts.out.empty()) {
    if (auto last = latest_checkpoint(opts.out)) {
      const Config saved = read_config(*last / "config.json");
      BB_CHECK(nlohmann::json(to_json(saved)) == nlohmann::json(to_json(config)),
               "{}: config differs from this run's; resume with the same settings",
               (*last / "config.json").string());
      state_ = load_checkpoint(*last, model_, opt_);
      BB_CHECK(state_.seed == opts.seed, "{}: checkpoint was trained with seed {}, not {}",
               last->string(), state_.seed, opts.seed);
      const int ranks = state_.data.is_object() ? state_.data.value("ranks", 1) : 1;
      BB_CHECK(ranks == opts.parallel.ranks,
               "{}: checkpoint was trained by {} process{} and this run has {}; resume with the same "
               "number (mpirun -np {}), the float summation order of the gradients depends on it",
               last->string(), ranks, ranks == 1 ? "" : "es", opts.parallel.ranks, ranks);
      log_.restore(state_.data, opts.out, state_.step, writes_files());
    }
  }
}

void Trainer::save_model_files() {
  BB_CHECK(!opts_.out.empty(), "no output directory to save a model to");
  model_.download();
  save_model(opts_.out, model_);
}

void Trainer::save() {
  BB_CHECK(!opts_.out.empty(), "no output directory to save a checkpoint to");
  state_.data = {{"next_step", state_.step}};
  log_.save_into(state_.data);
  if (opts_.parallel.ranks > 1) state_.data["ranks"] = opts_.parallel.ranks;
  model_.download();  // the checkpoint is written from the host copy
  save_checkpoint(opts_.out, model_, opt_, state_);
  log_.write(opts_.out);  // a copy of the checkpoint's log
  CheckpointRetention keep = opts_.keep;
  if (opt_.options().schedule == Schedule::wsd) keep.also.push_back(decay_start(opt_.options()));
  prune_checkpoints(opts_.out, keep);
}

int64_t Trainer::run(const std::function<void(const StepLog&)>& on_step) {
  return run_steps(opts_.steps - state_.step, on_step);
}

int64_t Trainer::run_steps(int64_t n, const std::function<void(const StepLog&)>& on_step) {
  const int64_t end = std::min(opts_.steps, state_.step + n);
  const DataParallel& dp = opts_.parallel;
  if (state_.step < end) log_.start_clock();
  while (state_.step < end) {
    source_(state_.seed, state_.step, batch_);
    const int tokens = batch_.num_tokens();
    StepContext ctx{true, state_.seed, state_.step};
    Batch* batch = &batch_;
    if (dp.ranks > 1) {  // this rank's share, weighted by its part of the global masked tokens
      ctx.first_seq = take_share(batch_, dp.rank, dp.ranks, share_);
      const int all = labelled_rows(batch_);
      ctx.loss_weight = all > 0 ? float(double(labelled_rows(share_)) / all) : 0.f;
      batch = &share_;
    }
    // An empty share (an epoch's last batch shorter than the ranks): this rank adds zero
    // gradients and loss to the reduction.
    const bool empty = batch->num_seqs() == 0;
    if (graphs_.active()) pad_to_shape(*batch, model_.config().pad_id, kTokenMultiple, kRowMultiple);
    if (!empty) model_.stage(*batch, ctx);
    const double lr = opt_.stage();
    // The step's ops, with no host value that changes between steps: replayable as a CUDA graph.
    graphs_.run(shape_key(*batch), [this, &dp, empty] {
      model_.zero_grads();
      if (!empty) {
        model_.run_forward();
        model_.backward();
      }
      if (dp.ranks > 1) model_.sum_grads(dp.sum_floats);
      // --precision bf16: the update rounds each weight into the current bf16 copy as it goes
      uint16_t* low = model_.bf16_copy_to_update();
      opt_.apply(model_.param_data(), model_.grad_data(), low);
      model_.params_updated(low != nullptr);
    });
    double loss = empty ? 0.0 : model_.loss();  // on CUDA: waits for the step (the one wait)
    bool stop = false;            // ranks > 1: agreed at this step's reduction
    if (dp.ranks > 1) {  // the global loss; a stop on any rank stops them all at this step
      double v[2] = {loss * ctx.loss_weight, stop_requested.load() ? 1.0 : 0.0};
      dp.sum_doubles(v, 2);
      loss = v[0], stop = v[1] > 0;
    }
    BB_CHECK(std::isfinite(loss), "training diverged: loss is {} at step {}", loss, state_.step);
    const double norm = opt_.grad_norm();
    ++state_.step;
    // on_step first, so that the metrics line it adds is written with this step's checkpoint.
    if (on_step) on_step({state_.step, loss, lr, norm, tokens, elapsed()});
    const bool periodic = opts_.checkpoint_every > 0 && state_.step % opts_.checkpoint_every == 0;
    // A wsd run also saves where its decay begins: what an extension resumes from.
    const bool decay_begins = opt_.options().schedule == Schedule::wsd &&
                              state_.step == decay_start(opt_.options());
    const bool saved = writes_files() && (periodic || decay_begins || state_.step == opts_.steps);
    if (saved) save();
    if (dp.ranks == 1) stop = stop_requested.load();
    if (stop) {
      stop_requested = true;
      if (writes_files() && !saved) save();
      break;
    }
  }
  return state_.step;
}

}  // namespace bb
