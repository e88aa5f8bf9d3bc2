#include "runs/run_directory.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include "backend/precision.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "encoder/checkpoint.h"
#include "runs/provenance.h"
#include "runs/run_settings.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

void check_run_directory(const TrainArgs& a, const ojson& settings) {
  const fs::path out = a.out;
  const auto last = latest_checkpoint(out);
  if (!a.resume) {
    if (last)
      fail("{}: holds checkpoints already; pass --resume to continue or choose a new --out",
           out.string());
    fs::remove(out / "metrics.jsonl");  // from a run killed before its first checkpoint
    write_run_settings(out, settings);
    return;
  }
  if (!last) fail("{}: --resume, but there is no checkpoint to resume from", out.string());
  const auto saved = read_run_settings(out);
  if (!saved) {
    fmt::print(stderr, "babyberta: warning: {}: no run.json (written by an older version); only "
               "the model config and seed are checked on resume\n", out.string());
    return;
  }
  // A run keeps its model kind: said alone (the flags of the other kind would differ too).
  auto kind_of = [](const ojson& s) {
    return s.contains("--kind") ? s["--kind"].get<std::string>() : std::string("roberta");
  };
  if (kind_of(*saved) != kind_of(settings))
    usage_fail("{}: cannot resume: it holds a {} run, not a {} one (--kind; a run keeps its model kind)",
         out.string(), kind_of(*saved), kind_of(settings));
  const auto diff = settings_differences(*saved, settings, "checkpoint");
  const bool longer = saved->value(flag_name::steps, int64_t(0)) < a.steps;
  if (!diff.empty())
    usage_fail("{}: cannot resume with other settings ({}); use the original flags (only {} may "
         "change){}",
         out.string(), fmt::join(diff, "; "), resumable_flags(),
         !longer ? ""
         : a.optim.schedule == Schedule::linear
             ? "; a linear-schedule run cannot be made longer (its decay reaches 0 at --steps): "
               "train with --schedule wsd --decay-steps D or --schedule constant, whose runs "
               "--extend-to N extends"
             : "; to make it longer give the original --steps and --extend-to N");
}

nlohmann::ordered_json session_entry(int64_t from_step, int threads, const std::string& device_flag,
                                     Device device, const std::string& precision) {
  ojson session{{"from_step", from_step}, {"threads", threads}, {"device", device_flag},
                {"blas", kernels_on(device)},
                {"git_revision", build_revision()}, {"date", utc_now()}};
  if (precision != "fp32") session["precision"] = precision, session["kernel"] = bf16_kernel();
  return session;
}

std::string resume_command() {
  std::string cmdline = read_file("/proc/self/cmdline"), out;
  bool has_resume = false;
  for (size_t pos = 0; pos < cmdline.size();) {
    const size_t end = std::min(cmdline.find('\0', pos), cmdline.size());
    const std::string arg = cmdline.substr(pos, end - pos);
    has_resume |= arg == flag_name::resume;
    const bool plain = arg.find_first_of(" \t'\"$\\") == std::string::npos && !arg.empty();
    out += (out.empty() ? "" : " ") + (plain ? arg : "'" + arg + "'");
    pos = end + 1;
  }
  return has_resume ? out : out + " --resume";
}

}  // namespace bb
