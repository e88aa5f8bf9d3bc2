#include "runs/rank_jobs.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.h"
#include "common/stop_signals.h"
#include "training/stop_request.h"
#include "parallel/mpi.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

enum Tag { kRequest = 1, kAssign = 2 };  // rank -> 0: {done, result}; 0 -> rank: {job, ...}

JobRunner& job_runner() {
  static JobRunner run;
  return run;
}

// Restores stdout and stderr when it leaves scope; meanwhile both go to `log` (appended).
class OutputToLog {
 public:
  explicit OutputToLog(const fs::path& log) {
    fs::create_directories(log.parent_path());
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    BB_CHECK(fd >= 0, "{}: cannot open the job log: {}", log.string(), std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    out_ = ::dup(1), err_ = ::dup(2);
    ::dup2(fd, 1), ::dup2(fd, 2);
    ::close(fd);
  }
  ~OutputToLog() {
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(out_, 1), ::dup2(err_, 2);
    ::close(out_), ::close(err_);
  }
  OutputToLog(const OutputToLog&) = delete;
  OutputToLog& operator=(const OutputToLog&) = delete;

 private:
  int out_ = -1, err_ = -1;
};

enum class State { pending, running, ok, failed, stopped };

// Rank 0's book of the jobs: which may start, who runs what, what failed. Shared by the main
// thread (running jobs itself) and the scheduler thread (serving the other ranks).
class Scheduler {
 public:
  Scheduler(const std::vector<Job>& jobs, const std::vector<int>& after, const JobsStatus& status,
            size_t counted)
      : jobs_(jobs), after_(after), status_(status), counted_(counted),
        state_(jobs.size(), State::pending) {
    // Job events go to the terminal (or experiment's own log) even while rank 0's stdout and
    // stderr are a job's log.
    console_ = ::fdopen(::dup(2), "w");
    BB_CHECK(console_, "cannot duplicate stderr: {}", std::strerror(errno));
  }
  ~Scheduler() { std::fclose(console_); }

  // Rank 0's main thread: the next job it may run, waiting while the jobs it needs run
  // elsewhere; -1 when nothing more will be handed out.
  int take_local() {
    std::unique_lock lock(mutex_);
    int j = -1;
    changed_.wait(lock, [&] { return (j = pick()) >= 0 || exhausted(); });
    if (j >= 0) start(j, 0);
    return j;
  }

  void finish(int j, JobResult r, int rank) {
    std::lock_guard lock(mutex_);
    const Job& job = jobs_[size_t(j)];
    state_[size_t(j)] = r == JobResult::ok ? State::ok : r == JobResult::failed ? State::failed
                                                                              : State::stopped;
    if (r == JobResult::ok && size_t(j) < counted_) ++finished_;
    if (r == JobResult::failed)
      failed_.push_back(fmt::format("{} (rank {}, log: {})", job.name, rank, job.log.string()));
    if (r == JobResult::stopped) stopped_.push_back(job.name);
    stopping_ |= r != JobResult::ok;
    event(fmt::format("  {} {} (rank {})", r == JobResult::ok ? "finished" : r == JobResult::failed
                                                                            ? "FAILED  " : "stopped ",
                      job.name, rank));
    changed_.notify_all();
  }

