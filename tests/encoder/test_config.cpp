// Presets, labels, config.json round trip and validation.
#include <doctest/doctest.h>

#include "common/error.h"
#include "encoder/config.h"
#include "encoder/parameters.h"

using namespace bb;

TEST_CASE("presets follow BabyBERTa and the issue's small/tiny shapes") {
  const Config b = preset("babyberta");
  CHECK(b.vocab_size == 8192);
  CHECK(b.layers == 8);
  CHECK(b.heads == 8);
  CHECK(b.hidden == 256);
  CHECK(b.ffn == 1024);
  CHECK(b.max_positions == 130);
  CHECK(b.max_tokens() == 128);
  CHECK(preset("small").hidden == 128);
  CHECK(preset("tiny").layers == 2);
  CHECK_THROWS_WITH_AS(preset("huge"), doctest::Contains("unknown preset 'huge'"), Error);
}

TEST_CASE("labels name the scoring function and its non-default settings") {
  Config c = preset("tiny");
  CHECK(c.label() == "softmax");
  c.attention = AttentionFunction::ssa;
  CHECK(c.label() == "ssa");
  c.head_value(AttentionFunction::ssa, 1) = {2, true};
  CHECK(c.label() == "ssa(n=2 frozen)");
  c.attention = AttentionFunction::softmax_t;  // only the function's own settings show
  CHECK(c.label() == "softmax-t");
  c.head_value(AttentionFunction::softmax_t, 0) = {2, true};
  CHECK(c.label() == "softmax-t(τ=2 frozen)");
  c.attention = AttentionFunction::sa_softmax;
  CHECK(c.label() == "sa-softmax");
  for (AttentionFunction s : kAllAttentionFunctions)
    CHECK(parse_attention_function(attention_function_name(s)) == s);
}

TEST_CASE("config.json holds the settings of the function in use; old files keep loading") {
  Config c = preset("tiny");
  c.attention = AttentionFunction::softmax_t;
  c.head_value(AttentionFunction::softmax_t, 0).init = 0.5;
  const auto j = to_json(c);
  CHECK(j["attention_scoring"] == "softmax-t");
  CHECK(j["softmax_t_temperature_init"] == 0.5);
  CHECK(!j.contains("ssa_b_init"));
  CHECK(to_json(config_from_json(j, "x")) == j);
  auto bad = j;
  bad["softmax_t_temperature_init"] = 0.0;
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("cfg.json: softmax_t_temperature_init must be between"),
                       Error);
  // A softmax config.json written before the seven functions (with ssa_* fields) still loads.
  auto old = to_json(preset("tiny"));
  old["ssa_b_init"] = 1.0, old["ssa_n_init"] = 1.5, old["ssa_freeze_b"] = false;
  old["ssa_freeze_n"] = false;
  CHECK(config_from_json(old, "old").attention == AttentionFunction::softmax);
  for (AttentionFunction s : kAllAttentionFunctions) {
    Config k = preset("tiny");
    k.attention = s;
    CHECK(parameter_count(k) == ParamLayout(k).total);
  }
}

TEST_CASE("config.json round trip and validation") {
  Config c = preset("small");
  c.attention = AttentionFunction::ssa;
  c.head_value(AttentionFunction::ssa, 0).init = 0.5;
  const auto j = to_json(c);
  CHECK(j["architectures"][0] == "RobertaForMaskedLM");
  CHECK(j["attention_scoring"] == "ssa");
  CHECK(j["ssa_b_init"] == 0.5);
  CHECK(to_json(config_from_json(j, "x")) == j);
  auto bad = j;
  bad["ssa_n_init"] = 1.0;
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("cfg.json: ssa_n_init must be > 1"), Error);
  bad = j;
  bad["attention_scoring"] = "sparsemax2";
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains(("unknown attention function 'sparsemax2' (expected one of " +
                                          attention_function_names() + ")")
                                             .c_str()),
                       Error);
  bad = j;
  bad["hidden_size"] = "big";
  CHECK_THROWS_WITH_AS(config_from_json(bad, "cfg.json"),
                       doctest::Contains("cfg.json: field \"hidden_size\" must be an integer, got \"big\""),
                       Error);
}

