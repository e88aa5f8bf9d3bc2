// Progress reporting for long commands: on a TTY one line rewritten in place with rate and ETA;
// otherwise a plain log line every `every` units. Rate and ETA count only the units done since
// `first` (e.g. the step a resumed run starts from).
#pragma once
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace bb {

class Progress {
 public:
  Progress(int64_t total, std::string unit, int64_t every, int64_t first = 0)
      : total_(total), first_(first), unit_(std::move(unit)), every_(every),
        tty_(isatty(STDERR_FILENO)) {}

  // `done` units finished, `extra` appended to the line (e.g. "loss 3.21").
  void update(int64_t done, const std::string& extra) {
    const double el = seconds();
    const double rate = done > first_ && el > 0 ? (done - first_) / el : 0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0;
    const std::string line = fmt::format("{}/{} {} | {} | {:.1f} {}/s | ETA {}", done, total_,
                                         unit_, extra, rate, unit_, format_time(eta));
    if (tty_) {
      fmt::print(stderr, "\r\033[K{}", line);
      if (done == total_) fmt::print(stderr, "\n");
    } else if (done / every_ > logged_ || done == total_) {  // each multiple of `every` crossed
      logged_ = done / every_;
      fmt::print(stderr, "{}\n", line);
    }
  }
  // A line of its own above the progress line (e.g. an evaluation's result).
  void note(const std::string& line) {
    if (tty_) fmt::print(stderr, "\r\033[K{}\n", line);
    else fmt::print(stderr, "{}\n", line);
  }
  void finish() {
    if (tty_) fmt::print(stderr, "\n");
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  static std::string format_time(double s) {
    const int64_t t = int64_t(s);
    return fmt::format("{}:{:02d}:{:02d}", t / 3600, int(t / 60 % 60), int(t % 60));
  }

 private:
  int64_t total_, first_;
  std::string unit_;
  int64_t every_;
  bool tty_;
  int64_t logged_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace bb
