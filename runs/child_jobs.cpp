#include "runs/child_jobs.h"

#include "runs/progress.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstring>

#include "common/stop_signals.h"
#include "runs/progress.h"
#include "common/error.h"
#include "training/stop_request.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

// fork + exec of this binary with `args`, stdout and stderr appended to `log`. The child gets
// SIGKILL when this process dies, however it dies (checkpoints are atomic, so nothing is torn).
pid_t start_child(const std::string& self, const Job& job) {
  std::vector<std::string> argv_s = {self};
  argv_s.insert(argv_s.end(), job.args.begin(), job.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  // Written to the job's log if exec fails (typically: the binary was rebuilt or removed while
  // this process ran, so /proc/self/exe names a deleted file).
  const std::string exec_failed =
      "babyberta: cannot run " + self + " (rebuilt or removed since this command started?)\n";
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  BB_CHECK(pid >= 0, "cannot start {}: {}", job.name, std::strerror(errno));
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    const int fd = ::open(job.log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(127);
    ::execv(self.c_str(), argv.data());
    [[maybe_unused]] const ssize_t n = ::write(2, exec_failed.data(), exec_failed.size());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

JobsStatus count_status(const std::string& what, size_t total) {
  const auto t0 = std::chrono::steady_clock::now();
  return [what, total, t0](size_t finished) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string eta = finished > 0 && finished < total
                                ? Progress::format_time(s / double(finished) * double(total - finished))
                                : "-";
    return fmt::format("grid: {}/{} {}, ETA {}", finished, total, what, eta);
  };
}

void run_jobs(const std::vector<Job>& jobs, int parallel, const JobsStatus& status) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::pair<pid_t, const Job*>> running;
  std::vector<std::string> failed, interrupted;
  bool forwarded = false;
  size_t finished = 0;
  const bool tty = ::isatty(STDERR_FILENO);
  auto last_status = std::chrono::steady_clock::now();
  std::string shown;  // the status last printed (not a terminal: never the same line twice)
  // A job event's line. On a terminal, over the status line, which is then redrawn; otherwise
  // one line per event, with the status appended when it changed.
  auto event = [&](const std::string& line) {
    const std::string now = status ? status(finished) : std::string();
    if (tty) {
      fmt::print(stderr, "\r\033[K{}\n{}", line, now);
    } else {
      fmt::print(stderr, "{}{}{}\n", line, now.empty() || now == shown ? "" : " | ",
                 now == shown ? "" : now);
    }
    shown = now;
    last_status = std::chrono::steady_clock::now();
  };
  auto tick = [&] {
    const auto now = std::chrono::steady_clock::now();
    if (!status || now - last_status < std::chrono::seconds(tty ? 2 : 60)) return;
    last_status = now;
    const std::string line = status(finished);
    if (tty) fmt::print(stderr, "\r\033[K{}", line);
    else if (line != shown) fmt::print(stderr, "{}\n", line);
    shown = line;
  };
  // Waits for one child to end; on a stop request, passes it on to the running children once.
  auto reap = [&] {
    int status = 0;
    pid_t pid = 0;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) == 0) {
      if (training::stop_requested && !forwarded) {
        for (const auto& r : running) ::kill(r.first, SIGINT);
        forwarded = true;
      }
      ::usleep(100 * 1000);
      tick();
    }
    if (pid < 0) return;
    for (size_t i = 0; i < running.size(); ++i) {
      if (running[i].first != pid) continue;
      const Job& j = *running[i].second;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      // 130: a run saved and stopped, or a probe killed by SIGINT; 143: one killed by SIGTERM.
      const bool stopped = code == 130 || code == 128 + SIGTERM;
      const char* what = code == 0 ? "finished" : stopped ? "stopped " : "FAILED  ";
      finished += code == 0;
      event(fmt::format("  {} {}", what, j.name));
      if (stopped) interrupted.push_back(j.name);
      else if (code != 0) failed.push_back(fmt::format("{} (exit {}, log: {})", j.name, code, j.log.string()));
      running.erase(running.begin() + long(i));
      return;
    }
  };
  for (const Job& j : jobs) {
    while (int(running.size()) >= parallel) reap();
    if (training::stop_requested || !failed.empty()) break;
    fs::create_directories(j.log.parent_path());
    running.push_back({start_child(self, j), &j});
    event(fmt::format("  started  {} (log: {})", j.name, j.log.string()));
  }
  while (!running.empty()) reap();
  if (status && tty) fmt::print(stderr, "\n");
  BB_CHECK(failed.empty(), "{} job(s) failed: {}", failed.size(), fmt::join(failed, "; "));
  if (training::stop_requested || !interrupted.empty())
    throw Interrupted(fmt::format("interrupted ({} stopped); rerun the same command to resume",
                                  interrupted.empty() ? std::string("no job")
                                                      : fmt::format("{}", fmt::join(interrupted, ", "))));
}

}  // namespace bb
