// Jobs run as child processes of this binary (`experiment`'s runs and probes), at most `parallel`
// at a time, each with its output appended to its own log. A child dies with its parent
// (PR_SET_PDEATHSIG), so killing `experiment` never leaves runs writing into its directory.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace bb {

struct Job {
  std::string name;
  std::vector<std::string> args;  // after the program name
  std::filesystem::path log;
};

// status(jobs finished): one line about the whole set (e.g. a grid's steps done and its ETA),
// shown after every job event and, while jobs run, every 2 s in place on a terminal (every
// minute as a log line otherwise).
using JobsStatus = std::function<std::string(size_t finished)>;
// "grid: 3/20 WHAT, ETA 0:14:00": the ETA from the jobs finished since this call ("-" before the
// first).
JobsStatus count_status(const std::string& what, size_t total);

// Runs every job; fails naming each failed job and its log. After Ctrl-C (or SIGTERM) it starts
// no new job, waits for the running ones (they save their state) and throws Interrupted.
void run_jobs(const std::vector<Job>& jobs, int parallel, const JobsStatus& status = {});

}  // namespace bb
