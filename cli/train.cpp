// babyberta train: the training-flag table's options; runs/train_run.h does the rest.
#include <memory>

#include "cli/commands.h"
#include "common/stop_signals.h"
#include "runs/train_flags.h"
#include "runs/train_run.h"
#include "training/head_value_flags.h"

namespace bb::cli {

void add_train(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a language model on a corpus (roberta: masked; gpt2: causal)");
  auto a = std::make_shared<TrainArgs>();
  add_train_options(cmd, *a);
  cmd->callback([a, cmd] {
    stop_gracefully(Trainer::stop_requested);  // Ctrl-C, SIGTERM: save a checkpoint, exit 130
    apply_recipe(*a, *cmd);
    training::check_head_value_flags_given(*cmd, {parse_attention_function(a->attention)});
    run_train(*a, mpi_data_parallel());
  });
}

}  // namespace bb::cli
