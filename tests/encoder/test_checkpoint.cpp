// Checkpoints: round trip, HF names and effective SSA values, and one-line errors for truncated,
// corrupt and mismatched files.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/resource.h>

#include <cmath>
#include <fstream>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/safetensors.h"
#include "encoder/checkpoint.h"
#include "model_fixtures.h"
#include "safetensors_bytes.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;
using json = nlohmann::json;

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
  const Config c = test::micro_config(AttentionFunction::ssa);
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
  const Config c = test::micro_config(AttentionFunction::softmax);
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
  const Config c = test::micro_config(AttentionFunction::ssa);
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
  CHECK(error_of([&] { read_config(dir.path / "config.json"); }).find("missing field \"hidden_size\"") != std::string::npos);
  CHECK(error_of([&] { read_config(dir.path / "nope.json"); }).find("nope.json: cannot open") != std::string::npos);
}

TEST_CASE("checkpoint directories: latest step wins, state round-trips, partial temp dirs ignored") {
  test::TempDir dir("steps");
  const Config c = test::micro_config(AttentionFunction::ssa);
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

  const TrainerState read = read_trainer_state(*last);
  CHECK(read.step == 12);
  CHECK(read.adam_step == 7);
  CHECK(read.num_parameters == m.layout().total);
  CHECK(read.data == nlohmann::json{{"next_step", 12}});
  write_file_atomic(*last / "trainer_state.json", "{\"step\": \"12\"}");
  CHECK(error_of([&] { read_trainer_state(*last); }).find("trainer_state.json: \"step\" is a string, expected an integer") != std::string::npos);
}

TEST_CASE("safetensors: the data section's sha256 is recorded, verified, and optional") {
  test::TempDir dir("digest");
  Model<float> m(test::micro_config(AttentionFunction::softmax), {1, 8, 8, 1});
  m.init_weights(1);
  save_model(dir.path, m);
  const fs::path file = dir.path / "model.safetensors";
  const std::string good = read_file(file);
  auto parts = test::split_safetensors(good);
  CHECK(parts.header["__metadata__"][kDigestKey] == sha256_hex(parts.data));

  std::string flipped = good;
  flipped[good.size() - 3] ^= 0x10;  // one bit inside the last tensor's data
  write_file_atomic(file, flipped);
  CHECK(error_of([&] { load_model_weights(dir.path, m); }) ==
        file.string() + ": data section sha256 mismatch (file corrupted?)");

  parts.header["__metadata__"].erase(kDigestKey);  // as HF writes it: no digest, still loads
  write_file_atomic(file, test::safetensors_bytes(parts.header, parts.data));
  Model<float> m2(test::micro_config(AttentionFunction::softmax), {1, 8, 8, 1});
  CHECK_NOTHROW(load_model_weights(dir.path, m2));
  CHECK(m2.params == m.params);
}

TEST_CASE("safetensors: sizes, shapes, offsets and field types are bounded before use") {
  test::TempDir dir("bounds");
  const fs::path file = dir.path / "t.safetensors";
  const std::string data(16, '\0');
  auto error_for = [&](const json& header, const std::string& bytes) {
    write_file_atomic(file, test::safetensors_bytes(header, bytes));
    return error_of([&] { SafetensorsFile::read(file); });
  };
  auto one = [](json dtype, json shape, json offsets) {
    return json{{"a", {{"dtype", dtype}, {"shape", shape}, {"data_offsets", offsets}}}};
  };
  CHECK(error_for(one("F32", {2, 2}, {0, 16}), data).empty());
  CHECK(error_for(one("F32", {-2, -2}, {0, 16}), data).find("tensor a: field \"shape\" must hold non-negative integers") != std::string::npos);
  CHECK(error_for(one("F32", {uint64_t(1) << 62, 8}, {0, 16}), data).find("too many elements") != std::string::npos);
  CHECK(error_for(one("F32", {2, 2}, {0, 17}), data).find("outside the 16 data bytes") != std::string::npos);
  CHECK(error_for(one("F32", {2, 2}, {-1, 16}), data).find("field \"data_offsets\" must be [begin, end]") != std::string::npos);
  CHECK(error_for(one(5, {2, 2}, {0, 16}), data).find("tensor a: field \"dtype\" must be a string, got 5") != std::string::npos);
  CHECK(error_for(one("F32", "big", {0, 16}), data).find("tensor a: field \"shape\" must be an array") != std::string::npos);
  CHECK(error_for(json{{"a", 3}}, data).find("tensor a: entry must be an object") != std::string::npos);
  json two = one("F32", {2}, {0, 8});
  two["b"] = {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {4, 12}}};
  CHECK(error_for(two, data).find("tensor b: data_offsets [4, 12] overlap tensor a's [0, 8]") != std::string::npos);
  two["b"]["data_offsets"] = {0, 8};  // two names for one byte range
  CHECK(error_for(two, data).find("overlap") != std::string::npos);
  two["b"]["data_offsets"] = {8, 16};
  CHECK(error_for(two, data).empty());

  std::string huge(8, '\xff');  // header length 2^64 - 1
  write_file_atomic(file, huge + "{}");
  CHECK(error_of([&] { SafetensorsFile::read(file); }).find("exceeds file size") != std::string::npos);
  write_file_atomic(file, "");
  CHECK(error_of([&] { SafetensorsFile::read(file); }).find("truncated") != std::string::npos);
  CHECK(error_of([&] { SafetensorsFile::read(dir.path); }) ==
        dir.path.string() + ": is a directory, expected a file");
  if (fs::exists("/dev/zero"))
    CHECK(error_of([&] { SafetensorsFile::read("/dev/zero"); }).find("/dev/zero: not a regular file") != std::string::npos);
}

