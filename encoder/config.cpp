#include "encoder/config.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"

namespace bb {

using json = nlohmann::json;

Config preset(const std::string& name) {
  Config c;
  if (name == "babyberta") return c;
  if (name == "small") {
    c.layers = 4, c.heads = 4, c.hidden = 128, c.ffn = 512;
    return c;
  }
  if (name == "tiny") {
    c.layers = 2, c.heads = 2, c.hidden = 64, c.ffn = 256;
    return c;
  }
  fail("unknown preset '{}' (expected babyberta, small or tiny)", name);
}

Scoring parse_scoring(const std::string& s) {
  if (s == "softmax") return Scoring::softmax;
  if (s == "ssa") return Scoring::ssa;
  fail("unknown attention scoring '{}' (expected softmax or ssa)", s);
}

std::string scoring_name(Scoring s) { return s == Scoring::ssa ? "ssa" : "softmax"; }

std::string Config::label() const {
  if (scoring != Scoring::ssa) return scoring_name(scoring);
  std::vector<std::string> parts;
  const SsaSettings d;
  if (ssa.b_init != d.b_init || ssa.freeze_b)
    parts.push_back(fmt::format("b={:g}{}", ssa.b_init, ssa.freeze_b ? " frozen" : ""));
  if (ssa.n_init != d.n_init || ssa.freeze_n)
    parts.push_back(fmt::format("n={:g}{}", ssa.n_init, ssa.freeze_n ? " frozen" : ""));
  if (parts.empty()) return "ssa";
  return fmt::format("ssa({})", fmt::join(parts, ", "));
}

void Config::validate(const std::string& where) const {
  BB_CHECK(vocab_size > 5 && hidden > 0 && layers > 0 && heads > 0 && ffn > 0,
           "{}: vocab_size, hidden_size, layers, heads and intermediate_size must be positive",
           where);
  BB_CHECK(hidden % heads == 0, "{}: hidden_size {} is not divisible by num_attention_heads {}",
           where, hidden, heads);
  BB_CHECK(max_positions > pad_id + 1, "{}: max_position_embeddings {} too small", where,
           max_positions);
  BB_CHECK(ssa.b_init > 0, "{}: ssa_b_init must be > 0 (got {})", where, ssa.b_init);
  BB_CHECK(ssa.n_init > 1, "{}: ssa_n_init must be > 1 (got {})", where, ssa.n_init);
  for (int id : {mask_id, pad_id, unk_id, bos_id, eos_id})
    BB_CHECK(id >= 0 && id < vocab_size, "{}: special token id {} outside the vocabulary", where,
             id);
}

json to_json(const Config& c) {
  return json{
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
      {"attention_scoring", scoring_name(c.scoring)},
      {"ssa_b_init", c.ssa.b_init},
      {"ssa_n_init", c.ssa.n_init},
      {"ssa_freeze_b", c.ssa.freeze_b},
      {"ssa_freeze_n", c.ssa.freeze_n},
      {"tokenizer", c.tokenizer},
      {"babyberta_format_version", kFormatVersion},
  };
}

template <typename V>
static void read_key(const json& j, const char* key, V& out, const std::string& where) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<V>();
  } catch (const json::exception&) {
    fail("{}: key '{}' has the wrong type ({})", where, key, j.at(key).dump());
  }
}

Config config_from_json(const json& j, const std::string& where) {
  BB_CHECK(j.is_object(), "{}: expected a JSON object", where);
  for (const char* key : {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                          "intermediate_size", "max_position_embeddings"})
    BB_CHECK(j.contains(key), "{}: missing key '{}'", where, key);
  if (j.contains("hidden_act"))
    BB_CHECK(j["hidden_act"] == "gelu", "{}: hidden_act {} not supported (expected \"gelu\")",
             where, j["hidden_act"].dump());
  if (j.contains("type_vocab_size"))
    BB_CHECK(j["type_vocab_size"] == 1, "{}: type_vocab_size must be 1", where);
  Config c;
  read_key(j, "vocab_size", c.vocab_size, where);
  read_key(j, "hidden_size", c.hidden, where);
  read_key(j, "num_hidden_layers", c.layers, where);
  read_key(j, "num_attention_heads", c.heads, where);
  read_key(j, "intermediate_size", c.ffn, where);
  read_key(j, "max_position_embeddings", c.max_positions, where);
  read_key(j, "layer_norm_eps", c.layer_norm_eps, where);
  read_key(j, "hidden_dropout_prob", c.hidden_dropout, where);
  read_key(j, "attention_probs_dropout_prob", c.attention_dropout, where);
  read_key(j, "initializer_range", c.init_std, where);
  read_key(j, "mask_token_id", c.mask_id, where);
  read_key(j, "pad_token_id", c.pad_id, where);
  read_key(j, "unk_token_id", c.unk_id, where);
  read_key(j, "bos_token_id", c.bos_id, where);
  read_key(j, "eos_token_id", c.eos_id, where);
  std::string scoring = "softmax";
  read_key(j, "attention_scoring", scoring, where);
  try {
    c.scoring = parse_scoring(scoring);
  } catch (const Error& e) {
    fail("{}: {}", where, e.what());
  }
  read_key(j, "ssa_b_init", c.ssa.b_init, where);
  read_key(j, "ssa_n_init", c.ssa.n_init, where);
  read_key(j, "ssa_freeze_b", c.ssa.freeze_b, where);
  read_key(j, "ssa_freeze_n", c.ssa.freeze_n, where);
  if (j.contains("tokenizer")) c.tokenizer = j["tokenizer"];
  int version = kFormatVersion;
  read_key(j, "babyberta_format_version", version, where);
  BB_CHECK(version <= kFormatVersion,
           "{}: babyberta_format_version {} is newer than this build understands ({})", where,
           version, kFormatVersion);
  c.validate(where);
  return c;
}

Config read_config(const std::filesystem::path& path) {
  json j;
  try {
    j = json::parse(read_file(path));
  } catch (const json::exception& e) {
    fail("{}: not valid JSON ({})", path.string(), e.what());
  }
  return config_from_json(j, path.string());
}

void write_config(const std::filesystem::path& path, const Config& c) {
  write_file_atomic(path, to_json(c).dump(2) + "\n");
}

}  // namespace bb
