#include "encoder/config.h"

#include "encoder/config_keys.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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
  int layers, heads, hidden, ffn, positions;  // positions: gpt2's (roberta keeps its 130)
  bool roberta;                               // also a roberta preset
};
// babyberta: the paper's (Config's defaults); small and tiny: demos and tests, each the same size
// for both kinds. decoder-114m (gpt2 only): the SSA paper's decoder size with our 8,192-piece
// vocabulary: GPT-2 small's width (768, 12 heads, FFN 3072, 1024 positions) with 15 layers,
// 113.4M parameters (GPT-2 small's 12 layers give 92.4M at this vocabulary).
constexpr PresetShape kPresets[] = {{"babyberta", 8, 8, 256, 1024, 128, true},
                                    {"small", 4, 4, 128, 512, 128, true},
                                    {"tiny", 2, 2, 64, 256, 128, true},
                                    {"decoder-114m", 15, 12, 768, 3072, 1024, false}};

}  // namespace

const ConfigKeys& config_keys(ModelKind kind) {
  switch (kind) {
    case ModelKind::roberta: return kRobertaKeys;
    case ModelKind::gpt2: return kGpt2Keys;
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: the {} kind has no text-model config", int(kind));
}

ModelKind parse_text_kind(std::string_view name, std::string_view flag) {
  for (const ConfigKeys* k : {&kRobertaKeys, &kGpt2Keys})
    if (name == k->model_type) return k->kind;
  throw UsageError(fmt::format("{}: unknown kind '{}' (expected roberta or gpt2)", flag, name));
}

int Config::first_position() const {
  switch (kind) {
    case ModelKind::roberta: return pad_id + 1;  // RoBERTa's position ids start after the pad
    case ModelKind::gpt2: return 0;
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: the {} kind has no text-model config", int(kind));
}

std::vector<std::string> preset_names(ModelKind kind) {
  std::vector<std::string> names;
  for (const PresetShape& p : kPresets)
    if (p.roberta || kind == ModelKind::gpt2) names.push_back(p.name);
  return names;
}

Config preset(const std::string& name, ModelKind kind) {
  const ConfigKeys& keys = config_keys(kind);
  for (const PresetShape& p : kPresets)
    if (name == p.name && (p.roberta || kind == ModelKind::gpt2)) {
      Config c;
      c.kind = kind;
      c.layers = p.layers, c.heads = p.heads, c.hidden = p.hidden, c.ffn = p.ffn;
      if (kind == ModelKind::gpt2) c.max_positions = p.positions;
      return c;
    }
  fail("unknown preset '{}' for {} (expected {})", name, keys.model_type,
       fmt::join(preset_names(kind), ", "));
}

std::string Config::label() const { return attention_variant_label(attention, head_values); }

int64_t parameter_count(const Config& c) {
  const int64_t V = c.vocab_size, C = c.hidden, F = c.ffn, P = c.max_positions, H = c.heads;
  const int64_t per_layer = 4 * C * C + 4 * C    // q, k, v, output projections
                            + 2 * F * C + F + C  // feed-forward
                            + 4 * C              // two LayerNorms
                            + head_value_count(c.attention) * H;
  if (c.kind == ModelKind::gpt2)  // wte, wpe; layers; ln_f (the LM head is wte, no bias)
    return (V + P) * C + int64_t(c.layers) * per_layer + 2 * C;
  return (V + P + 1) * C + 2 * C               // embeddings + LayerNorm
         + int64_t(c.layers) * per_layer + C * C + 3 * C + V;  // layers, LM head
}

// The bounds (config.h) come first, so that the products below cannot overflow.
void Config::validate(const std::string& where) const {
  auto in = [&](std::string_view key, int v, int lo, int hi) {
    BB_CHECK(v >= lo && v <= hi, "{}: {} must be between {} and {}, got {}", where, key, lo, hi,
             v);
  };
  const ConfigKeys& k = config_keys(kind);
  in("vocab_size", vocab_size, 6, kMaxVocab);
  in(k.hidden, hidden, 1, kMaxHidden);
  in(k.layers, layers, 1, kMaxLayers);
  in(k.heads, heads, 1, hidden);
  in(k.ffn, ffn, 1, kMaxFfn);
  in(k.positions, max_positions, 1, kMaxPositions);
  BB_CHECK(hidden % heads == 0, "{}: {} {} is not divisible by {} {}", where, k.hidden, hidden,
           k.heads, heads);
  BB_CHECK(parameter_count(*this) <= kMaxParameters,
           "{}: {} parameters, more than the limit of {}", where, parameter_count(*this),
           kMaxParameters);
  BB_CHECK(layer_norm_eps > 0 && layer_norm_eps < 0.1, "{}: {} must be > 0 and < 0.1, got {}",
           where, k.layer_norm_eps, layer_norm_eps);
  for (auto [key, p] : {std::pair{k.hidden_dropout, hidden_dropout},
                        std::pair{k.attention_dropout, attention_dropout}})
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
  BB_CHECK(max_tokens() >= 2, "{}: {} {} too small (position ids start at {}{})", where,
           k.positions, max_positions, first_position(),
           kind == ModelKind::roberta ? " = pad_token_id + 1" : "");
}

json to_json(const Config& c) {
  const ConfigKeys& k = config_keys(c.kind);
  json j{
      {"architectures", {k.architecture}},
      {"model_type", k.model_type},
      {"vocab_size", c.vocab_size},
      {k.hidden, c.hidden},
      {k.layers, c.layers},
      {k.heads, c.heads},
      {k.ffn, c.ffn},
      {k.activation_key, k.activation},
      {k.positions, c.max_positions},
      {k.layer_norm_eps, c.layer_norm_eps},
      {k.hidden_dropout, c.hidden_dropout},
      {k.attention_dropout, c.attention_dropout},
      {"initializer_range", c.init_std},
      {"mask_token_id", c.mask_id},
      {"pad_token_id", c.pad_id},
      {"unk_token_id", c.unk_id},
      {"bos_token_id", c.bos_id},
      {"eos_token_id", c.eos_id},
      {"attention_scoring", attention_function_name(c.attention)},
      {"tokenizer", c.tokenizer},
      {"babyberta_format_version", kFormatVersion},
  };
  if (c.kind == ModelKind::roberta) {
    j["type_vocab_size"] = 1;
    j["position_embedding_type"] = "absolute";
  } else {  // GPT2Config's: the head tied to wte, scores scaled by 1/sqrt(head size)
    j[k.embedding_dropout] = c.hidden_dropout;
    j["tie_word_embeddings"] = true;
    j["scale_attn_weights"] = true;
  }
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
  bool has(std::string_view key) const { return j_.contains(key); }
  // An integer in the 32-bit range; 2e3 (a float with an integral value) is accepted too.
  void get(std::string_view key, int& out) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    const double d = v.is_number() ? v.get<double>() : 0.5;
    BB_CHECK(d == std::floor(d), "{}: field \"{}\" must be an integer, got {}", where_, key,
             v.dump());
    BB_CHECK(d >= INT32_MIN && d <= INT32_MAX,
             "{}: field \"{}\" must be a 32-bit integer, got {}", where_, key, v.dump());
    out = int(d);
  }
  void get(std::string_view key, double& out) const {
    if (!has(key)) return;
    BB_CHECK(j_.at(key).is_number(), "{}: field \"{}\" must be a number, got {}", where_, key,
             j_.at(key).dump());
    out = j_.at(key).get<double>();
  }
  void get(std::string_view key, bool& out) const {
    if (!has(key)) return;
    BB_CHECK(j_.at(key).is_boolean(), "{}: field \"{}\" must be true or false, got {}", where_,
             key, j_.at(key).dump());
    out = j_.at(key).get<bool>();
  }
  void get(std::string_view key, std::string& out) const {
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
  Config c;  // roberta unless model_type names another text kind (the kind table checks it)
  if (j.contains("model_type"))
    for (const ConfigKeys* k : {&kRobertaKeys, &kGpt2Keys})
      if (j["model_type"] == k->model_type || j["model_type"] == k->export_model_type)
        c.kind = k->kind;
  const ConfigKeys& k = config_keys(c.kind);
  for (std::string_view key : {std::string_view("vocab_size"), k.hidden, k.layers, k.heads, k.ffn,
                               k.positions})
    BB_CHECK(j.contains(key), "{}: missing field \"{}\"", where, key);
  if (j.contains(k.activation_key))
    BB_CHECK(j[k.activation_key] == k.activation, "{}: {} {} not supported (expected \"{}\")",
             where, k.activation_key, j[k.activation_key].dump(), k.activation);
  if (j.contains("type_vocab_size"))
    BB_CHECK(j["type_vocab_size"] == 1, "{}: type_vocab_size must be 1", where);
  const Fields f(j, where);
  f.get("vocab_size", c.vocab_size);
  f.get(k.hidden, c.hidden);
  f.get(k.layers, c.layers);
  f.get(k.heads, c.heads);
  f.get(k.ffn, c.ffn);
  f.get(k.positions, c.max_positions);
  f.get(k.layer_norm_eps, c.layer_norm_eps);
  f.get(k.hidden_dropout, c.hidden_dropout);
  f.get(k.attention_dropout, c.attention_dropout);
  if (!k.embedding_dropout.empty() && j.contains(k.embedding_dropout)) {
    double embedding = c.hidden_dropout;
    f.get(k.embedding_dropout, embedding);
    BB_CHECK(embedding == c.hidden_dropout,
             "{}: {} {} differs from {} {} (this toolkit uses one rate for both)", where,
             k.embedding_dropout, embedding, k.hidden_dropout, c.hidden_dropout);
  }
  if (c.kind == ModelKind::gpt2) {
    if (j.contains("tie_word_embeddings"))
      BB_CHECK(j["tie_word_embeddings"] == true,
               "{}: tie_word_embeddings must be true (the LM head is the token embeddings)", where);
    if (j.contains("scale_attn_weights"))
      BB_CHECK(j["scale_attn_weights"] == true, "{}: scale_attn_weights must be true", where);
  }
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
