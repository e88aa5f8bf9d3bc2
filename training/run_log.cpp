#include "training/run_log.h"

#include <sstream>
#include <string>

#include "common/files.h"

namespace bb::training {

namespace fs = std::filesystem;
using nlohmann::json;

void RunLog::restore(const json& state, const fs::path& out, int64_t step, bool write_copy) {
  lines_ = json::array();
  const fs::path path = out / "metrics.jsonl";
  if (state.is_object() && state.contains("metrics") && state["metrics"].is_array()) {
    lines_ = state["metrics"];
  } else if (fs::exists(path)) {
    std::istringstream in(read_file(path));
    std::string line;
    while (std::getline(in, line)) {
      const auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("step") && j["step"].is_number_integer() &&
          j["step"].get<int64_t>() <= step)
        lines_.push_back(j);
    }
  }
  // The checkpoint's own count; checkpoints written before it had one: the last line's.
  elapsed_before_ = 0;
  if (state.is_object() && state.contains("elapsed_s") && state["elapsed_s"].is_number())
    elapsed_before_ = state["elapsed_s"].get<double>();
  else if (!lines_.empty() && lines_.back().contains("elapsed_s") &&
           lines_.back()["elapsed_s"].is_number())
    elapsed_before_ = lines_.back()["elapsed_s"].get<double>();
  if (state.is_object() && state.contains("window") && state["window"].is_object())
    window_ = state["window"];
  if (write_copy) write(out);
}

void RunLog::start_clock() {
  if (first_step_ == std::chrono::steady_clock::time_point{})
    first_step_ = std::chrono::steady_clock::now();
}

double RunLog::elapsed() const {
  return elapsed_before_ + session_seconds();
}

double RunLog::session_seconds() const {
  using clock = std::chrono::steady_clock;
  if (first_step_ == clock::time_point{}) return 0;
  return std::chrono::duration<double>(clock::now() - first_step_).count();
}

void RunLog::save_into(json& state) const {
  state["metrics"] = lines_;
  state["elapsed_s"] = elapsed();
  state["window"] = window_;
}

void RunLog::write(const fs::path& out) const {
  std::string text;
  for (const auto& line : lines_) text += line.dump() + "\n";
  write_file_atomic(out / "metrics.jsonl", text);
}

}  // namespace bb::training
