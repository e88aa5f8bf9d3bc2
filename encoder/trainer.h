// The training loop: batches from a source that is a pure function of (seed, step), forward,
// backward, AdamW; periodic atomic checkpoints; resume continues bit-for-bit; a stop request
// (Ctrl-C) saves a checkpoint and returns. The metrics log, its window and the clock are the
// training layer's (training/run_log.h), saved with each checkpoint's trainer state.
#pragma once
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <limits>

#include "backend/step_graphs.h"
#include "encoder/batch.h"
#include "encoder/checkpoint.h"
#include "encoder/model.h"
#include "encoder/optimizer.h"
#include "training/run_log.h"
#include "training/stop_request.h"

namespace bb {

// Fills `out` with the batch of update `step` (0-based) for `seed`.
using BatchSource = std::function<void(uint64_t seed, int64_t step, Batch& out)>;

// Data parallelism over `ranks` processes (mpirun; parallel/mpi.h): every rank draws the same
// global batch and trains on its share (take_share), with dropout keyed by the global sequence and
// the loss normalised by the global count of masked tokens; `sum_floats` adds the gradients over
// the ranks in place (one MPI_Allreduce per step), so every rank applies the same update as one
// process would, up to float summation order. Only rank 0 writes checkpoints. ranks = 1: none.
struct DataParallel {
  int rank = 0, ranks = 1;
  std::function<void(float*, size_t)> sum_floats;
  std::function<void(double*, size_t)> sum_doubles;
};

struct TrainOptions {
  int64_t steps = 1000;
  uint64_t seed = 0;
  OptimConfig optim;
  int64_t checkpoint_every = 0;  // 0: only at the end (and where a wsd decay begins)
  CheckpointRetention keep;      // pruned after every save; keep.also gains the decay's start
  std::filesystem::path out;     // empty: no checkpoints
  bool resume = false;
  Device device = Device::cpu;   // where the model and optimizer live
  Precision precision = Precision::fp32;  // the linear layers' (backend/precision.h)
  bool cuda_graphs = true;       // CUDA: replay captured steps (batches padded to fixed shapes)
  DataParallel parallel;         // ranks > 1: no CUDA graphs (the allreduce is on the host)
};

struct StepLog {
  int64_t step;  // updates done
  double loss, lr, grad_norm;
  int tokens;    // non-pad tokens in the batch
  double elapsed_s = 0;  // seconds trained over all sessions (Trainer::elapsed)
  // the dev loss where the step was evaluated, filled by the run (runs/train_run); NaN elsewhere
  double dev_loss = std::numeric_limits<double>::quiet_NaN();
};

class Trainer {
 public:
  Trainer(const Config& config, const Capacity& cap, const TrainOptions& opts, BatchSource source);
  // Trains up to opts.steps; returns the number of updates done in total. on_step runs after each
  // update and before that step's checkpoint (if any) is written.
  int64_t run(const std::function<void(const StepLog&)>& on_step = {});
  // At most n more updates (never past opts.steps).
  int64_t run_steps(int64_t n, const std::function<void(const StepLog&)>& on_step);
  void save();  // a checkpoint at the current step (needs opts.out)
  // Writes only the top-level model files (e.g. to probe this step's model before its checkpoint).
  void save_model_files();
  // Adds a line to the metrics log; it reaches disk with the next checkpoint (on_step of a
  // checkpoint step runs before that checkpoint is written).
  void add_metrics(nlohmann::json line) { log_.add(std::move(line)); }
  // The caller's running state between metrics lines (e.g. the window's loss sum), saved with
  // every checkpoint and given back on resume, so that a run resumed between two metrics lines
  // writes the same next line as an uninterrupted one. Empty object: none saved.
  void set_window(nlohmann::json window) { log_.set_window(std::move(window)); }
  const nlohmann::json& window() const { return log_.window(); }
  // Seconds this run has trained, over all its sessions: what the checkpoint resumed from had
  // counted (saved with every checkpoint, a stop's included) plus this process's time since its
  // first step. Metrics lines record it as elapsed_s.
  double elapsed() const { return log_.elapsed(); }
  bool writes_files() const { return !opts_.out.empty() && opts_.parallel.rank == 0; }

  Model<float>& model() { return model_; }
  const AdamW& optimizer() const { return opt_; }
  int64_t step() const { return state_.step; }
  int captured_graphs() const { return graphs_.captured(); }

  // The process's stop request (training/stop_request.h): set on Ctrl-C or SIGTERM.
  static inline std::atomic<bool>& stop_requested = training::stop_requested;

 private:
  TrainOptions opts_;
  Model<float> model_;
  AdamW opt_;
  BatchSource source_;
  TrainerState state_;
  Batch batch_, share_;  // the global batch; this rank's share of it (data parallelism)
  StepGraphs graphs_;
  training::RunLog log_;  // the metrics log up to the current step, its window, the clock
};

}  // namespace bb
