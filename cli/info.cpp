// babyberta info --model DIR: configuration, parameter count, training step, SSA's b and n.
#include <fmt/core.h>

#include "cli/commands.h"
#include "backend/threads.h"
#include "encoder/checkpoint.h"

namespace bb::cli {

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
    if (auto last = latest_checkpoint(*dir)) fmt::print("checkpoint {}\n", last->string());
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
