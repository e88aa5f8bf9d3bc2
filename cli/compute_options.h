// The compute options the commands that run a model share, registered in one place: --threads
// (capped at the cores), --device (cpu or cuda) and --precision (fp32 or bf16).
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "common/flag_names.h"
#include "training/flag_ranges.h"
#include "training/precision_flag.h"

namespace bb::cli {

inline void add_threads_option(CLI::App* cmd, int& threads) {
  cmd->add_option(flag_name::threads, threads, "Compute threads")
      ->transform(thread_count())
      ->capture_default_str();
}

// --threads, --device and --precision (probe, score, perplexity).
inline void add_compute_options(CLI::App* cmd, int& threads, std::string& device,
                                std::string& precision) {
  add_threads_option(cmd, threads);
  cmd->add_option(flag_name::device, device, "cpu or cuda")->capture_default_str();
  cmd->add_option(flag_name::precision, precision, training::kPrecisionHelp)
      ->check(one_of("precision", {"fp32", "bf16"}))
      ->capture_default_str();
}

}  // namespace bb::cli
