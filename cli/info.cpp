// babyberta info --model DIR: configuration, parameter count, training (steps, recipe, last dev
// loss), the attention function's trained values.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <sstream>

#include "backend/threads.h"
#include "cli/commands.h"
#include "runs/run_settings.h"
#include "common/files.h"
#include "encoder/checkpoint.h"

namespace bb::cli {

namespace {

namespace fs = std::filesystem;

// The last metrics.jsonl line with a dev loss: (step, dev loss); nothing when there is none or the
// file cannot be read (info describes what it can).
std::optional<std::pair<int64_t, double>> last_dev_loss(const fs::path& dir) {
  if (!fs::exists(dir / "metrics.jsonl")) return std::nullopt;
  std::optional<std::pair<int64_t, double>> last;
  std::istringstream lines(read_file(dir / "metrics.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("dev_loss") && j["dev_loss"].is_number() &&
        j.contains("step") && j["step"].is_number_integer())
      last = {j["step"].get<int64_t>(), j["dev_loss"].get<double>()};
  }
  return last;
}

// "training   step 300 of 300, recipe babyberta" and "dev loss   2.6812 at step 300", from the
// latest checkpoint `last`, run.json and metrics.jsonl (a model directory without them: nothing).
void print_training(const fs::path& dir, const std::optional<fs::path>& last) {
  const auto plan = read_run_plan(dir);
  if (last || plan) {
    std::string line = "training  ";
    if (last) line += fmt::format(" step {}", read_trainer_state(*last).step);
    if (plan && plan->steps) line += fmt::format(" of {}", *plan->steps);
    if (plan) line += fmt::format("{} recipe {}", last ? "," : "", plan->recipe);
    fmt::print("{}\n", line);
  }
  if (const auto dev = last_dev_loss(dir))
    fmt::print("dev loss   {:.4f} at step {}\n", dev->second, dev->first);
}

}  // namespace

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Describe a model directory");
  auto dir = std::make_shared<std::string>();
  cmd->add_option("--model", *dir, "Model directory (holds config.json, model.safetensors)")
      ->required();
  cmd->callback([dir] {
    set_threads(1);
    const Config c = read_model_config(*dir);
    Capacity cap{1, 1, 1, 1};
    Model<float> model(c, cap);
    load_model_weights(*dir, model);
    fmt::print("model      {}\n", *dir);
    fmt::print("attention  {}\n", c.label());
    fmt::print("shape      {} layers, {} heads, hidden {}, ffn {}, vocab {}, max {} tokens\n",
               c.layers, c.heads, c.hidden, c.ffn, c.vocab_size, c.max_tokens());
    fmt::print("parameters {}\n", model.layout().total);
    const auto last = latest_checkpoint(*dir);
    if (last) fmt::print("checkpoint {}\n", last->string());
    print_training(*dir, last);
    // The attention function's trained values, per layer and head (ssa: b, n; softmax-t: τ).
    const AttentionFunctionSpec& f = attention_function_spec(c.attention);
    for (int l = 0; l < c.layers && f.value_count > 0; ++l) {
      fmt::print("layer {} ", l);
      for (int slot = 0; slot < f.value_count; ++slot) {
        fmt::print("{} {}:", slot ? "  " : "", f.values[size_t(slot)].name);
        for (int h = 0; h < c.heads; ++h) fmt::print(" {:.4f}", model.head_value(l, h, slot));
      }
      fmt::print("\n");
    }
  });
}

}  // namespace bb::cli
