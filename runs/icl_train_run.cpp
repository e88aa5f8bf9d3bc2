#include "runs/icl_train_run.h"

#include <fmt/core.h>

#include <filesystem>

#include "backend/device.h"
#include "backend/precision.h"
#include "backend/threads.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/flag_names.h"
#include "common/stop_signals.h"
#include "runs/run_directory.h"
#include "icl/trainer.h"
#include "training/run_record.h"
#include "runs/progress.h"

namespace bb {

void run_icl_train(icl::TrainArgs a, const std::function<void(const icl::StepLog&)>& on_step) {
  set_threads(a.threads);
  const Device device = usable_device(a.device);
  const icl::Config cfg = icl::model_config(a);
  cfg.validate("icl train");
  require_precision(parse_precision(a.s.precision), device);  // before any work
  a.s.task = icl::parse_task(a.task);
  const std::filesystem::path out = a.out;
  const DirLock lock(out);
  // The run's planned total (run.json's "steps"): --steps must be it, as train's must be its
  // checkpoint's; a longer run is an --extend-to, which records the new total.
  const std::optional<int64_t> planned = icl::planned_steps(out);
  if (a.extend_to > 0) {  // the run, checked against run.json below, goes on to extend_to
    BB_CHECK(std::filesystem::exists(out / "run.json"), "{}: {} holds no run to extend (no run.json); "
             "train it first", flag_name::extend_to, out.string());
    BB_CHECK(a.extend_to > a.s.steps, "{} {} must be above {} {}", flag_name::extend_to,
             a.extend_to, flag_name::steps, a.s.steps);
    BB_CHECK(!planned || *planned == a.s.steps || *planned == a.extend_to,
             "{}: cannot extend: {} {} is not the run's ({} in run.json); give the original {} "
             "and {} N",
             out.string(), flag_name::steps, a.s.steps, *planned, flag_name::steps,
             flag_name::extend_to);
    a.s.steps = a.extend_to;
  } else if (planned && *planned != a.s.steps) {
    throw UsageError(fmt::format(
        "{}: cannot resume with other settings ({}: run.json {}, now {}); use the original "
        "flags{}",
        out.string(), flag_name::steps, *planned, a.s.steps,
        a.s.steps > *planned ? fmt::format("; to make it longer give the original {} and {} N",
                                           flag_name::steps, flag_name::extend_to)
                             : std::string()));
  }
  icl::Trainer trainer(cfg, a.s, out, device);
  const int64_t start = trainer.step();
  // run.json's record of this session: what computes this part of the run (warned of where it
  // differs from the last session's)
  record_run_session(out, session_entry(start, a.threads, a.device, device, a.s.precision));
  if (!a.quiet)
    fmt::print(stderr, "icl train: {} on {}, {} parameters, {} -> {}{}\n", cfg.label(), a.task,
               trainer.model().layout().total, device_label(device), out.string(),
               start > 0 ? fmt::format(" (resuming at step {})", start) : "");
  Progress progress(a.s.steps, "steps", 100, start);
  int64_t tokens = 0;
  trainer.run([&](const icl::StepLog& s) {
    if (on_step) return on_step(s);
    tokens += int64_t(a.s.batch) * 2 * s.points;
    if (!a.quiet)
      progress.update(s.step, fmt::format("loss {:.4f} points {} {:.0f} tok/s", s.loss, s.points,
                                          double(tokens) / progress.seconds()));
  });
  if (!a.quiet && !on_step) progress.finish();
  if (icl::Trainer::stop_requested) {
    const std::string saved =
        fmt::format("checkpoint saved at step {} in {}", trainer.step(), out.string());
    throw Interrupted(
        fmt::format("interrupted: {}; to continue, run the same command again", saved), saved);
  }
  if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

}  // namespace bb
