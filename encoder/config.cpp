#include "encoder/config.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"

namespace bb {

using json = nlohmann::json;

namespace {

struct PresetShape {
  const char* name;
  int layers, heads, hidden, ffn;
};
// babyberta: the paper's (Config's defaults); small and tiny: demos and tests.
constexpr PresetShape kPresets[] = {
    {"babyberta", 8, 8, 256, 1024}, {"small", 4, 4, 128, 512}, {"tiny", 2, 2, 64, 256}};

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const PresetShape& p : kPresets) names.push_back(p.name);
  return names;
}

Config preset(const std::string& name) {
  for (const PresetShape& p : kPresets)
    if (name == p.name) {
      Config c;
      c.layers = p.layers, c.heads = p.heads, c.hidden = p.hidden, c.ffn = p.ffn;
      return c;
    }
  fail("unknown preset '{}' (expected babyberta, small or tiny)", name);
}

std::string Config::label() const {
  std::vector<std::string> parts;
  auto add = [&](std::string_view name, double value, double by_default, bool frozen) {
    if (value != by_default || frozen)
      parts.push_back(fmt::format("{}={:g}{}", name, value, frozen ? " frozen" : ""));
  };
  const AttentionFunctionSpec& f = attention_function_spec(attention);
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    add(v.name, head_value_init(slot), v.init, head_value_frozen(slot));
  }
  if (parts.empty()) return std::string(f.name);
  return fmt::format("{}({})", f.name, fmt::join(parts, ", "));
}

int64_t parameter_count(const Config& c) {
  const int64_t V = c.vocab_size, C = c.hidden, F = c.ffn, P = c.max_positions, H = c.heads;
  const int64_t per_layer = 4 * C * C + 4 * C    // q, k, v, output projections
                            + 2 * F * C + F + C  // feed-forward
                            + 4 * C              // two LayerNorms
                            + head_value_count(c.attention) * H;
  return (V + P + 1) * C + 2 * C               // embeddings + LayerNorm
         + int64_t(c.layers) * per_layer + C * C + 3 * C + V;  // layers, LM head
}

// The bounds (config.h) come first, so that the products below cannot overflow.
void Config::validate(const std::string& where) const {
  auto in = [&](const char* key, int v, int lo, int hi) {
    BB_CHECK(v >= lo && v <= hi, "{}: {} must be between {} and {}, got {}", where, key, lo, hi,
             v);
  };
  in("vocab_size", vocab_size, 6, kMaxVocab);
  in("hidden_size", hidden, 1, kMaxHidden);
  in("num_hidden_layers", layers, 1, kMaxLayers);
  in("num_attention_heads", heads, 1, hidden);
  in("intermediate_size", ffn, 1, kMaxFfn);
  in("max_position_embeddings", max_positions, 1, kMaxPositions);
  BB_CHECK(hidden % heads == 0, "{}: hidden_size {} is not divisible by num_attention_heads {}",
           where, hidden, heads);
  BB_CHECK(parameter_count(*this) <= kMaxParameters,
           "{}: {} parameters, more than the limit of {}", where, parameter_count(*this),
           kMaxParameters);
  BB_CHECK(layer_norm_eps > 0 && layer_norm_eps < 0.1,
           "{}: layer_norm_eps must be > 0 and < 0.1, got {}", where, layer_norm_eps);
  for (auto [key, p] : {std::pair{"hidden_dropout_prob", hidden_dropout},
                        std::pair{"attention_probs_dropout_prob", attention_dropout}})
    BB_CHECK(p >= 0 && p < 1, "{}: {} must be >= 0 and < 1, got {}", where, key, p);
  BB_CHECK(init_std > 0 && init_std <= 1, "{}: initializer_range must be > 0 and <= 1, got {}",
           where, init_std);
  validate_head_values(head_values, where);
  const std::pair<const char*, int> ids[] = {{"mask_token_id", mask_id}, {"pad_token_id", pad_id},
                                             {"unk_token_id", unk_id}, {"bos_token_id", bos_id},
                                             {"eos_token_id", eos_id}};
  for (size_t i = 0; i < std::size(ids); ++i) {
    in(ids[i].first, ids[i].second, 0, vocab_size - 1);
    for (size_t k = 0; k < i; ++k)
      BB_CHECK(ids[i].second != ids[k].second, "{}: {} and {} are both {} (expected distinct ids)",
               where, ids[k].first, ids[i].first, ids[i].second);
  }
  BB_CHECK(max_positions > pad_id + 1,
           "{}: max_position_embeddings {} too small (position ids start at pad_token_id + 1 = {})",
           where, max_positions, pad_id + 1);
}

json to_json(const Config& c) {
  json j{
      {"architectures", {"RobertaForMaskedLM"}},
      {"model_type", "roberta"},
      {"vocab_size", c.vocab_size},
      {"hidden_size", c.hidden},
      {"num_hidden_layers", c.layers},
      {"num_attention_heads", c.heads},
      {"intermediate_size", c.ffn},
      {"hidden_act", "gelu"},
      {"max_position_embeddings", c.max_positions},
      {"type_vocab_size", 1},
      {"layer_norm_eps", c.layer_norm_eps},
      {"hidden_dropout_prob", c.hidden_dropout},
      {"attention_probs_dropout_prob", c.attention_dropout},
      {"initializer_range", c.init_std},
      {"position_embedding_type", "absolute"},
      {"mask_token_id", c.mask_id},
      {"pad_token_id", c.pad_id},
      {"unk_token_id", c.unk_id},
      {"bos_token_id", c.bos_id},
      {"eos_token_id", c.eos_id},
      {"attention_scoring", attention_function_name(c.attention)},
      {"tokenizer", c.tokenizer},
      {"babyberta_format_version", kFormatVersion},
  };
  // The settings of the function in use only (older files hold ssa_* for every function; they
  // are still read).
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  for (int slot = 0; slot < f.value_count; ++slot) {
    const HeadValueSpec& v = f.values[size_t(slot)];
    j[std::string(v.config_init)] = c.head_value_init(slot);
    j[std::string(v.config_freeze)] = c.head_value_frozen(slot);
  }
  return j;
}