TEST_CASE("model directories: missing, without config.json, or with too small a weights file") {
  test::TempDir dir("modeldir");
  CHECK(error_of([&] { read_model_config(dir.path / "nope"); }) ==
        (dir.path / "nope").string() + ": no such model directory");
  CHECK(error_of([&] { read_model_config(dir.path); }).find("not a model directory (no config.json)") != std::string::npos);
  Model<float> m(test::micro_config(AttentionFunction::softmax), {1, 8, 8, 1});
  m.init_weights(1);
  save_model(dir.path, m);
  CHECK(read_model_config(dir.path).hidden == 8);
  Config big = test::micro_config(AttentionFunction::softmax);
  big.layers = 1000;
  write_config(dir.path / "config.json", big);
  CHECK(error_of([&] { read_model_config(dir.path); }).find("but " + (dir.path / "model.safetensors").string() + " has only") != std::string::npos);
}

TEST_CASE("failed writes leave no temporaries; stale ones of crashed runs are removed") {
  test::TempDir dir("temps");
  fs::create_directories(dir.path / "target" / "inside");  // rename onto a non-empty dir fails
  CHECK(error_of([&] { write_file_atomic(dir.path / "target", "x"); }).find("cannot rename") != std::string::npos);
  fs::create_directories(dir.path / "built.tmp.1" / "files");
  CHECK_THROWS_AS(replace_directory(dir.path / "built.tmp.1", dir.path / "no" / "dst"), Error);
  for (const auto& e : fs::directory_iterator(dir.path)) CHECK(!is_temporary_name(e.path().filename().string()));

  const std::string dead = ".tmp.99999999", mine = ".tmp." + std::to_string(::getpid());
  write_file_atomic(dir.path / ("model.safetensors" + dead), "torn");
  write_file_atomic(dir.path / ("metrics.jsonl" + mine), "in flight");
  write_file_atomic(dir.path / "notes.tmp.txt", "not ours");
  fs::create_directories(dir.path / (".step-3" + dead));
  fs::create_directories(dir.path / "step-2.old.99999999");  // step-2 itself never arrived
  fs::create_directories(dir.path / "step-4.old.99999999");
  fs::create_directories(dir.path / "step-4");
  CHECK(remove_stale_temporaries(dir.path) == 4);
  CHECK(!fs::exists(dir.path / ("model.safetensors" + dead)));
  CHECK(fs::exists(dir.path / ("metrics.jsonl" + mine)));
  CHECK(fs::exists(dir.path / "notes.tmp.txt"));
  CHECK(!fs::exists(dir.path / (".step-3" + dead)));
  CHECK(fs::is_directory(dir.path / "step-2"));
  CHECK(!fs::exists(dir.path / "step-4.old.99999999"));
  CHECK(remove_stale_temporaries(dir.path / "missing") == 0);
}

TEST_CASE("a checkpoint that fails mid-write (disk full) leaves no temporaries behind") {
  test::TempDir dir("diskfull");
  const Config c = test::micro_config(AttentionFunction::softmax);
  Model<float> m(c, {1, 8, 8, 1});
  m.init_weights(1);
  AdamW opt(m.layout(), c, OptimConfig{});
  write_file_atomic(dir.path / "tokenizer.model", "spm");
  save_checkpoint(dir.path, m, opt, {1, 2, {}});
  CHECK(read_file(dir.path / "checkpoints" / "step-1" / "tokenizer.model") == "spm");
  write_file_atomic(dir.path / "checkpoints" / "model.safetensors.tmp.99999999", "crashed");

  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit small = old;
  small.rlim_cur = 2000;  // bytes per file: state.safetensors cannot be written
  ::setrlimit(RLIMIT_FSIZE, &small);
  const std::string e = error_of([&] { save_checkpoint(dir.path, m, opt, {2, 2, {}}); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);
  CHECK(e.find("write failed") != std::string::npos);
  for (const fs::path& d : {dir.path, dir.path / "checkpoints"})
    for (const auto& f : fs::directory_iterator(d)) CHECK(!is_temporary_name(f.path().filename().string()));
  CHECK(!fs::exists(dir.path / "checkpoints" / "step-2"));
  CHECK(latest_checkpoint(dir.path)->filename() == "step-1");
}

TEST_CASE("checkpoint retention: the last K, the probed ones and the decay's start stay") {
  const std::vector<int64_t> steps = {100, 200, 300, 400, 500, 600, 700};
  CHECK(checkpoints_to_prune(steps, {.last = 3, .every = 0, .also = {}}) ==
        std::vector<int64_t>{100, 200, 300, 400});
  CHECK(checkpoints_to_prune(steps, {.last = 3, .every = 200, .also = {300}}) ==
        std::vector<int64_t>{100});
  CHECK(checkpoints_to_prune(steps, {.last = 0, .every = 0, .also = {}}).empty());  // all
  CHECK(checkpoints_to_prune(steps, {.last = 10, .every = 0, .also = {}}).empty());
  CHECK(checkpoints_to_prune({}, {.last = 1, .every = 0, .also = {}}).empty());

  test::TempDir dir("prune");
  for (const int64_t s : steps) fs::create_directories(dir.path / "checkpoints" / ("step-" + std::to_string(s)));
  fs::create_directories(dir.path / "checkpoints" / "notes");  // not a checkpoint: left alone
  CHECK(prune_checkpoints(dir.path, {.last = 2, .every = 0, .also = {100}}) ==
        std::vector<int64_t>{200, 300, 400, 500});
  CHECK(checkpoint_steps(dir.path) == std::vector<int64_t>{100, 600, 700});
  CHECK(fs::exists(dir.path / "checkpoints" / "notes"));
  int entries = 0;  // no temporaries left behind
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path / "checkpoints")) ++entries;
  CHECK(entries == 4);
}
