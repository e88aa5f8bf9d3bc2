// AdamW over the contiguous parameter buffer, global grad-norm clipping, and the learning-rate
// schedule: a linear warmup, then
//   linear:   linear decay to 0 at the last step (HF get_linear_schedule_with_warmup);
//   constant: the peak rate to the end;
//   wsd:      warmup-stable-decay: the peak rate until `decay_steps` before the end, then linear
//             decay to 0 over them.
// Only constant and wsd can be extended honestly (train --extend-to): up to the step their decay
// begins, their rate does not depend on the total.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "backend/device.h"
#include "backend/ops.h"
#include "backend/staging.h"
#include "encoder/config.h"
#include "encoder/parameters.h"

namespace bb {

enum class Schedule { linear, constant, wsd };
inline constexpr std::array<std::string_view, 3> kScheduleNames{"linear", "constant", "wsd"};
Schedule parse_schedule(std::string_view name);  // one of kScheduleNames; else a one-line error
std::string_view schedule_name(Schedule s);

struct OptimConfig {
  double lr = 1e-4;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-6;
  double weight_decay = 0.0;  // on weight matrices and embeddings; never biases, norms, SSA
  bool bias_correction = true;  // false reproduces BabyBERTa (HF AdamW, correct_bias=False)
  double clip_norm = 1.0;       // <= 0: no clipping
  double ssa_lr_mult = 1.0;     // learning-rate multiplier for SSA's b and n
  int64_t warmup_steps = -1;    // -1: min(24000, total_steps / 10)
  int64_t total_steps = 1;
  Schedule schedule = Schedule::linear;
  int64_t decay_steps = 0;      // wsd: the steps of the final decay
};

// Learning rate of update `step` (0-based): base * step / warmup during warmup, then
//   linear:   base * (total - step) / (total - warmup)
//   constant: base
//   wsd:      base until decay_start, then base * (total - step) / decay_steps
// never below 0.
double lr_at(const OptimConfig& o, int64_t step);
int64_t effective_warmup(const OptimConfig& o);
// The first step whose rate depends on the total: linear: the end of the warmup; wsd:
// max(warmup, total - decay_steps); constant: the total (it never decays).
int64_t decay_start(const OptimConfig& o);

class AdamW {
 public:
  // The moments live on `device`, with the model's parameters.
  AdamW(const ParamLayout& layout, const Config& config, const OptimConfig& opt,
        Device device = Device::cpu);
  // One update with lr_at(step) of device pointers; returns the gradient norm before clipping.
  // Frozen SSA values are left unchanged. = stage(), apply(), grad_norm().
  double update(float* params, const float* grads);
  // The next update's learning rate and step number to the device (counts the update); returns
  // that learning rate.
  double stage();
  // Queues the update: the gradient norm, then AdamW with clipping, reading the staged values
  // from device memory (so a CUDA step can be captured in a graph).
  // low: the params' bf16 copy (--precision bf16), rounded from each updated weight in the same
  // pass; null: none.
  void apply(float* params, const float* grads, uint16_t* low = nullptr);
  double grad_norm() const;  // of the last apply(), before clipping (synchronises on CUDA)

  Array<float> m, v;  // (layout.total)
  int64_t step = 0;         // updates done (staged)
  const OptimConfig& options() const { return opt_; }

 private:
  struct Group {
    int64_t offset, size;
    bool decay;
    double lr_mult;  // 0: frozen
  };
  std::vector<Group> groups_;  // contiguous runs with the same settings
  OptimConfig opt_;
  StagingBlock schedule_;  // one ops::AdamWSchedule
};

}  // namespace bb
