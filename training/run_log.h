// A training run's metrics log and clock, for every model kind. The log (DIR/metrics.jsonl, one
// JSON line per evaluation) is part of each checkpoint's trainer state, so a checkpoint and its
// metrics lines are written in one atomic step and a resumed run restores the log of the step it
// continues from; metrics.jsonl is a copy written after each checkpoint. The clock (elapsed_s)
// counts the seconds trained over all sessions. The window is the caller's running state between
// two lines (e.g. the loss sum since the last line), saved and restored with the checkpoint, so a
// run resumed between two lines writes the same next line as an uninterrupted one.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>

namespace bb::training {

class RunLog {
 public:
  // The log, clock and window of the checkpoint resumed from (its trainer state's "metrics",
  // "elapsed_s", "window"); a state written before the log was part of it keeps the lines of
  // out/metrics.jsonl up to `step` (a torn last line dropped). Rewrites out/metrics.jsonl to
  // match when `write` (the process that writes the run's files).
  void restore(const nlohmann::json& state, const std::filesystem::path& out, int64_t step,
               bool write);
  // Starts this session's clock (at its first update; later calls do nothing).
  void start_clock();
  // Seconds trained over all sessions: what the checkpoint resumed from had counted, plus this
  // session's since start_clock().
  double elapsed() const;
  // Seconds since start_clock() (0 before it): this session's share, for its rates.
  double session_seconds() const;
  // Adds a line; it reaches disk with the next checkpoint.
  void add(nlohmann::json line) { lines_.push_back(std::move(line)); }
  void set_window(nlohmann::json window) { window_ = std::move(window); }
  const nlohmann::json& window() const { return window_; }  // empty object: none saved
  // Adds "metrics", "elapsed_s" and "window" to a checkpoint's trainer state.
  void save_into(nlohmann::json& state) const;
  // out/metrics.jsonl, atomically: the lines so far.
  void write(const std::filesystem::path& out) const;

 private:
  nlohmann::json lines_ = nlohmann::json::array();
  nlohmann::json window_ = nlohmann::json::object();
  double elapsed_before_ = 0;
  std::chrono::steady_clock::time_point first_step_{};  // epoch: no step yet in this session
};

}  // namespace bb::training