  // The scheduler thread: answers the other ranks' requests until each was told the grid is
  // done (after its last job).
  void serve_ranks(int ranks) {
    std::vector<int> waiting;  // ranks asking for a job
    int active = ranks - 1;
    auto last_status = std::chrono::steady_clock::now();
    while (active > 0) {
      std::string msg;
      const int from = mpi::try_recv(msg, kRequest);
      if (from >= 0) {
        const auto m = nlohmann::json::parse(msg);
        if (m.at("done").get<int>() >= 0)
          finish(m.at("done").get<int>(), JobResult(m.at("result").get<int>()), from);
        waiting.push_back(from);
      }
      {
        std::lock_guard lock(mutex_);
        if (training::stop_requested && !stopping_) {
          stopping_ = true;
          changed_.notify_all();
        }
        for (auto it = waiting.begin(); it != waiting.end();) {
          const int j = pick();
          if (j >= 0) {
            start(j, *it);
            const Job& job = jobs_[size_t(j)];
            mpi::send(nlohmann::json{{"job", j}, {"name", job.name}, {"args", job.args},
                                     {"log", job.log.string()}}.dump(), *it, kAssign);
          } else if (exhausted()) {
            mpi::send(nlohmann::json{{"job", -1}}.dump(), *it, kAssign);
            --active;
          } else {
            ++it;
            continue;
          }
          it = waiting.erase(it);
        }
        if (status_ && std::chrono::steady_clock::now() - last_status > std::chrono::minutes(1)) {
          fmt::print(console_, "{}\n", status_(finished_));
          std::fflush(console_);
          last_status = std::chrono::steady_clock::now();
        }
      }
      if (from < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // After every rank is done: the failures and stops, as run_jobs reports them.
  void check() const {
    BB_CHECK(failed_.empty(), "{} job(s) failed: {}", failed_.size(), fmt::join(failed_, "; "));
    if (training::stop_requested || !stopped_.empty())
      throw Interrupted(fmt::format("interrupted ({} stopped); rerun the same command to resume",
                                    stopped_.empty() ? std::string("no job")
                                                     : fmt::format("{}", fmt::join(stopped_, ", "))));
  }

 private:
  // Under the lock: a pending job whose prerequisite has finished, or -1.
  int pick() const {
    if (stopping_) return -1;
    for (size_t j = 0; j < jobs_.size(); ++j)
      if (state_[j] == State::pending && (after_[j] < 0 || state_[size_t(after_[j])] == State::ok))
        return int(j);
    return -1;
  }
  // Under the lock: nothing more will be handed out.
  bool exhausted() const {
    return stopping_ || std::none_of(state_.begin(), state_.end(),
                                     [](State s) { return s == State::pending; });
  }
  void start(int j, int rank) {
    state_[size_t(j)] = State::running;
    const Job& job = jobs_[size_t(j)];
    event(fmt::format("  started  {} on rank {} (log: {})", job.name, rank, job.log.string()));
  }
  void event(const std::string& line) {
    fmt::print(console_, "{}\n", line);
    if (status_) fmt::print(console_, "{}\n", status_(finished_));
    std::fflush(console_);
  }

  const std::vector<Job>& jobs_;
  const std::vector<int>& after_;
  const JobsStatus& status_;
  size_t counted_;  // status_ counts the finished jobs among the first counted_
  std::vector<State> state_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::FILE* console_ = nullptr;
  size_t finished_ = 0;
  bool stopping_ = false;
  std::vector<std::string> failed_, stopped_;
};

}  // namespace

void set_job_runner(JobRunner run) { job_runner() = std::move(run); }

JobResult run_job_in_process(const Job& job) {
  const OutputToLog redirect(job.log);
  try {
    BB_CHECK(job_runner() != nullptr, "internal: no job runner set (set_job_runner)");
    job_runner()(job.args);
    return JobResult::ok;
  } catch (const Interrupted& e) {
    fmt::print(stderr, "babyberta: {}\n", e.what());
    return JobResult::stopped;
  } catch (const std::exception& e) {
    fmt::print(stderr, "babyberta: error: {}\n", e.what());
    return JobResult::failed;
  }
}

void run_jobs_on_ranks(const std::vector<Job>& jobs, const std::vector<int>& after,
                       const JobsStatus& status, size_t counted) {
  BB_CHECK(after.size() == jobs.size(), "internal: {} prerequisites for {} jobs", after.size(),
           jobs.size());
  Scheduler book(jobs, after, status, counted);
  const int ranks = mpi::world().size;
  std::thread scheduler([&] { book.serve_ranks(ranks); });
  for (int j; (j = book.take_local()) >= 0;) book.finish(j, run_job_in_process(jobs[size_t(j)]), 0);
  scheduler.join();
  mpi::peers_released();  // every rank has left serve_jobs: an error here need not abort them
  book.check();
}

void serve_jobs() {
  std::string request = nlohmann::json{{"done", -1}}.dump(), msg;
  for (;;) {
    mpi::send(request, 0, kRequest);
    mpi::recv(msg, kAssign);
    const auto m = nlohmann::json::parse(msg);
    const int j = m.at("job").get<int>();
    if (j < 0) break;
    const Job job{m.at("name").get<std::string>(), m.at("args").get<std::vector<std::string>>(),
                  m.at("log").get<std::string>()};
    const JobResult r = run_job_in_process(job);
    request = nlohmann::json{{"done", j}, {"result", int(r)}}.dump();
  }
  mpi::peers_released();
}

}  // namespace bb
