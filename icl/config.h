// The in-context-learning (ICL) model: a causal GPT-2 (HF GPT2Model: pre-LN blocks, final
// LayerNorm, learned absolute positions, tanh GELU, no dropout) with a linear read-in of each
// token's value and a linear read-out of one number, as in omyokun/SSA `scratch/` (a fork of
// dtsip/in-context-learning), with a switchable attention function. Architectures:
//   full                     x += attn(ln_1(x)); x += mlp(ln_2(x))          (GPT-2's block)
//   attention-only           x = attn(x)        (no MLP, no LayerNorm, no residual)
//   attention-only-residual  x += attn(x)       (no MLP, no LayerNorm)
// Every architecture ends with GPT-2's final LayerNorm ln_f before the read-out.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "backend/attention_function.h"

namespace bb::icl {

enum class Arch { full, attention_only, attention_only_residual };
std::string arch_name(Arch a);
Arch parse_arch(const std::string& s);  // one-line error listing the names
std::vector<std::string> arch_names();

struct Config {
  int layers = 3, heads = 2, hidden = 64;
  int positions = 512;  // learned positions (tokens): the authors' n_positions 2 x 256
  int dims = 1;         // values per token (x's dimension; y tokens are (y, 0, ..., 0))
  Arch arch = Arch::full;
  double layer_norm_eps = 1e-5;
  double init_std = 0.02;  // GPT-2: N(0, 0.02); residual projections / sqrt(2 layers)
  AttentionFunction attention = AttentionFunction::softmax;
  HeadValueSettings head_values = default_head_value_settings();

  int ffn() const { return 4 * hidden; }  // GPT-2's n_inner default
  bool has_mlp() const { return arch == Arch::full; }
  bool residual() const { return arch != Arch::attention_only; }
  double head_value_init(int slot) const {
    return head_values[size_t(attention)][size_t(slot)].init;
  }
  bool head_value_frozen(int slot) const {
    return head_values[size_t(attention)][size_t(slot)].freeze;
  }
  // "icl softmax full 3x2x64" style label for reports.
  std::string label() const;
  // Sizes within bounds, hidden divisible by heads, head size <= 128, positions <= 1024; else a
  // one-line error "<where>: <field> must be ..., got ...".
  void validate(const std::string& where) const;
};

// icl-tiny 3 layers/2 heads/64, icl-small 6/4/128, icl-standard 12/8/256 (the authors'
// `standard`).
Config preset(const std::string& name);
std::vector<std::string> preset_names();

nlohmann::json to_json(const Config& c);
Config config_from_json(const nlohmann::json& j, const std::string& where);
Config read_config(const std::filesystem::path& path);  // errors name the file

}  // namespace bb::icl
