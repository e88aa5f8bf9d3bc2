#include "icl/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "common/philox.h"
#include "common/safetensors.h"
#include "icl/train_flags.h"
#include "training/checkpoint_dir.h"
#include "training/run_record.h"

namespace bb::icl {

namespace fs = std::filesystem;
using nlohmann::json;

int Curriculum::points_at(int64_t step) const {
  const int64_t p = start + int64_t(inc) * (step / every);
  return int(std::min<int64_t>(p, end));
}

namespace {

constexpr uint64_t kTaskStream = 0x1C1DA7Aull;

json run_json(const Config& c, const TrainSettings& s) {
  return {{"kind", "icl"}, {"config", to_json(c)}, {"train", settings_json(s)}};
}

std::vector<TensorRef> named_tensors(const Layout& layout, const float* data) {
  std::vector<TensorRef> refs;
  for (const ParamTensor& t : layout.tensors) refs.push_back({t.name, t.shape, data + t.offset});
  return refs;
}

void write_model_files(const fs::path& dir, const Model<float>& model) {
  write_file_atomic(dir / "config.json", to_json(model.config()).dump(2) + "\n");
  write_safetensors(dir / "model.safetensors", named_tensors(model.layout(), model.params.data()));
}

}  // namespace

Trainer::Trainer(const Config& config, const TrainSettings& settings, const fs::path& out,
                 Device device)
    : cfg_(config), s_(settings), out_(out), model_(config, device), m_(device), v_(device),
      schedule_(device) {
  s_.validate();
  check_settings_for_model(s_, cfg_);
  model_.set_precision(parse_precision(s_.precision));  // bf16: checks the machine first
  m_.assign(size_t(model_.layout().total), 0.f);
  v_.assign(size_t(model_.layout().total), 0.f);
  schedule_.assign(3, 0.0);
  // Adam's spans of one learning-rate multiplier: the attention function's trainable values that
  // its row scales take --ssa-lr-mult, the rest 1 (one span when the multiplier is 1).
  const AttentionFunctionSpec& f = attention_function_spec(cfg_.attention);
  for (const ParamTensor& t : model_.layout().tensors) {
    const int slot = t.init == Init::head_value0 ? 0 : t.init == Init::head_value1 ? 1 : -1;
    const double mult = slot >= 0 && f.values[size_t(slot)].ssa_lr_mult ? s_.ssa_lr_mult : 1.0;
    if (!spans_.empty() && spans_.back().lr_mult == mult &&
        spans_.back().offset + spans_.back().size == t.offset)
      spans_.back().size += t.size;
    else
      spans_.push_back({t.offset, t.size, mult});
  }
  model_.init_weights(s_.seed);
  if (out_.empty()) return;
  fs::create_directories(out_);
  const json wanted = run_json(cfg_, s_);
  const fs::path run_file = out_ / "run.json";
  const std::optional<fs::path> latest = latest_checkpoint(out_);
  if (fs::exists(run_file)) {
    // "steps" (the planned total) is not a setting: the caller (runs/icl_train_run.cpp) checks
    // it against --steps and --extend-to; here it is brought up to date.
    nlohmann::ordered_json saved(read_json_file(run_file));
    const nlohmann::ordered_json steps = saved.contains("steps") ? saved["steps"] : nullptr;
    saved.erase("steps");
    const auto diff = settings_differences(saved, nlohmann::ordered_json(wanted), "run.json");
    BB_CHECK(diff.empty(), "{}: holds a different run ({}); use a new --out", out_.string(),
             fmt::join(diff, "; "));
    if (steps != nlohmann::ordered_json(s_.steps)) {
      nlohmann::ordered_json run(read_json_file(run_file));
      run["steps"] = s_.steps;
      write_file_atomic(run_file, run.dump(2) + "\n");
    }
  } else {
    BB_CHECK(!latest, "{}: has checkpoints but no run.json, so its settings cannot be checked; "
             "use a new --out", out_.string());
    json run = wanted;
    run["steps"] = s_.steps;
    write_file_atomic(run_file, run.dump(2) + "\n");
  }
  if (!latest) return;
  const fs::path state_file = *latest / "trainer_state.json";
  const json st = read_json_file(state_file);
  step_ = json_integer(st, "step", state_file.string());
  BB_CHECK(latest->filename().string() == "step-" + std::to_string(step_),
           "{}: step is {}, expected the directory's {}", state_file.string(), step_,
           latest->filename().string());
  log_.restore(st, out_, step_, /*write=*/true);
  load_model(*latest, model_);  // names, shapes, finite values; uploads
  const int64_t n = model_.layout().total;
  const auto opt = SafetensorsFile::read(*latest / "optimizer.safetensors");
  const std::vector<float> m = opt.expect("adam_m", {n}).to_f32(), v = opt.expect("adam_v", {n}).to_f32();
  for (int64_t i = 0; i < n; ++i)
    BB_CHECK(std::isfinite(m[size_t(i)]) && std::isfinite(v[size_t(i)]),
             "{}: non-finite Adam moment at index {}", opt.path.string(), i);
  m_.from_host(m.data(), m.size());
  v_.from_host(v.data(), v.size());
}

double Trainer::train_step() {
  DeviceScope scope(model_.device());
  const int k = s_.curriculum.points_at(step_);
  const Sequences seq = draw_sequences(s_.task, s_.batch, k, cfg_.dims, s_.spread,
                                       stream_key(s_.seed, kTaskStream), uint64_t(step_));
  model_.zero_grads();
  const float loss = model_.forward(seq.z, seq.targets(), s_.batch, 2 * k, task_loss(seq.drawn),
                                    true);
  BB_CHECK(std::isfinite(loss), "training diverged at step {}: the loss is {}{}", step_ + 1, loss,
           out_.empty() || !latest_checkpoint(out_)
               ? std::string(" (no checkpoint was written)")
               : fmt::format(" (the last checkpoint in {} is kept)", out_.string()));
  model_.backward();
  const double sched[3] = {s_.lr, double(step_ + 1), 0.0};  // ops::AdamWSchedule
  schedule_.from_host(sched, 3);
  auto* schedule = reinterpret_cast<const ops::AdamWSchedule*>(schedule_.data());
  if (s_.clip_norm > 0) ops::sum_squares(schedule_.data() + 2, model_.grad_data(), model_.layout().total);
  uint16_t* low = model_.bf16_copy_to_update();  // bf16: rounded into as the update goes
  for (const Span& span : spans_) {
    const ops::AdamWStep st{float(s_.beta1), float(s_.beta2), float(s_.eps), 0.f, span.lr_mult,
                            s_.clip_norm, true};
    if (low)
      ops::adamw_update_with_bf16_copy(model_.param_data() + span.offset,
                                       model_.grad_data() + span.offset, m_.data() + span.offset,
                                       v_.data() + span.offset, span.size, st, schedule,
                                       low + span.offset);
    else
      ops::adamw_update(model_.param_data() + span.offset, model_.grad_data() + span.offset,
                        m_.data() + span.offset, v_.data() + span.offset, span.size, st, schedule);
  }
  model_.params_updated(low != nullptr);
  ++step_;
  last_loss_ = loss;
  return loss;
}

int64_t Trainer::run(const std::function<void(const StepLog&)>& on_step) {
  if (step_ < s_.steps) log_.start_clock();
  while (step_ < s_.steps) {
    if (stop_requested) {
      save();
      return step_;
    }
    const int points = s_.curriculum.points_at(step_);
    train_step();
    session_tokens_ += double(s_.batch) * 2 * points;
    const json& w = log_.window();
    log_.set_window({{"loss_sum", w.value("loss_sum", 0.0) + last_loss_},
                     {"loss_n", w.value("loss_n", int64_t(0)) + 1}});
    if (on_step) on_step({step_, last_loss_, points});
    if (!out_.empty() && (step_ % s_.checkpoint_every == 0 || step_ == s_.steps)) {
      log_line();
      save();
    }
  }
  return step_;
}

void Trainer::log_line() {
  const json& w = log_.window();
  const int64_t n = w.value("loss_n", int64_t(0));
  const double seconds = log_.session_seconds();
  log_.add({{"step", step_},
            {"train_loss", w.value("loss_sum", 0.0) / double(std::max<int64_t>(1, n))},
            {"points", s_.curriculum.points_at(step_ - 1)},
            {"lr", s_.lr},
            {"tokens_per_s", seconds > 0 ? session_tokens_ / seconds : 0.0},
            {"elapsed_s", log_.elapsed()}});
  log_.set_window({{"loss_sum", 0.0}, {"loss_n", 0}});
}

void Trainer::save() {
  if (out_.empty()) return;
  model_.download();
  for (float p : model_.params)  // never a non-finite model into a checkpoint
    BB_CHECK(std::isfinite(p), "training diverged by step {}: a parameter is {} (the last "
             "checkpoint in {} is kept)", step_, p, out_.string());
  write_step_directory(out_, step_, [&](const fs::path& tmp) {
    write_model_files(tmp, model_);
    const std::vector<float> m = m_.host(), v = v_.host();
    const int64_t n = model_.layout().total;
    write_safetensors(tmp / "optimizer.safetensors",
                      {{"adam_m", {n}, m.data()}, {"adam_v", {n}, v.data()}});
    json st{{"step", step_}, {"seed", s_.seed}, {"points", s_.curriculum.points_at(step_)}};
    log_.save_into(st);
    write_file_atomic(tmp / "trainer_state.json", st.dump(2) + "\n");
  });
  log_.write(out_);  // a copy of the checkpoint's log
  write_model_files(out_, model_);
  write_file_atomic(out_ / "trainer_state.json",  // the top-level model's step (model_steps)
                    json{{"step", step_}, {"seed", s_.seed}}.dump(2) + "\n");
  prune_checkpoints(out_, {.last = s_.keep_checkpoints, .every = 0, .also = {}});
}

std::vector<std::vector<std::vector<double>>> read_head_values(const fs::path& dir,
                                                               const Config& c) {
  const AttentionFunctionSpec& f = attention_function_spec(c.attention);
  std::vector<std::vector<std::vector<double>>> out(size_t(f.value_count));
  if (f.value_count == 0) return out;
  const SafetensorsFile w = SafetensorsFile::read(dir / "model.safetensors");
  for (int slot = 0; slot < f.value_count; ++slot)
    for (int l = 0; l < c.layers; ++l) {
      const std::vector<float> raw =
          w.expect(fmt::format("_backbone.h.{}.{}", l, f.values[size_t(slot)].raw_tensor),
                   {c.heads}).to_f32();
      std::vector<double>& heads = out[size_t(slot)].emplace_back();
      for (float r : raw) heads.push_back(effective_head_value(slot, r));
    }
  return out;
}

Config read_model_config(const fs::path& dir) {
  std::error_code ec;
  BB_CHECK(fs::is_directory(dir, ec), "{}: no such ICL model directory", dir.string());
  BB_CHECK(fs::exists(dir / "config.json", ec), "{}: not a model directory (no config.json)",
           dir.string());
  return read_config(dir / "config.json");
}

fs::path run_of_model(const fs::path& dir) {
  fs::path d = dir;
  if (d.filename().empty()) d = d.parent_path();  // a trailing slash
  if (d.parent_path().filename() == "checkpoints" && !d.parent_path().parent_path().empty())
    return d.parent_path().parent_path();
  return d;
}

std::optional<int64_t> planned_steps(const fs::path& dir) {
  const fs::path run_file = dir / "run.json";
  if (!fs::exists(run_file)) return std::nullopt;
  const json run = read_json_file(run_file);
  if (!run.is_object() || !run.contains("steps")) return std::nullopt;
  return json_integer(run, "steps", run_file.string());
}

int64_t model_steps(const fs::path& dir) {
  const fs::path state = dir / "trainer_state.json";
  std::error_code ec;
  if (fs::is_regular_file(state, ec))
    return json_integer(read_json_file(state), "step", state.string());
  const std::vector<int64_t> steps = checkpoint_steps(dir);
  return steps.empty() ? -1 : steps.back();
}

void load_model(const fs::path& dir, Model<float>& model) {
  const auto weights = SafetensorsFile::read(dir / "model.safetensors");
  for (const ParamTensor& t : model.layout().tensors) {
    const std::vector<float> v = weights.expect(t.name, t.shape).to_f32();
    for (float x : v)
      BB_CHECK(std::isfinite(x), "{}: tensor {} holds a non-finite value",
               weights.path.string(), t.name);
    std::copy(v.begin(), v.end(), model.params.begin() + t.offset);
  }
  model.upload_params();
}


}  // namespace bb::icl
