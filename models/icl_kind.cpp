#include "models/icl_kind.h"

#include <fmt/format.h>

#include "encoder/checkpoint.h"
#include "icl/attention_maps.h"
#include "icl/parameters.h"
#include "icl/task.h"
#include "icl/train_flags.h"  // read_run_settings
#include "icl/trainer.h"

namespace bb {

namespace fs = std::filesystem;

InfoLines describe_icl(const fs::path& dir) {
  const icl::Config c = icl::read_model_config(dir);
  const icl::Layout layout(c);
  InfoLines out = {
      info_line("attention", attention_function_name(c.attention)),
      info_line("shape", fmt::format("{} layers, {} heads, hidden {}, ffn {}, {} input dims, {} "
                                     "positions, arch {}", c.layers, c.heads, c.hidden, c.ffn(),
                                     c.dims, c.positions, icl::arch_name(c.arch))),
      info_line("parameters", std::to_string(layout.total))};
  const std::vector<int64_t> steps = checkpoint_steps(dir);
  if (const auto last = latest_checkpoint(dir)) out.push_back(info_line("checkpoint", last->string()));
  if (fs::exists(dir / "run.json")) {
    const icl::TrainSettings s = icl::read_run_settings(dir);
    // (an ICL run.json records no planned length: `icl train --steps` may extend a run)
    out.push_back(info_line(
        "training", fmt::format("{}task {}, seed {}",
                                steps.empty() ? "" : fmt::format("step {}, ", steps.back()),
                                icl::task_name(s.task), s.seed)));
  }
  // The attention function's trained values, per layer and head, from model.safetensors' raw
  // values through the function's maps (the same lines as a roberta model's).
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  const auto values = icl::read_head_values(dir, c);  // [slot][layer][head]
  for (int l = 0; l < c.layers && f.value_count > 0; ++l) {
    std::string line = fmt::format("layer {} ", l);
    for (int slot = 0; slot < f.value_count; ++slot) {
      line += fmt::format("{} {}:", slot ? "  " : "", f.values[size_t(slot)].name);
      for (double v : values[size_t(slot)][size_t(l)]) line += fmt::format(" {:.4f}", v);
    }
    out.push_back(line);
  }
  return out;
}

ModelAttention icl_attention(const fs::path& dir, const AttentionRequest& r) {
  return icl::read_icl_attention(dir, r.sigma, r.points, r.sequences, r.seed);
}

}  // namespace bb
