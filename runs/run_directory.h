// A training run's directory: what may start or resume in it, which kernels computed it, and the
// command that resumes it.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "backend/device.h"
#include "runs/train_flags.h"

namespace bb {

// A new run may not start over checkpoints (it writes run.json with `settings`); --resume needs a
// checkpoint and, where run.json has settings, the same ones (fails naming each that differs).
void check_run_directory(const TrainArgs& a, const nlohmann::ordered_json& settings);
// One run.json "sessions" entry (training/run_record.h) for a start or resume of any kind: from_step,
// threads, the --device given, the BLAS that computes it (cuBLAS on CUDA), the binary's git revision
// and the start time (UTC), and, for bf16, the precision and the kernel oneDNN chose (a bf16 resume
// must match them).
nlohmann::ordered_json session_entry(int64_t from_step, int threads, const std::string& device_flag,
                                     Device device, const std::string& precision);
// This process's command line with --resume added: what Ctrl-C tells the user to run.
std::string resume_command();

}  // namespace bb
