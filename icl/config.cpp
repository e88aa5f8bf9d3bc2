#include "icl/config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/enum_names.h"
#include "common/error.h"
#include "common/json_read.h"

namespace bb::icl {

using nlohmann::json;

namespace {
constexpr EnumName<Arch> kArchs[] = {
    {Arch::full, "full"},
    {Arch::attention_only, "attention-only"},
    {Arch::attention_only_residual, "attention-only-residual"}};

struct Preset {
  const char* name;
  int layers, heads, hidden;
};
constexpr Preset kPresets[] = {
    {"icl-tiny", 3, 2, 64}, {"icl-small", 6, 4, 128}, {"icl-standard", 12, 8, 256}};

constexpr int kMaxLayers = 64, kMaxHidden = 4096, kMaxPositions = 1024, kMaxDims = 1024;
}  // namespace

std::string arch_name(Arch a) { return enum_name(kArchs, a); }
std::vector<std::string> arch_names() { return enum_names(kArchs); }
Arch parse_arch(const std::string& s) { return parse_enum(kArchs, s, "architecture"); }

std::string Config::label() const {
  return fmt::format("{} {} {}x{}x{}", attention_function_name(attention), arch_name(arch), layers,
                     heads, hidden);
}

void Config::validate(const std::string& where) const {
  auto in = [&](const char* key, int v, int lo, int hi) {
    BB_CHECK(v >= lo && v <= hi, "{}: {} must be between {} and {}, got {}", where, key, lo, hi,
             v);
  };
  in("n_layer", layers, 1, kMaxLayers);
  in("n_embd", hidden, 1, kMaxHidden);
  in("n_head", heads, 1, hidden);
  in("n_positions", positions, 2, kMaxPositions);
  in("n_dims", dims, 1, kMaxDims);
  BB_CHECK(hidden % heads == 0, "{}: n_embd {} is not divisible by n_head {}", where, hidden,
           heads);
  BB_CHECK(hidden / heads <= 128, "{}: head size n_embd / n_head = {} exceeds 128", where,
           hidden / heads);
  BB_CHECK(layer_norm_eps > 0 && layer_norm_eps < 0.1,
           "{}: layer_norm_epsilon must be > 0 and < 0.1, got {}", where, layer_norm_eps);
  BB_CHECK(init_std > 0 && init_std <= 1, "{}: initializer_range must be > 0 and <= 1, got {}",
           where, init_std);
  validate_head_values(head_values, where);
}

Config preset(const std::string& name) {
  for (const Preset& p : kPresets)
    if (name == p.name) {
      Config c;
      c.layers = p.layers, c.heads = p.heads, c.hidden = p.hidden;
      return c;
    }
  fail("unknown preset '{}' (expected {})", name, fmt::join(preset_names(), ", "));
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const Preset& p : kPresets) out.emplace_back(p.name);
  return out;
}

json to_json(const Config& c) {
  json j{{"model_type", "babyberta_icl_gpt2"},
         {"n_layer", c.layers},
         {"n_head", c.heads},
         {"n_embd", c.hidden},
         {"n_inner", c.ffn()},
         {"n_positions", c.positions},
         {"n_dims", c.dims},
         {"arch", arch_name(c.arch)},
         {"activation_function", "gelu_new"},
         {"layer_norm_epsilon", c.layer_norm_eps},
         {"initializer_range", c.init_std},
         {"attention_scoring", attention_function_name(c.attention)}};
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    j[std::string(v.config_init)] = c.head_value_init(slot);
    j[std::string(v.config_freeze)] = c.head_value_frozen(slot);
  }
  return j;
}

Config config_from_json(const json& j, const std::string& where) {
  BB_CHECK(j.is_object(), "{}: expected a JSON object", where);
  BB_CHECK(json_string(j, "model_type", where) == "babyberta_icl_gpt2",
           "{}: model_type is '{}', expected 'babyberta_icl_gpt2' (an ICL model directory)",
           where, json_string(j, "model_type", where));
  auto integer = [&](const char* key) {
    const int64_t v = json_integer(j, key, where);
    BB_CHECK(v >= 0 && v <= 1'000'000, "{}: {} must be between 0 and 1000000, got {}", where,
             key, v);
    return int(v);
  };
  Config c;
  c.layers = integer("n_layer");
  c.heads = integer("n_head");
  c.hidden = integer("n_embd");
  c.positions = integer("n_positions");
  c.dims = integer("n_dims");
  c.arch = parse_arch(json_string(j, "arch", where));
  c.layer_norm_eps = json_number(j, "layer_norm_epsilon", where);
  c.init_std = json_number(j, "initializer_range", where);
  c.attention = parse_attention_function(json_string(j, "attention_scoring", where));
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    HeadValueSetting& s = c.head_values[size_t(c.attention)][size_t(slot)];
    s.init = json_number(j, std::string(v.config_init), where);
    const auto it = j.find(std::string(v.config_freeze));
    BB_CHECK(it != j.end() && it->is_boolean(), "{}: \"{}\" must be a boolean", where,
             v.config_freeze);
    s.freeze = it->get<bool>();
  }
  BB_CHECK(c.ffn() == integer("n_inner"), "{}: n_inner must be 4 x n_embd = {}, got {}", where,
           c.ffn(), integer("n_inner"));
  c.validate(where);
  return c;
}

Config read_config(const std::filesystem::path& path) {
  return config_from_json(read_json_file(path), path.string());
}

}  // namespace bb::icl
