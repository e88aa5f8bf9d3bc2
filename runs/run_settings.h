// The encoder's run.json reading beyond the shared record (training/run_record.h): what a run's
// settings say of its plan. `train` records its settings in DIR/run.json when a run starts;
// `--resume` and `experiment` compare them before continuing or reusing a run, and name every flag
// that differs. Flags that may change on resume (FlagRole::resumable in runs/train_flags.h) are
// left out. --extend-to changes --steps and adds a "segments" entry (runs/run_extension.h).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "training/run_record.h"

namespace bb {

// What DIR/run.json says of the run's plan: its total steps and recipe (absent: babyberta).
struct RunPlan {
  std::optional<int64_t> steps;
  std::string recipe;
};
std::optional<RunPlan> read_run_plan(const std::filesystem::path& dir);

}  // namespace bb
