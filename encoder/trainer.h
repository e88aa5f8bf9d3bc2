// The training loop: batches from a source that is a pure function of (seed, step), forward,
// backward, AdamW; periodic atomic checkpoints; resume continues bit-for-bit; a stop request
// (Ctrl-C) saves a checkpoint and returns.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>

#include "backend/step_graphs.h"
#include "encoder/batch.h"
#include "encoder/checkpoint.h"
#include "encoder/model.h"
#include "encoder/optimizer.h"

namespace bb {

// Fills `out` with the batch of update `step` (0-based) for `seed`.
using BatchSource = std::function<void(uint64_t seed, int64_t step, Batch& out)>;

struct TrainOptions {
  int64_t steps = 1000;
  uint64_t seed = 0;
  OptimConfig optim;
  int64_t checkpoint_every = 0;  // 0: only at the end
  std::filesystem::path out;     // empty: no checkpoints
  bool resume = false;
  Device device = Device::cpu;   // where the model and optimizer live
  bool cuda_graphs = true;       // CUDA: replay captured steps (batches padded to fixed shapes)
};

struct StepLog {
  int64_t step;  // updates done
  double loss, lr, grad_norm;
  int tokens;    // non-pad tokens in the batch
};

class Trainer {
 public:
  Trainer(const Config& config, const Capacity& cap, const TrainOptions& opts, BatchSource source);
  // Trains up to opts.steps; returns the number of updates done in total.
  int64_t run(const std::function<void(const StepLog&)>& on_step = {});
  // At most n more updates (never past opts.steps).
  int64_t run_steps(int64_t n, const std::function<void(const StepLog&)>& on_step);
  void save();  // a checkpoint at the current step (needs opts.out)

  Model<float>& model() { return model_; }
  const AdamW& optimizer() const { return opt_; }
  int64_t step() const { return state_.step; }
  int captured_graphs() const { return graphs_.captured(); }

  static std::atomic<bool> stop_requested;  // set by a signal handler

 private:
  TrainOptions opts_;
  Model<float> model_;
  AdamW opt_;
  BatchSource source_;
  TrainerState state_;
  Batch batch_;
  StepGraphs graphs_;
};

}  // namespace bb