namespace {
// The message of config_from_json(preset small with `key` = `value`), "" when it loads.
std::string error_with(const char* key, const nlohmann::json& value) {
  auto j = to_json(preset("small"));
  if (value.is_discarded()) j.erase(key);
  else j[key] = value;
  try {
    config_from_json(j, "m/config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("config.json: wrong types are one-line errors naming the field") {
  using nlohmann::json;
  CHECK(error_with("layer_norm_eps", "small") == "m/config.json: field \"layer_norm_eps\" must be a number, got \"small\"");
  CHECK(error_with("ssa_freeze_n", 1) == "m/config.json: field \"ssa_freeze_n\" must be true or false, got 1");
  CHECK(error_with("attention_scoring", json::array()) == "m/config.json: field \"attention_scoring\" must be a string, got []");
  CHECK(error_with("num_hidden_layers", 2.5) == "m/config.json: field \"num_hidden_layers\" must be an integer, got 2.5");
  CHECK(error_with("vocab_size", 1e10) == "m/config.json: field \"vocab_size\" must be a 32-bit integer, got 10000000000.0");
  CHECK(error_with("tokenizer", 3) == "m/config.json: field \"tokenizer\" must be an object, got 3");
  CHECK(error_with("hidden_size", json(json::value_t::discarded)) == "m/config.json: missing field \"hidden_size\"");
  CHECK(error_with("hidden_size", 2.02e2).find("not divisible") != std::string::npos);  // 202
  CHECK(error_with("vocab_size", 1e4).empty());
}

TEST_CASE("config.json: every value is range-checked, so none can ask for a huge allocation") {
  CHECK(error_with("layer_norm_eps", -1) == "m/config.json: layer_norm_eps must be > 0 and < 0.1, got -1");
  CHECK(error_with("layer_norm_eps", 0.5).find("layer_norm_eps must be > 0 and < 0.1") != std::string::npos);
  CHECK(error_with("hidden_dropout_prob", 7) == "m/config.json: hidden_dropout_prob must be >= 0 and < 1, got 7");
  CHECK(error_with("attention_probs_dropout_prob", -0.1).find("attention_probs_dropout_prob must be >= 0") != std::string::npos);
  CHECK(error_with("initializer_range", 0).find("initializer_range must be > 0") != std::string::npos);
  CHECK(error_with("num_hidden_layers", 2147483647) == "m/config.json: num_hidden_layers must be between 1 and 1024, got 2147483647");
  CHECK(error_with("vocab_size", 2e9) == "m/config.json: vocab_size must be between 6 and 1000000, got 2000000000");
  CHECK(error_with("max_position_embeddings", 2e9).find("max_position_embeddings must be between 1 and 16384") != std::string::npos);
  CHECK(error_with("intermediate_size", 0).find("intermediate_size must be between 1 and") != std::string::npos);
  CHECK(error_with("hidden_size", 65536).find("parameters, more than the limit") != std::string::npos);
  CHECK(error_with("num_attention_heads", 0).find("num_attention_heads must be between 1 and 128") != std::string::npos);
  CHECK(error_with("ssa_b_init", 1e9).find("ssa_b_init must be > 0 and <= 1000") != std::string::npos);
  CHECK(error_with("mask_token_id", 8192) == "m/config.json: mask_token_id must be between 0 and 8191, got 8192");
  CHECK(error_with("eos_token_id", 1) == "m/config.json: pad_token_id and eos_token_id are both 1 (expected distinct ids)");
  CHECK(error_with("pad_token_id", 200).find("max_position_embeddings 130 too small") != std::string::npos);
}

TEST_CASE("parameter_count equals the parameter layout's total") {
  for (AttentionFunction scoring : {AttentionFunction::softmax, AttentionFunction::ssa})
    for (const char* name : {"babyberta", "small", "tiny"}) {
      Config c = preset(name);
      c.attention = scoring;
      CHECK(parameter_count(c) == ParamLayout(c).total);
    }
}
