// babyberta info --model DIR: configuration, parameter count, training (steps, recipe, last dev
// loss), the attention function's trained values.
#include <fmt/core.h>

#include <memory>

#include "backend/threads.h"
#include "cli/commands.h"
#include "models/model_kind.h"

namespace bb::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Describe a model directory (any kind)");
  auto dir = std::make_shared<std::string>();
  cmd->add_option("--model", *dir, "Model directory (holds config.json, model.safetensors)")
      ->required();
  cmd->callback([dir] {
    set_threads(1);
    const ModelKindSpec& k = require_model_kind(*dir, ModelCommand::info);
    fmt::print("{}\n{}\n", info_line("model", *dir), info_line("kind", fmt::format("{} ({})", k.name, k.summary)));
    for (const std::string& line : k.describe(*dir)) fmt::print("{}\n", line);
  });
}

}  // namespace bb::cli
