#include "models/text_kinds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <sstream>

#include "common/files.h"
#include "encoder/checkpoint.h"
#include "encoder/config_keys.h"
#include "runs/run_settings.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

InfoLines describe_text_model(const fs::path& dir) {
  const Config c = read_model_config(dir);
  Model<float> model(c, Capacity{1, 1, 1, 1});
  load_model_weights(dir, model);
  InfoLines out = {
      info_line("attention", c.label()),
      info_line("shape", fmt::format("{} layers, {} heads, hidden {}, ffn {}, vocab {}, max {} "
                                     "tokens", c.layers, c.heads, c.hidden, c.ffn, c.vocab_size,
                                     c.max_tokens())),
      info_line("parameters", std::to_string(model.layout().total))};
  const auto last = latest_checkpoint(dir);
  if (last) out.push_back(info_line("checkpoint", last->string()));
  // "step 300 of 300, recipe babyberta" from the latest checkpoint, run.json
  const auto plan = read_run_plan(dir);
  if (last || plan) {
    std::vector<std::string> parts;
    const std::string of = plan && plan->steps ? fmt::format(" of {}", *plan->steps) : "";
    if (last) parts.push_back(fmt::format("step {}{}", read_trainer_state(*last).step, of));
    else if (!of.empty()) parts.push_back(fmt::format("no checkpoint, {} steps planned", *plan->steps));
    if (plan) parts.push_back(fmt::format("recipe {}", plan->recipe));
    out.push_back(info_line("training", fmt::format("{}", fmt::join(parts, ", "))));
  }
  if (const auto dev = last_dev_loss(dir))  // a causal LM's next-token loss is also a perplexity
    out.push_back(info_line(
        "dev loss", fmt::format("{:.4f} at step {}{}", dev->second, dev->first,
                                config_keys(c.kind).next_token_loss
                                    ? fmt::format(" (perplexity {:.2f} per token)",
                                                  std::exp(dev->second))
                                    : "")));
  // The attention function's trained values, per layer and head (ssa: b, n; softmax-t: τ).
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  for (int l = 0; l < c.layers && f.value_count > 0; ++l) {
    std::string line = fmt::format("layer {} ", l);  // "layer 0  b: 1.0000 ...   n: 1.5000 ..."
    for (int slot = 0; slot < f.value_count; ++slot) {
      line += fmt::format("{} {}:", slot ? "  " : "", f.values[size_t(slot)].name);
      for (int h = 0; h < c.heads; ++h) line += fmt::format(" {:.4f}", model.head_value(l, h, slot));
    }
    out.push_back(line);
  }
  return out;
}

ModelAttention text_model_attention(const fs::path& dir, const AttentionRequest& r) {
  return read_attention(dir, r.sentences, /*keep_scores=*/false);
}

}  // namespace bb
