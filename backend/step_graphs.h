// Runs a training step's ops — a sequence whose launches are fixed by a shape key (the batch's
// padded sizes) — on a device. On CUDA, a few hundred small kernels per step would be bound by
// launch overhead, so the body is captured into a CUDA graph the second time its key is seen
// (the first, eager run sizes the workspaces) and replayed from then on; every value that
// changes from step to step is read from device memory (backend/staging.h), never baked into the
// graph. If a capture fails, a one-line warning is printed and steps run eagerly from then on.
// On the CPU, or when disabled, the body simply runs.
//
// The rules a captured step's ops (backend/ops.h) follow, so that a replay computes the next step:
// - every value that changes from step to step is read from device memory when the op runs,
//   never passed by value: dropout keys (dropout_forward, attention_forward), the AdamW schedule
//   and the squared gradient norm (adamw_update, sum_squares), the loss (cross_entropy_*);
// - an op's launches depend only on its sizes, so one shape key fixes the whole step;
// - no op synchronises with the host or allocates (cuda::workspace() grows only in the eager run
//   that precedes a capture; a growth later invalidates the graphs, see workspace_generation).
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "backend/device.h"

namespace bb {

class StepGraphs {
 public:
  StepGraphs(Device device, bool enabled);
  ~StepGraphs();
  StepGraphs(const StepGraphs&) = delete;
  StepGraphs& operator=(const StepGraphs&) = delete;

  void run(uint64_t key, const std::function<void()>& body);
  int captured() const { return int(graphs_.size()); }
  bool active() const { return enabled_; }

 private:
  void clear();
  bool enabled_;
  uint64_t generation_ = 0;                  // the workspace the graphs were captured with
  std::unordered_map<uint64_t, int> seen_;   // eager runs per key
  std::unordered_map<uint64_t, void*> graphs_;
};

}  // namespace bb
