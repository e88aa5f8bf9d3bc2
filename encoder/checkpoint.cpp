#include "encoder/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "common/safetensors.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const std::set<std::string> kIgnorable = {"lm_head.decoder.weight", "lm_head.decoder.bias",
                                          "roberta.embeddings.position_ids",
                                          "roberta.embeddings.token_type_ids", "lm_head.weight"};

// HF GPT-2's buffers (the causal mask, older versions' masked_bias) saved beside the weights.
bool ignorable(const std::string& name) {
  if (kIgnorable.count(name)) return true;
  for (std::string_view buffer : {".attn.bias", ".attn.masked_bias"})
    if (name.starts_with("transformer.h.") && name.ends_with(buffer)) return true;
  return false;
}

// (rows, cols) -> (cols, rows): a Conv1D weight between the buffer's layout and HF's.
void transpose(const float* in, float* out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

void create_directory_or_fail(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  BB_CHECK(!ec, "{}: cannot create directory ({})", dir.string(), ec.message());
}

void write_model_files(const fs::path& dir, const Model<float>& model) {
  const ParamLayout& layout = model.layout();
  // Raw trainable scoring values become effective: b = e^beta, n = 1 + e^nu, tau = e^theta.
  // gpt2's Conv1D weights are saved transposed, [in, out], as HF's GPT2 holds them.
  std::vector<float> effective(model.params.begin(), model.params.end());
  std::vector<TensorRef> refs;
  for (const ParamTensor& t : layout.tensors) {
    float* p = effective.data() + t.offset;
    for (int64_t i = 0; i < t.size && is_head_value(t.kind); ++i)
      p[i] = float(effective_value(t.kind, p[i]));
    if (t.conv1d) transpose(model.params.data() + t.offset, p, t.shape[0], t.shape[1]);
    refs.push_back({t.saved_name, t.saved_shape(), p});
  }
  write_safetensors(dir / "model.safetensors", refs);
  write_config(dir / "config.json", model.config());
}

}  // namespace

void save_model(const fs::path& dir, const Model<float>& model) {
  create_directory_or_fail(dir);
  write_model_files(dir, model);
}

void load_model_weights(const fs::path& dir, Model<float>& model) {
  const auto file = SafetensorsFile::read(dir / "model.safetensors");
  const ParamLayout& layout = model.layout();
  std::set<std::string> expected;
  for (const ParamTensor& t : layout.tensors) {
    const std::string& name = t.saved_name;
    expected.insert(name);
    std::vector<float> data = file.expect(name, t.saved_shape()).to_f32();
    if (t.conv1d) {  // [in, out] on disk
      std::vector<float> rows(data.size());
      transpose(data.data(), rows.data(), t.shape[1], t.shape[0]);
      data.swap(rows);
    }
    float* p = model.params.data() + t.offset;
    for (int64_t i = 0; i < t.size; ++i) {
      const float x = data[i];
      BB_CHECK(std::isfinite(x), "{}: tensor {} holds a non-finite value at index {}",
               file.path.string(), name, i);
      if (is_head_value(t.kind)) {
        const double bound = effective_lower_bound(t.kind);
        const std::string_view symbol = attention_function_spec(model.config().attention)
                                            .values[size_t(head_value_slot(t.kind))]
                                            .ascii_name;
        BB_CHECK(x > bound, "{}: tensor {} holds {} = {} (expected > {})", file.path.string(),
                 name, symbol, x, bound);
        p[i] = float(raw_value(t.kind, x));
      } else {
        p[i] = x;
      }
    }
  }
  for (const auto& [name, t] : file.tensors)
    BB_CHECK(expected.count(name) || ignorable(name),
             "{}: unexpected tensor {} (does config.json match this model?)", file.path.string(),
             name);
  model.upload_params();
}

