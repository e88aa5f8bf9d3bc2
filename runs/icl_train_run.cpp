#include "runs/icl_train_run.h"

#include <fmt/core.h>

#include <filesystem>

#include "backend/device.h"
#include "backend/kernel_choice.h"
#include "backend/threads.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"
#include "common/flag_names.h"
#include "common/stop_signals.h"
#include "runs/run_directory.h"
#include "runs/progress.h"

namespace bb {

namespace {

// run.json's "sessions": one entry per start or resume, saying what computed that part of the run
// (from_step, threads, device, blas), as train's run.json does; a resume whose kernels or thread
// count differ from the last session's is warned of (the run continues correctly, but not bit
// for bit as an uninterrupted run).
void record_session(const std::filesystem::path& out, int64_t start, int threads,
                    const std::string& device, const std::string& kernels) {
  const std::filesystem::path path = out / "run.json";
  nlohmann::json run = read_json_file(path);
  if (!run.contains("sessions") || !run["sessions"].is_array())
    run["sessions"] = nlohmann::json::array();
  if (!run["sessions"].empty()) {
    const nlohmann::json& last = run["sessions"].back();
    warn_if_session_differs(out, last.value("blas", std::string()),
                            last.value("threads", threads), kernels, threads);
  }
  run["sessions"].push_back(
      {{"from_step", start}, {"threads", threads}, {"device", device}, {"blas", kernels}});
  write_file_atomic(path, run.dump(2) + "\n");
}

}  // namespace

void run_icl_train(icl::TrainArgs a, const std::function<void(const icl::StepLog&)>& on_step) {
  set_threads(a.threads);
  const Device device = usable_device(a.device);
  const icl::Config cfg = icl::model_config(a);
  cfg.validate("icl train");
  a.s.task = icl::parse_task(a.task);
  const std::filesystem::path out = a.out;
  const DirLock lock(out);
  if (a.extend_to > 0) {  // the run, checked against run.json below, goes on to extend_to
    BB_CHECK(std::filesystem::exists(out / "run.json"), "{}: {} holds no run to extend (no run.json); "
             "train it first", flag_name::extend_to, out.string());
    BB_CHECK(a.extend_to > a.s.steps, "{} {} must be above {} {}", flag_name::extend_to,
             a.extend_to, flag_name::steps, a.s.steps);
    a.s.steps = a.extend_to;
  }
  icl::Trainer trainer(cfg, a.s, out, device);
  const int64_t start = trainer.step();
  record_session(out, start, a.threads, a.device,
                 device == Device::cpu ? blas_provenance() : std::string("cuBLAS"));
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
  if (icl::Trainer::stop_requested)
    throw Interrupted(fmt::format("interrupted: checkpoint saved at step {} in {}; to continue, "
                                  "run the same command again",
                                  trainer.step(), out.string()));
  if (!a.quiet)
    fmt::print(stderr, "trained {} steps ({} this run) -> {}\n", trainer.step(),
               trainer.step() - start, out.string());
}

}  // namespace bb
