// A training run's directory: what may start or resume in it, which kernels computed it, and the
// command that resumes it.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "runs/train_flags.h"

namespace bb {

// A new run may not start over checkpoints (it writes run.json with `settings`); --resume needs a
// checkpoint and, where run.json has settings, the same ones (fails naming each that differs).
void check_run_directory(const TrainArgs& a, const nlohmann::ordered_json& settings);
// This process's command line with --resume added: what Ctrl-C tells the user to run.
std::string resume_command();

}  // namespace bb
