// babyberta icl train: its options (icl/train_flags.h); runs/icl_train_run.h trains.
#include <fmt/core.h>

#include <algorithm>

#include "cli/commands.h"
#include "common/flag_names.h"
#include "common/error.h"
#include "common/stop_signals.h"
#include "icl/train_flags.h"
#include "icl/trainer.h"
#include "runs/icl_train_run.h"
#include "training/head_value_flags.h"

namespace bb::cli {

void check_icl_train_flags(const std::vector<std::string>& flags) {
  std::vector<std::string> args = flags;
  args.insert(args.end(), {flag_name::out, "unused"});
  try {
    icl::parse_train_args(args);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    fail("icl experiment: a flag for icl train: {} (flags it does not know itself go to every "
         "icl train)", msg);
  }
}

void add_icl_train(CLI::App& icl_cmd) {
  auto* cmd = icl_cmd.add_subcommand(
      "train", "Train a causal model from scratch on an in-context-learning task");
  auto a = std::make_shared<icl::TrainArgs>();
  icl::add_train_options(cmd, *a);
  cmd->callback([a, cmd] {
    stop_gracefully(icl::Trainer::stop_requested);
    training::check_head_value_flags_given(*cmd, {parse_attention_function(a->attention)});
    run_icl_train(*a);
  });
}

}  // namespace bb::cli