namespace {

// One config.json field, type-checked: a wrong type is "<where>: field "x" must be a <type>, got
// <json>" (no nlohmann text). Ranges are Config::validate()'s.
class Fields {
 public:
  Fields(const json& j, const std::string& where) : j_(j), where_(where) {}
  bool has(const char* key) const { return j_.contains(key); }
  // An integer in the 32-bit range; 2e3 (a float with an integral value) is accepted too.
  void get(const char* key, int& out) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    const double d = v.is_number() ? v.get<double>() : 0.5;
    BB_CHECK(d == std::floor(d), "{}: field \"{}\" must be an integer, got {}", where_, key,
             v.dump());
    BB_CHECK(d >= INT32_MIN && d <= INT32_MAX,
             "{}: field \"{}\" must be a 32-bit integer, got {}", where_, key, v.dump());
    out = int(d);
  }
  void get(const char* key, double& out) const {
    if (!has(key)) return;
    BB_CHECK(j_.at(key).is_number(), "{}: field \"{}\" must be a number, got {}", where_, key,
             j_.at(key).dump());
    out = j_.at(key).get<double>();
  }
  void get(const char* key, bool& out) const {
    if (!has(key)) return;
    BB_CHECK(j_.at(key).is_boolean(), "{}: field \"{}\" must be true or false, got {}", where_,
             key, j_.at(key).dump());
    out = j_.at(key).get<bool>();
  }
  void get(const char* key, std::string& out) const {
    if (!has(key)) return;
    BB_CHECK(j_.at(key).is_string(), "{}: field \"{}\" must be a string, got {}", where_, key,
             j_.at(key).dump());
    out = j_.at(key).get<std::string>();
  }

 private:
  const json& j_;
  const std::string& where_;
};

}  // namespace

Config config_from_json(const json& j, const std::string& where) {
  BB_CHECK(j.is_object(), "{}: expected a JSON object", where);
  for (const char* key : {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                          "intermediate_size", "max_position_embeddings"})
    BB_CHECK(j.contains(key), "{}: missing field \"{}\"", where, key);
  if (j.contains("hidden_act"))
    BB_CHECK(j["hidden_act"] == "gelu", "{}: hidden_act {} not supported (expected \"gelu\")",
             where, j["hidden_act"].dump());
  if (j.contains("type_vocab_size"))
    BB_CHECK(j["type_vocab_size"] == 1, "{}: type_vocab_size must be 1", where);
  const Fields f(j, where);
  Config c;
  f.get("vocab_size", c.vocab_size);
  f.get("hidden_size", c.hidden);
  f.get("num_hidden_layers", c.layers);
  f.get("num_attention_heads", c.heads);
  f.get("intermediate_size", c.ffn);
  f.get("max_position_embeddings", c.max_positions);
  f.get("layer_norm_eps", c.layer_norm_eps);
  f.get("hidden_dropout_prob", c.hidden_dropout);
  f.get("attention_probs_dropout_prob", c.attention_dropout);
  f.get("initializer_range", c.init_std);
  f.get("mask_token_id", c.mask_id);
  f.get("pad_token_id", c.pad_id);
  f.get("unk_token_id", c.unk_id);
  f.get("bos_token_id", c.bos_id);
  f.get("eos_token_id", c.eos_id);
  std::string function = attention_function_name(c.attention);  // absent: the default
  f.get("attention_scoring", function);
  try {
    c.attention = parse_attention_function(function);
  } catch (const Error& e) {
    fail("{}: {}", where, e.what());
  }
  for (const AttentionFunctionSpec& fn : kAttentionFunctionTable)
    for (int slot = 0; slot < fn.value_count; ++slot) {
      const HeadValueSpec& v = fn.values[size_t(slot)];
      f.get(std::string(v.config_init).c_str(), c.head_value(fn.function, slot).init);
      f.get(std::string(v.config_freeze).c_str(), c.head_value(fn.function, slot).freeze);
    }
  if (j.contains("tokenizer")) {
    BB_CHECK(j["tokenizer"].is_object(), "{}: field \"tokenizer\" must be an object, got {}",
             where, j["tokenizer"].dump());
    c.tokenizer = j["tokenizer"];
  }
  int version = kFormatVersion;
  f.get("babyberta_format_version", version);
  BB_CHECK(version <= kFormatVersion,
           "{}: babyberta_format_version {} is newer than this build understands ({})", where,
           version, kFormatVersion);
  c.validate(where);
  return c;
}

Config read_config(const std::filesystem::path& path) {
  return config_from_json(read_json_file(path), path.string());
}

void write_config(const std::filesystem::path& path, const Config& c) {
  write_file_atomic(path, to_json(c).dump(2) + "\n");
}

}  // namespace bb
