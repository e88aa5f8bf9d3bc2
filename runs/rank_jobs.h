// experiment's jobs on the ranks of an MPI job (mpirun/srun; parallel/mpi.h): rank 0 hands the
// jobs out as ranks become free, from a scheduler thread, and runs jobs itself in between; every
// rank runs its jobs in-process (train, probe, tokenizer train), with stdout and stderr in the
// job's log. Without MPI, runs/child_jobs.h runs the same jobs as child processes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "runs/child_jobs.h"

namespace bb {

// Rank 0: runs every job on some rank; job j starts only after job after[j] (-1: none) has
// finished. Fails naming each failed job and its log; after a stop request (Ctrl-C, SIGTERM) hands
// out nothing more, lets the running jobs save their state and throws Interrupted. The other
// ranks must be in serve_jobs(). `status` is given the number of finished jobs among the first
// `counted` (e.g. the training runs before the probes).
void run_jobs_on_ranks(const std::vector<Job>& jobs, const std::vector<int>& after,
                       const JobsStatus& status, size_t counted);
// Ranks 1..R-1: run what rank 0 hands out until it says the grid is done.
void serve_jobs();
// How a job's arguments (args[0] the command) run in this process, as the binary would run them:
// the CLI sets it at start (cli/main.cpp), before any job runs.
using JobRunner = std::function<void(const std::vector<std::string>& args)>;
void set_job_runner(JobRunner run);
enum class JobResult { ok, failed, stopped };
// One job in this process, its output appended to its log (a failure's error line included).
JobResult run_job_in_process(const Job& job);

}  // namespace bb