namespace {

// The files of a step directory, written into `tmp`; the run's tokenizer files are copied along,
// so that a step directory is a complete model directory (probe, score, info).
void write_step_files(const fs::path& tmp, const fs::path& run_dir, const Model<float>& model,
                      const AdamW& opt, const TrainerState& state) {
  write_model_files(tmp, model);
  const int64_t n = model.layout().total;
  const std::vector<float> m = opt.m.host(), v = opt.v.host();
  write_safetensors(tmp / "state.safetensors", {{"params", {n}, model.params.data()},
                                                {"adam_m", {n}, m.data()},
                                                {"adam_v", {n}, v.data()}});
  const json ts{{"step", state.step},
                {"seed", state.seed},
                {"adam_step", opt.step},
                {"num_parameters", n},
                {"data", state.data},
                {"babyberta_format_version", kFormatVersion}};
  write_file_atomic(tmp / "trainer_state.json", ts.dump(2) + "\n");
  for (const char* name : {"tokenizer.model", "tokenizer.json"})
    if (fs::is_regular_file(run_dir / name))
      write_file_atomic(tmp / name, read_file(run_dir / name));
}

}  // namespace

fs::path save_checkpoint(const fs::path& dir, const Model<float>& model, const AdamW& opt,
                         const TrainerState& state) {
  const fs::path step_dir = write_step_directory(
      dir, state.step, [&](const fs::path& tmp) { write_step_files(tmp, dir, model, opt, state); });
  write_model_files(dir, model);  // the top level always holds the latest model
  return step_dir;
}

Config read_model_config(const fs::path& dir) {
  std::error_code ec;
  BB_CHECK(fs::exists(dir, ec), "{}: no such model directory", dir.string());
  BB_CHECK(fs::is_directory(dir, ec), "{}: not a model directory (not a directory)", dir.string());
  BB_CHECK(fs::exists(dir / "config.json", ec), "{}: not a model directory (no config.json)",
           dir.string());
  const Config c = read_config(dir / "config.json");
  const fs::path weights = dir / "model.safetensors";
  const auto size = fs::file_size(weights, ec);
  const int64_t needed = 4 * parameter_count(c);  // float32, the smallest dtype we read
  BB_CHECK(ec || size >= uint64_t(needed),
           "{}: describes {} parameters ({} bytes as float32), but {} has only {} bytes",
           (dir / "config.json").string(), parameter_count(c), needed, weights.string(), size);
  return c;
}

TrainerState read_trainer_state(const fs::path& step_dir) {
  const fs::path path = step_dir / "trainer_state.json";
  const std::string where = path.string();
  const json ts = read_json_file(path);
  BB_CHECK(ts.is_object(), "{}: expected a JSON object", where);
  TrainerState out;
  out.step = json_integer(ts, "step", where);
  out.seed = json_unsigned(ts, "seed", where);
  out.adam_step = json_integer(ts, "adam_step", where);
  out.num_parameters = json_integer(ts, "num_parameters", where);
  if (ts.contains("data")) out.data = ts["data"];
  return out;
}

TrainerState load_checkpoint(const fs::path& step_dir, Model<float>& model, AdamW& opt) {
  const TrainerState ts = read_trainer_state(step_dir);
  const int64_t n = model.layout().total;
  BB_CHECK(ts.num_parameters == n, "{}: checkpoint has {} parameters, this model has {}",
           (step_dir / "trainer_state.json").string(), ts.num_parameters, n);
  const auto state = SafetensorsFile::read(step_dir / "state.safetensors");
  const auto params = state.expect("params", {n}).to_f32();
  const auto m = state.expect("adam_m", {n}).to_f32();
  const auto v = state.expect("adam_v", {n}).to_f32();
  for (int64_t i = 0; i < n; ++i)
    BB_CHECK(std::isfinite(params[i]) && std::isfinite(m[i]) && std::isfinite(v[i]),
             "{}: non-finite value at index {}", state.path.string(), i);
  model.params.assign(params.begin(), params.end());
  model.upload_params();
  opt.m.from_host(m.data(), size_t(n));
  opt.v.from_host(v.data(), size_t(n));
  opt.step = ts.adam_step;
  return ts;
}

}  // namespace bb
