// Checkpoints: round trip, HF names and effective SSA values, and one-line errors for truncated,
// corrupt and mismatched files.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "common/error.h"
#include "common/files.h"
#include "common/safetensors.h"
#include "encoder/checkpoint.h"
#include "model_fixtures.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

namespace {

std::vector<float> logits_of(Model<float>& m, const Batch& b) {
  m.forward(b, {false, 0, 0});
  return {m.logits(), m.logits() + int64_t(b.num_rows()) * m.config().vocab_size};
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("save -> load gives identical outputs; SSA stored as effective b and n") {
  test::TempDir dir("roundtrip");
  const Config c = test::micro_config(Scoring::ssa);
  const Batch batch = test::micro_batch();
  Model<float> a(c, test::capacity_for(batch, c.max_tokens()));
  a.init_weights(3);
  save_model(dir.path, a);
  const Config c2 = read_config(dir.path / "config.json");
  CHECK(to_json(c2) == to_json(c));
  Model<float> b(c2, test::capacity_for(batch, c.max_tokens()));
  load_model_weights(dir.path, b);
  CHECK(logits_of(a, batch) == logits_of(b, batch));

  const auto st = SafetensorsFile::read(dir.path / "model.safetensors");
  CHECK(st.metadata.at("format") == "pt");
  CHECK(st.tensors.count("lm_head.decoder.weight") == 0);
  CHECK(st.tensors.count("roberta.encoder.layer.1.attention.self.query.weight") == 1);
  const auto bvals = st.expect("roberta.encoder.layer.0.attention.self.ssa_b", {2}).to_f32();
  const auto nvals = st.expect("roberta.encoder.layer.0.attention.self.ssa_n", {2}).to_f32();
  CHECK(bvals[0] == doctest::Approx(0.8));
  CHECK(nvals[1] == doctest::Approx(1.7));
}

TEST_CASE("a tied decoder weight in the file is accepted; an unknown tensor is an error") {
  test::TempDir dir("tied");
  const Config c = test::micro_config(Scoring::softmax);
  Model<float> m(c, {1, 8, 8, 1});
  m.init_weights(1);
  save_model(dir.path, m);
  auto st = SafetensorsFile::read(dir.path / "model.safetensors");
  std::vector<TensorRef> refs;
  std::vector<std::vector<float>> keep;
  for (auto& [name, t] : st.tensors) {
    keep.push_back(t.to_f32());
    refs.push_back({name, t.shape, keep.back().data()});
  }
  const auto& wte = st.tensors.at("roberta.embeddings.word_embeddings.weight");
  keep.push_back(wte.to_f32());
  refs.push_back({"lm_head.decoder.weight", wte.shape, keep.back().data()});
  write_safetensors(dir.path / "model.safetensors", refs);
  Model<float> m2(c, {1, 8, 8, 1});
  CHECK_NOTHROW(load_model_weights(dir.path, m2));
  CHECK(m2.params == m.params);
  refs.push_back({"roberta.encoder.layer.9.extra", {1}, keep.back().data()});
  write_safetensors(dir.path / "model.safetensors", refs);
  CHECK(error_of([&] { load_model_weights(dir.path, m2); }).find("unexpected tensor roberta.encoder.layer.9.extra") != std::string::npos);
}

TEST_CASE("corrupt, truncated and mismatched checkpoints give one-line errors naming the file") {
  test::TempDir dir("corrupt");
  const Config c = test::micro_config(Scoring::ssa);
  Model<float> m(c, {1, 8, 8, 1});
  m.init_weights(1);
  save_model(dir.path, m);
  const fs::path file = dir.path / "model.safetensors";
  const std::string good = read_file(file);

  write_file_atomic(file, good.substr(0, good.size() - 100));
  std::string e = error_of([&] { load_model_weights(dir.path, m); });
  CHECK(e.find(file.string()) != std::string::npos);
  CHECK(e.find("truncated") != std::string::npos);
  CHECK(e.find('\n') == std::string::npos);

  write_file_atomic(file, good.substr(0, 5));
  CHECK(error_of([&] { load_model_weights(dir.path, m); }).find("truncated") != std::string::npos);

  std::string bad = good;
  bad[8] = '#';  // break the JSON header's opening brace
  write_file_atomic(file, bad);
  CHECK(error_of([&] { load_model_weights(dir.path, m); }).find("not valid JSON") != std::string::npos);

  write_file_atomic(file, good);
  Config other = c;
  other.hidden = 12, other.heads = 2;
  Model<float> wrong(other, {1, 8, 8, 1});
  e = error_of([&] { load_model_weights(dir.path, wrong); });
  CHECK(e.find("roberta.embeddings.word_embeddings.weight has shape [24, 8], expected [24, 12]") !=
        std::string::npos);

  // b <= 0 cannot be represented by b = exp(beta)
  auto st = SafetensorsFile::read(file);
  std::vector<TensorRef> refs;
  std::vector<std::vector<float>> keep;
  for (auto& [name, t] : st.tensors) {
    keep.push_back(t.to_f32());
    if (name == "roberta.encoder.layer.0.attention.self.ssa_b") keep.back()[0] = -1.f;
    refs.push_back({name, t.shape, keep.back().data()});
  }
  write_safetensors(file, refs);
  CHECK(error_of([&] { load_model_weights(dir.path, m); }).find("ssa_b holds b = -1 (expected > 0)") != std::string::npos);

  write_file_atomic(dir.path / "config.json", "{\"vocab_size\": 10,");
  CHECK(error_of([&] { read_config(dir.path / "config.json"); }).find("config.json: not valid JSON") != std::string::npos);
  write_file_atomic(dir.path / "config.json", "{\"vocab_size\": 10}");
  CHECK(error_of([&] { read_config(dir.path / "config.json"); }).find("missing key 'hidden_size'") != std::string::npos);
  CHECK(error_of([&] { read_config(dir.path / "nope.json"); }).find("nope.json: cannot open") != std::string::npos);
}

TEST_CASE("checkpoint directories: latest step wins, state round-trips, partial temp dirs ignored") {
  test::TempDir dir("steps");
  const Config c = test::micro_config(Scoring::ssa);
  Model<float> m(c, {1, 8, 8, 1});
  m.init_weights(1);
  OptimConfig o;
  AdamW opt(m.layout(), c, o);
  opt.m.data()[3] = 0.25f, opt.v.data()[4] = 0.5f, opt.step = 7;
  save_checkpoint(dir.path, m, opt, {5, 11, {{"next_step", 5}}});
  save_checkpoint(dir.path, m, opt, {12, 11, {{"next_step", 12}}});
  fs::create_directories(dir.path / "checkpoints" / ".step-20.tmp.1");  // a crash mid-write
  const auto last = latest_checkpoint(dir.path);
  REQUIRE(last);
  CHECK(last->filename() == "step-12");
  Model<float> m2(c, {1, 8, 8, 1});
  AdamW opt2(m2.layout(), c, o);
  const TrainerState s = load_checkpoint(*last, m2, opt2);
  CHECK(s.step == 12);
  CHECK(s.seed == 11);
  CHECK(m2.params == m.params);
  CHECK(opt2.m.host() == opt.m.host());
  CHECK(opt2.v.host() == opt.v.host());
  CHECK(opt2.step == 7);
  CHECK(fs::exists(dir.path / "model.safetensors"));

  Config bigger = c;
  bigger.layers = 3;
  Model<float> m3(bigger, {1, 8, 8, 1});
  AdamW opt3(m3.layout(), bigger, o);
  CHECK(error_of([&] { load_checkpoint(*last, m3, opt3); }).find("parameters, this model has") != std::string::npos);
}
