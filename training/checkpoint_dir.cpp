#include "training/checkpoint_dir.h"

#include <unistd.h>

#include <algorithm>
#include <regex>
#include <string>

#include "common/error.h"
#include "common/files.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

std::string temporary_name(int64_t step) {
  return ".step-" + std::to_string(step) + ".tmp." + std::to_string(::getpid());
}

}  // namespace

std::vector<int64_t> checkpoint_steps(const fs::path& dir) {
  const fs::path root = dir / "checkpoints";
  std::error_code ec;
  std::vector<int64_t> steps;
  if (!fs::is_directory(root, ec)) return steps;
  static const std::regex re("step-([0-9]{1,18})");
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::smatch m;
    const std::string name = it->path().filename().string();
    std::error_code kind;
    if (!it->is_directory(kind) || !std::regex_match(name, m, re)) continue;
    steps.push_back(std::stoll(m[1]));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::optional<fs::path> latest_checkpoint(const fs::path& dir) {
  const std::vector<int64_t> steps = checkpoint_steps(dir);
  if (steps.empty()) return std::nullopt;
  return dir / "checkpoints" / ("step-" + std::to_string(steps.back()));
}

fs::path write_step_directory(const fs::path& dir, int64_t step,
                              const std::function<void(const fs::path&)>& fill) {
  const fs::path root = dir / "checkpoints";
  std::error_code ec;
  fs::create_directories(root, ec);
  BB_CHECK(!ec, "{}: cannot create directory ({})", root.string(), ec.message());
  remove_stale_temporaries(dir);  // left by a crashed earlier run
  remove_stale_temporaries(root);
  const fs::path final_dir = root / ("step-" + std::to_string(step));
  const fs::path tmp = root / temporary_name(step);
  std::error_code ignored;
  try {
    fs::remove_all(tmp, ignored);
    fs::create_directory(tmp, ec);
    BB_CHECK(!ec, "{}: cannot create directory ({})", tmp.string(), ec.message());
    fill(tmp);
  } catch (...) {
    fs::remove_all(tmp, ignored);  // a failed checkpoint leaves no partial directory behind
    throw;
  }
  replace_directory(tmp, final_dir);
  return final_dir;
}

std::vector<int64_t> checkpoints_to_prune(const std::vector<int64_t>& steps,
                                          const CheckpointRetention& keep) {
  std::vector<int64_t> drop;
  if (keep.last <= 0) return drop;
  const size_t recent = steps.size() > size_t(keep.last) ? steps.size() - size_t(keep.last) : 0;
  for (size_t i = 0; i < recent; ++i) {
    const int64_t s = steps[i];
    const bool needed = (keep.every > 0 && s % keep.every == 0) ||
                        std::find(keep.also.begin(), keep.also.end(), s) != keep.also.end();
    if (!needed) drop.push_back(s);
  }
  return drop;
}

std::vector<int64_t> prune_checkpoints(const fs::path& dir, const CheckpointRetention& keep) {
  const std::vector<int64_t> drop = checkpoints_to_prune(checkpoint_steps(dir), keep);
  const fs::path root = dir / "checkpoints";
  for (const int64_t s : drop) {
    const fs::path step_dir = root / ("step-" + std::to_string(s));
    const fs::path doomed = root / temporary_name(s);
    std::error_code ec;
    fs::rename(step_dir, doomed, ec);
    BB_CHECK(!ec, "{}: cannot remove an old checkpoint ({})", step_dir.string(), ec.message());
    fs::remove_all(doomed, ec);
    BB_CHECK(!ec, "{}: cannot remove ({})", doomed.string(), ec.message());
  }
  return drop;
}

}  // namespace bb
