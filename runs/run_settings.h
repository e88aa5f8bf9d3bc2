// The settings of a training run that change its math, keyed by the flag that sets them. `train`
// records them in DIR/run.json when a run starts; `--resume` and `experiment` compare them before
// continuing or reusing a run, and name every flag that differs. Flags that may change on resume
// (they do not change the math: FlagRole::resumable in runs/train_flags.h) are left out.
// --extend-to changes --steps and adds a "segments" entry (runs/run_extension.h).
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runs/train_flags.h"

namespace bb {

// DIR/run.json, written atomically: the settings, and one "sessions" entry per start or resume
// (from_step, threads, device, blas: what computed this part of the run; corpus: its path).
void write_run_settings(const std::filesystem::path& dir, const nlohmann::ordered_json& settings);
void add_run_session(const std::filesystem::path& dir, const nlohmann::ordered_json& session);
// What DIR/run.json says of the run's plan: its total steps and recipe (absent: babyberta).
struct RunPlan {
  std::optional<int64_t> steps;
  std::string recipe;
};
std::optional<RunPlan> read_run_plan(const std::filesystem::path& dir);
// DIR/run.json's settings, if the run has recorded any.
std::optional<nlohmann::ordered_json> read_run_settings(const std::filesystem::path& dir);
// DIR/run.json whole ({"settings": ..., "sessions": [...]}), or nullopt when there is none.
std::optional<nlohmann::ordered_json> read_run_record(const std::filesystem::path& dir);
// sha256 of the settings with sorted keys: what a probe result records of the run it probed.
std::string settings_fingerprint(const nlohmann::ordered_json& settings);
// One "FLAG: WHAT_SAVED was A, now B" entry per differing flag (missing keys count as differing).
std::vector<std::string> settings_differences(const nlohmann::ordered_json& saved,
                                              const nlohmann::ordered_json& now,
                                              const std::string& what_saved);

}  // namespace bb
