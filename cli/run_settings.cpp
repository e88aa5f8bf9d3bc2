#include "cli/run_settings.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"

namespace bb::cli {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

ojson train_settings(const TrainArgs& a, const std::string& corpus_sha256,
                     const std::string& tokenizer_sha256) {
  const auto& m = a.batching.masking;
  const auto& o = a.optim;
  ojson settings{{"--corpus (sha256)", corpus_sha256},
               {"--tokenizer (sha256)", tokenizer_sha256},
               {"--attention", a.attention},
               {"--preset", a.preset},
               {"--steps", a.steps},
               {"--seed", a.seed},
               {"--strict", a.strict},
               {"--batch-size", a.batching.batch_size},
               {"--mask-patterns", a.batching.mask_patterns},
               {"--hf-masking", a.hf_masking},
               {"--mask-prob", m.prob},
               {"--bucket-batches", a.batching.bucket_batches},
               {"--lr", o.lr},
               {"--warmup-steps", o.warmup_steps},
               {"--weight-decay", o.weight_decay},
               {"--clip", o.clip_norm},
               {"--adam-eps", o.eps},
               {"--no-bias-correction", !o.bias_correction},
               {"--dropout", a.dropout},
               {"--ssa-lr-mult", o.ssa_lr_mult},
               {"--dev-fraction", a.dev_fraction},
               {"--dev-batches", a.dev_batches}};
  // Settings of one function only where they were added after runs of the others existed (so
  // those runs keep their fingerprint).
  if (a.recipe != "babyberta") settings["--recipe"] = a.recipe;
  if (!a.dev_from_seed) settings["--dev-seed"] = a.dev_seed;  // older runs: the training seed's
  if (a.no_dev) settings["--no-dev"] = true;
  if (o.schedule != Schedule::linear) settings["--schedule"] = std::string(schedule_name(o.schedule));
  if (o.schedule == Schedule::wsd) settings["--decay-steps"] = o.decay_steps;
  const AttentionFunction function = parse_attention_function(a.attention);
  for (const AttentionFunctionSpec& f : kAttentionFunctionTable)  // trainable values' flags
    for (int slot = 0; slot < f.value_count; ++slot) {
      const HeadValueSpec& v = f.values[size_t(slot)];
      if (!v.in_every_run && function != f.function) continue;
      const HeadValueSetting& s = a.head_values[size_t(f.function)][size_t(slot)];
      settings[std::string(v.init_flag)] = s.init;
      settings[std::string(v.freeze_flag)] = s.freeze;
    }
  return settings;
}

void write_run_settings(const fs::path& dir, const ojson& settings) {
  write_file_atomic(dir / "run.json",
                    ojson{{"settings", settings}, {"sessions", ojson::array()}}.dump(2) + "\n");
}

// DIR/run.json as written by write_run_settings (key order kept), or a one-line error.
static ojson read_run_json(const fs::path& path) {
  const ojson run = ojson::parse(read_file(path), nullptr, /*allow_exceptions=*/false);
  BB_CHECK(run.is_object() && run.contains("settings") && run["settings"].is_object(),
           "{}: not a run settings file (expected JSON with an object \"settings\")", path.string());
  return run;
}

void add_run_session(const fs::path& dir, const ojson& session) {
  const fs::path path = dir / "run.json";
  ojson run = read_run_json(path);
  if (!run.contains("sessions") || !run["sessions"].is_array()) run["sessions"] = ojson::array();
  run["sessions"].push_back(session);
  write_file_atomic(path, run.dump(2) + "\n");
}

std::optional<ojson> read_run_record(const fs::path& dir) {
  const fs::path path = dir / "run.json";
  if (!fs::exists(path)) return std::nullopt;
  return read_run_json(path);
}

std::optional<ojson> read_run_settings(const fs::path& dir) {
  const auto record = read_run_record(dir);
  if (!record) return std::nullopt;
  return (*record)["settings"];
}

std::optional<RunPlan> read_run_plan(const fs::path& dir) {
  const auto settings = read_run_settings(dir);
  if (!settings) return std::nullopt;
  RunPlan plan{.steps = std::nullopt, .recipe = settings->value("--recipe", "babyberta")};
  if (settings->contains("--steps") && (*settings)["--steps"].is_number_integer())
    plan.steps = (*settings)["--steps"].get<int64_t>();
  return plan;
}

std::string settings_fingerprint(const ojson& settings) {
  return sha256_hex(nlohmann::json(settings).dump());  // keys sorted: independent of their order
}

std::vector<std::string> settings_differences(const ojson& saved, const ojson& now,
                                              const std::string& what_saved) {
  std::vector<std::string> out;
  auto show = [](const ojson& j, const std::string& key) {
    if (!j.contains(key)) return std::string("(not set)");
    const ojson& v = j.at(key);
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  for (const auto& [key, value] : now.items())
    if (!saved.contains(key) || saved.at(key) != value)
      out.push_back(fmt::format("{}: {} {}, now {}", key, what_saved, show(saved, key),
                                show(now, key)));
  for (const auto& [key, value] : saved.items())
    if (!now.contains(key))
      out.push_back(fmt::format("{}: {} {}, now (not set)", key, what_saved, show(saved, key)));
  return out;
}

}  // namespace bb::cli
