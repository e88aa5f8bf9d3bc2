// The causal LM (kind gpt2) on the text-model machinery: its config and presets, its layout in HF
// GPT-2's names, saving and loading (Conv1D weights transposed on disk), and the whole model's
// gradient against finite differences for every attention function, with dropout on.
#include <doctest/doctest.h>

#include "corpora/next_token_rows.h"
#include "common/safetensors.h"
#include "encoder/checkpoint.h"
#include "grad_check.h"
#include "model_fixtures.h"
#include "temp_dir.h"

using namespace bb;

namespace {

Config micro_gpt2(AttentionFunction f) {
  Config c = preset("tiny", ModelKind::gpt2);
  c.vocab_size = 24, c.hidden = 8, c.heads = 2, c.ffn = 12, c.layers = 2, c.max_positions = 9;
  c.attention = f;
  c.head_value(AttentionFunction::ssa, 0).init = 0.8;
  c.head_value(AttentionFunction::ssa, 1).init = 1.7;
  c.init_std = 0.4;
  return c;
}

// Three sequences of lengths 5, 3, 7 (incl. <s>, </s>), every next token scored.
Batch micro_causal_batch() {
  Batch b = test::micro_batch();
  for (int32_t& id : b.ids)
    if (id == 0) id = 17;  // no <mask> in causal text
  set_next_token_rows(b);
  return b;
}

}  // namespace

TEST_CASE("gpt2 presets: the encoder's sizes, 128 positions from 0; decoder-114m's count") {
  for (const std::string name : {"tiny", "small", "babyberta"}) {
    const Config g = preset(name, ModelKind::gpt2), r = preset(name);
    CHECK(g.kind == ModelKind::gpt2);
    CHECK((g.layers == r.layers && g.heads == r.heads && g.hidden == r.hidden && g.ffn == r.ffn));
    CHECK(g.max_tokens() == r.max_tokens());
    CHECK(g.first_position() == 0);
  }
  const Config big = preset("decoder-114m", ModelKind::gpt2);
  CHECK(parameter_count(big) == 113'397'504);
  CHECK(ParamLayout(big).total == parameter_count(big));
  CHECK_THROWS_WITH_AS(preset("decoder-114m"),
                       doctest::Contains("unknown preset 'decoder-114m' for roberta"), Error);
  for (AttentionFunction f : kAllAttentionFunctions)
    CHECK(ParamLayout(micro_gpt2(f)).total == parameter_count(micro_gpt2(f)));
}

TEST_CASE("gpt2 config.json: GPT2Config's fields, read back equal; wrong values named") {
  Config c = micro_gpt2(AttentionFunction::ssa);
  c.hidden_dropout = 0.1, c.attention_dropout = 0.05;
  const nlohmann::json j = to_json(c);
  CHECK(j["model_type"] == "gpt2");
  CHECK(j["architectures"][0] == "GPT2LMHeadModel");
  CHECK(j["n_embd"] == 8);
  CHECK(j["n_positions"] == 9);
  CHECK(j["activation_function"] == "gelu_new");
  CHECK(j["embd_pdrop"] == 0.1);
  CHECK(j["attn_pdrop"] == 0.05);
  CHECK(!j.contains("hidden_size"));
  const Config back = config_from_json(j, "config.json");
  CHECK(back.kind == ModelKind::gpt2);
  CHECK(to_json(back) == j);
  nlohmann::json bad = j;
  bad["embd_pdrop"] = 0.2;
  CHECK_THROWS_WITH_AS(config_from_json(bad, "x.json"),
                       doctest::Contains("embd_pdrop 0.2 differs from resid_pdrop 0.1"), Error);
  bad = j;
  bad["n_head"] = 3;
  CHECK_THROWS_WITH_AS(config_from_json(bad, "x.json"),
                       doctest::Contains("n_embd 8 is not divisible by n_head 3"), Error);
  bad = j;
  bad["activation_function"] = "relu";
  CHECK_THROWS_WITH_AS(config_from_json(bad, "x.json"),
                       doctest::Contains("activation_function \"relu\" not supported"), Error);
}

