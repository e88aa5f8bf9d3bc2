// Training an ICL model (icl/model.h) on a task drawn on the fly (icl/task.h): Adam as the
// authors ran it (beta 0.9/0.999, eps 1e-8, no weight decay, constant learning rate, no gradient
// clipping unless clip_norm > 0), batch 64, a curriculum on the number of points. Batch `step` is
// a pure function of (seed, step), so a resumed run continues bit for bit.
// Run directory DIR: run.json (model config and settings; a resume must match it), config.json
// and model.safetensors (the latest model), checkpoints/step-N/ (model.safetensors,
// optimizer.safetensors with Adam's moments, trainer_state.json with the metrics log), and
// metrics.jsonl: a line at every checkpoint (step, the mean training loss since the line before,
// points, lr, tokens/s, elapsed_s; training/run_log.h). Every file is written to a temporary name
// and renamed, every step directory built aside and renamed into place.
#pragma once
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "backend/device.h"
#include "icl/config.h"
#include "icl/model.h"
#include "icl/task.h"
#include "training/run_log.h"
#include "training/stop_request.h"

namespace bb::icl {

// Points per sequence at update `step`: start + inc * (step / every), at most end.
struct Curriculum {
  int start = 11, end = 41, inc = 2;
  int64_t every = 2000;
  int points_at(int64_t step) const;
};

struct TrainSettings {
  Task task = Task::every;
  int batch = 64;
  int64_t steps = 10000;
  uint64_t seed = 0;
  double lr = 1e-4, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double clip_norm = 0;  // <= 0: no clipping (the authors')
  Curriculum curriculum;
  Spread spread;  // training distribution: x ~ N(0, sigma_x^2), functions ~ N(0, sigma_fn^2)
  int64_t checkpoint_every = 1000;
  double ssa_lr_mult = 1.0;      // learning-rate multiplier of the values whose row says so (b, n)
  int64_t keep_checkpoints = 0;  // the K most recent step checkpoints (0: every one)
  std::string precision = "fp32";  // --precision: fp32 or bf16 (backend/precision.h)
  void validate() const;         // what the flags' ranges cannot say, naming the flags
};

struct StepLog {
  int64_t step;  // updates done
  double loss;
  int points;
};

class Trainer {
 public:
  // Creates or resumes the run in `out` (empty: no files). A directory holding another run's
  // run.json is refused, naming the first setting that differs.
  Trainer(const Config& config, const TrainSettings& settings, const std::filesystem::path& out,
          Device device);
  // Trains up to settings.steps (stops early, after saving, when stop_requested is set); returns
  // the updates done in total.
  int64_t run(const std::function<void(const StepLog&)>& on_step = {});
  void save();
  // One update (the next batch, forward, backward, Adam); returns its loss.
  double train_step();
  int64_t step() const { return step_; }
  Model<float>& model() { return model_; }

  // The process's stop request (training/stop_request.h): set on Ctrl-C or SIGTERM.
  static inline std::atomic<bool>& stop_requested = training::stop_requested;

 private:
  Config cfg_;
  TrainSettings s_;
  std::filesystem::path out_;
  Model<float> model_;
  Array<float> m_, v_;
  Array<double> schedule_;  // one ops::AdamWSchedule on the model's device
  struct Span {
    int64_t offset, size;
    double lr_mult;
  };
  std::vector<Span> spans_;  // Adam's parameter spans by learning-rate multiplier
  int64_t step_ = 0;
  double last_loss_ = 0;
  training::RunLog log_;  // metrics.jsonl's lines, the window since the last one, the clock
  double session_tokens_ = 0;

  void log_line();  // the metrics line of this step (a checkpoint step)
};

// The run directory's model: config.json and model.safetensors (or those of a step directory).
Config read_model_config(const std::filesystem::path& dir);
// The run a model directory belongs to: RUN for RUN/checkpoints/step-N, else `dir` itself.
std::filesystem::path run_of_model(const std::filesystem::path& dir);
// The updates the model in `dir` was trained: its trainer_state.json's step (a step directory, or
// a run directory saved by this version), else the run's highest checkpoint; -1 when neither
// says (a model directory copied without them).
int64_t model_steps(const std::filesystem::path& dir);

// run.json's "steps" in a run directory: the updates the run was planned (or extended) to; none
// where there is no run.json, or one written before the total was recorded.
std::optional<int64_t> planned_steps(const std::filesystem::path& dir);
void load_model(const std::filesystem::path& dir, Model<float>& model);
// The attention function's trained values in dir/model.safetensors, effective (SSA's b and n,
// softmax-t's τ: the raw tensors through the slots' maps): [slot][layer][head]; empty for a
// function without trainable values.
std::vector<std::vector<std::vector<double>>> read_head_values(const std::filesystem::path& dir,
                                                               const Config& c);

}  // namespace bb::icl
