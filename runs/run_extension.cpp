#include "runs/run_extension.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "common/flag_names.h"
#include "runs/run_settings.h"
#include "common/error.h"
#include "common/files.h"
#include "encoder/checkpoint.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// Flag combinations that cannot extend a run: usage errors (exit 2), before any work.
void check_extension(const TrainArgs& a) {
  if (a.extend_to == 0) return;
  if (!a.resume)
    usage_fail("--extend-to continues an existing run: give it with --resume and the run's "
               "original flags");
  if (a.optim.schedule == Schedule::linear)
    usage_fail("{}: --extend-to: the linear schedule decays to 0 at --steps, so a longer run "
               "differs from this one from the end of the warmup on and cannot be extended "
               "honestly; train with --schedule wsd --decay-steps D (or --schedule constant) to "
               "extend runs",
               a.out);
  if (a.extend_to <= a.steps)
    usage_fail("--extend-to {} is not beyond --steps {} (give the run's original --steps and the "
               "new total as --extend-to)",
               a.extend_to, a.steps);
}

namespace {

// Moves DIR/probes/step-K.json for K > `after` into `archive`/probes/.
void archive_probes(const fs::path& dir, int64_t after, const fs::path& archive) {
  static const std::regex re("step-([0-9]{1,18})\\.json");
  std::error_code ec;
  if (!fs::is_directory(dir / "probes", ec)) return;
  for (const auto& entry : fs::directory_iterator(dir / "probes")) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, m, re) || std::stoll(m[1]) <= after) continue;
    fs::create_directories(archive / "probes");
    fs::rename(entry.path(), archive / "probes" / name, ec);
    BB_CHECK(!ec, "{}: cannot move it to {} ({})", entry.path().string(), archive.string(),
             ec.message());
  }
}

}  // namespace

void extend_run(TrainArgs& a, const ojson& settings) {
  const fs::path out = a.out;
  const auto record = read_run_record(out);
  BB_CHECK(record, "{}: --extend-to, but there is no run.json to extend (not a run directory, or "
           "a run from an older version)", out.string());
  const ojson& saved = (*record)["settings"];
  const int64_t recorded = saved.value(flag_name::steps, int64_t(0));
  const int64_t planned = a.steps;
  a.steps = a.extend_to;
  if (recorded == a.extend_to) return;  // extended already: a resume of the extension
  BB_CHECK(recorded == planned, "{}: --extend-to: run.json plans {} steps, and --steps says {}; "
           "give the run's --steps", out.string(), recorded, planned);
  const auto diff = settings_differences(saved, settings, "checkpoint");
  if (!diff.empty())
    usage_fail("{}: cannot extend with other settings ({}); use the original flags", out.string(),
         fmt::join(diff, "; "));

  // The S-step run and the N-step run agree up to the S-step run's decay (constant: its end).
  OptimConfig first = a.optim;
  first.total_steps = planned;
  const int64_t agree_to = decay_start(first);
  const std::vector<int64_t> steps = checkpoint_steps(out);
  int64_t from = -1;
  for (const int64_t s : steps)
    if (s <= agree_to) from = s;
  BB_CHECK(from >= 0, "{}: --extend-to: no checkpoint at or before step {}, where the {}-step "
           "run's decay began, to continue from", out.string(), agree_to, planned);
  const fs::path archive = out / fmt::format("extended-from-{}", planned);
  std::error_code ec;
  for (const int64_t s : steps) {
    if (s <= from) continue;
    fs::create_directories(archive, ec);
    BB_CHECK(!ec, "{}: cannot create ({})", archive.string(), ec.message());
    if (!fs::exists(archive / "metrics.jsonl") && fs::exists(out / "metrics.jsonl"))
      write_file_atomic(archive / "metrics.jsonl", read_file(out / "metrics.jsonl"));
    const std::string name = fmt::format("step-{}", s);
    fs::rename(out / "checkpoints" / name, archive / name, ec);
    BB_CHECK(!ec, "{}: cannot move it to {} ({})", (out / "checkpoints" / name).string(),
             archive.string(), ec.message());
  }
  archive_probes(out, from, archive);

  // run.json last: until it says N, a rerun redoes the (idempotent) moves above.
  ojson run = *record;
  run["settings"][flag_name::steps] = a.extend_to;
  if (!run.contains("segments") || !run["segments"].is_array())
    run["segments"] = ojson::array({ojson{{"steps", planned}, {"from_step", 0}}});
  ojson segment{{"steps", a.extend_to}, {"from_step", from}};
  if (fs::exists(archive)) segment["previous_checkpoints"] = archive.filename().string();
  run["segments"].push_back(segment);
  write_file_atomic(out / "run.json", run.dump(2) + "\n");
  fmt::print(stderr, "extending {} from {} to {} steps: continuing from step {}{}\n", out.string(),
             planned, a.extend_to, from,
             fs::exists(archive) ? fmt::format(" (the {}-step run's later checkpoints are in {})",
                                               planned, archive.string())
                                 : "");
}

}  // namespace bb