TEST_CASE("gpt2 layout: HF GPT-2's names, the function's values under attn., Conv1D on disk") {
  const ParamLayout layout(micro_gpt2(AttentionFunction::ssa));
  CHECK(layout.tensors.front().name == "transformer.wte.weight");
  CHECK(layout.tensors.back().name == "transformer.ln_f.bias");
  const ParamTensor& b = layout.at("transformer.h.1.attn.ssa_beta");
  CHECK(b.saved_name == "transformer.h.1.attn.ssa_b");
  CHECK(layout.at("transformer.h.0.attn.ssa_nu").saved_name == "transformer.h.0.attn.ssa_n");
  const ParamTensor& qkv = layout.at("transformer.h.0.attn.c_attn.weight");
  CHECK(qkv.shape == std::vector<int64_t>{24, 8});
  CHECK(qkv.saved_shape() == std::vector<int64_t>{8, 24});
  CHECK(layout.at("transformer.h.0.mlp.c_proj.weight").saved_shape() ==
        std::vector<int64_t>{12, 8});
  CHECK(layout.at("transformer.h.0.attn.c_proj.weight").init == blocks::Init::normal_residual);
  CHECK(layout.at("transformer.wpe.weight").kind == ParamKind::matrix);
  CHECK(layout.at("transformer.h.0.ln_1.bias").kind == ParamKind::bias);
}

TEST_CASE("gpt2 model files: saved in HF's layout and loaded back (weights bit for bit)") {
  const test::TempDir dir("gpt2-files");
  const Config c = micro_gpt2(AttentionFunction::ssa);
  const Batch batch = micro_causal_batch();
  Model<float> model(c, test::capacity_for(batch, c.max_tokens()));
  model.init_weights(3);
  save_model(dir.path, model);
  const auto file = SafetensorsFile::read(dir.path / "model.safetensors");
  CHECK(file.tensors.count("lm_head.weight") == 0);  // tied
  const auto& qkv = file.tensors.at("transformer.h.0.attn.c_attn.weight");
  CHECK(qkv.shape == std::vector<int64_t>{8, 24});
  // [in, out] on disk: element (i, o) is weight row o, column i
  const ParamTensor& t = model.layout().at("transformer.h.0.attn.c_attn.weight");
  CHECK(qkv.to_f32()[3 * 24 + 5] == model.params[size_t(t.offset + 5 * 8 + 3)]);
  CHECK(file.tensors.at("transformer.h.0.attn.ssa_b").to_f32()[0] == doctest::Approx(0.8));
  CHECK(read_config(dir.path / "config.json").kind == ModelKind::gpt2);
  Model<float> back(read_model_config(dir.path), test::capacity_for(batch, c.max_tokens()));
  load_model_weights(dir.path, back);
  // The function's values are saved effective (b = e^beta): back to raw within a rounding.
  for (const ParamTensor& p : model.layout().tensors)
    for (int64_t i = p.offset; i < p.offset + p.size; ++i) {
      CAPTURE(p.name);
      const float was = model.params[size_t(i)], now = back.params[size_t(i)];
      if (is_head_value(p.kind)) CHECK(now == doctest::Approx(was).epsilon(1e-6));
      else if (now != was) FAIL_CHECK("element " << i - p.offset << " differs");
    }
  CHECK(back.forward(batch, {false, 0, 0}) ==
        doctest::Approx(model.forward(batch, {false, 0, 0})).epsilon(1e-6));
}

TEST_CASE("gpt2: next-token rows, positions from 0, and a token sees only those before it") {
  const Config c = micro_gpt2(AttentionFunction::softmax);
  Batch batch = micro_causal_batch();
  CHECK(batch.num_rows() == 4 + 2 + 6);
  CHECK(batch.rows[0] == 0);
  CHECK(batch.labels[0] == batch.ids[1]);
  Model<double> model(c, test::capacity_for(batch, c.max_tokens()));
  model.init_weights(4);
  model.forward(batch, {false, 0, 0});
  std::vector<double> before;
  model.logits_to_host(before);
  batch.ids[14] = 5;  // the last token of sequence 3: no scored row (row 13 predicts it) sees it
  batch.ids[7] = 6;   // the last token of sequence 2
  model.forward(batch, {false, 0, 0});
  std::vector<double> after;
  model.logits_to_host(after);
  CHECK(before == after);
}

TEST_CASE("gpt2 whole-model gradient matches finite differences, every function, dropout on") {
  for (AttentionFunction f : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(f));
    Config c = micro_gpt2(f);
    c.hidden_dropout = 0.1, c.attention_dropout = 0.1;
    const Batch batch = micro_causal_batch();
    Model<double> model(c, test::capacity_for(batch, c.max_tokens()));
    test::check_whole_model_gradient(model, batch);
  }
}
