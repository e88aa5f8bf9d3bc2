// Model configuration of the text models: HF RobertaConfig fields (kind roberta, the masked LM) or
// GPT2Config's (kind gpt2, the causal LM) plus the attention function and its settings. Presets
// by size, the same for both kinds: babyberta (the paper's), small and tiny (tests, demos); gpt2
// also decoder-114m (the SSA paper's decoder size, for a GPU).
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/attention_function.h"
#include "models/kind_id.h"

namespace bb {

struct Config {
  ModelKind kind = ModelKind::roberta;  // roberta or gpt2 (config.json's model_type)
  int vocab_size = 8192;
  int hidden = 256;
  int layers = 8;
  int heads = 8;
  int ffn = 1024;
  int max_positions = 130;  // roberta: 128 tokens (position ids start at pad_id + 1); gpt2: 128
  double layer_norm_eps = 1e-5;
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  double init_std = 0.02;  // truncated normal at +-2 std
  int mask_id = 0, pad_id = 1, unk_id = 2, bos_id = 3, eos_id = 4;
  AttentionFunction attention = AttentionFunction::softmax;  // config.json: attention_scoring
  // Every function's trainable values' initial values and freeze flags (config.json: the keys of
  // the table, written for the function in use).
  HeadValueSettings head_values = default_head_value_settings();
  nlohmann::json tokenizer = nlohmann::json::object();  // normalisation settings (tokenizer/)

  // The position id of a sequence's first token (roberta: pad_id + 1, gpt2: 0) and the longest
  // sequence the positions allow.
  int first_position() const;
  int max_tokens() const { return max_positions - first_position(); }
  // Trainable value `slot` of the attention function (backend/attention_function.h,
  // head_value_count): its initial (effective) value and whether it stays fixed.
  double head_value_init(int slot) const { return head_value(attention, slot).init; }
  bool head_value_frozen(int slot) const { return head_value(attention, slot).freeze; }
  HeadValueSetting& head_value(AttentionFunction f, int slot) {
    return head_values[size_t(f)][size_t(slot)];
  }
  const HeadValueSetting& head_value(AttentionFunction f, int slot) const {
    return head_values[size_t(f)][size_t(slot)];
  }
  // "softmax", "ssa", "ssa(n=2 frozen)", "softmax-t(τ=2 frozen)", "sparsemax", ...: the function,
  // and its settings where they differ from the defaults.
  std::string label() const;
  // Every size within the bounds below, hidden divisible by heads, layer_norm_eps in (0, 0.1),
  // dropouts in [0, 1), initializer_range in (0, 1], every trainable value's initial value within
  // its table bounds (backend/attention_function.h), the five special ids distinct and inside the
  // vocabulary; else a one-line error
  // "<where>: <field> must be ..., got <value>".
  void validate(const std::string& where) const;
};

// Bounds on a config (config.json, presets, train options). They are far above anything this
// toolkit trains (BabyBERTa: vocab 8,192, hidden 256, 8 layers, 130 positions, 8.5M parameters)
// and keep a corrupt or hostile config.json from asking for absurd allocations or loops.
inline constexpr int kMaxVocab = 1'000'000;
inline constexpr int kMaxHidden = 65'536;
inline constexpr int kMaxLayers = 1'024;
inline constexpr int kMaxFfn = 1'048'576;
inline constexpr int kMaxPositions = 16'384;  // dense attention: L^2 scores per head and sequence
inline constexpr int64_t kMaxParameters = 1'000'000'000;  // 4 GB of float32 weights

// The number of parameters of a model of `c` (ParamLayout(c).total), without building the layout.
// (gpt2: the LM head is tied and has no bias.)
int64_t parameter_count(const Config& c);

// A preset of `kind` (roberta or gpt2); an unknown name is a one-line error listing the kind's.
Config preset(const std::string& name, ModelKind kind = ModelKind::roberta);
std::vector<std::string> preset_names(ModelKind kind = ModelKind::roberta);

nlohmann::json to_json(const Config& c);
Config config_from_json(const nlohmann::json& j, const std::string& where);
Config read_config(const std::filesystem::path& path);
void write_config(const std::filesystem::path& path, const Config& c);

inline constexpr int kFormatVersion = 1;

}  // namespace bb
