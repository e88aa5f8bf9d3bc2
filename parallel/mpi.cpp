#include "parallel/mpi.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "common/error.h"

#ifdef BABYBERTA_HAVE_MPI
#include <mpi.h>
#endif

namespace bb::mpi {

namespace {
World g_world;
[[maybe_unused]] bool g_initialised = false;  // MPI builds: world() started MPI
bool g_released = false;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// The job size the launcher announced (1 when it said nothing).
[[maybe_unused]] int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"})
    if (const char* v = env(name)) return std::max(1, std::atoi(v));
  return 1;
}
}  // namespace

const World& world_so_far() { return g_world; }

bool launched() {
  return env("OMPI_COMM_WORLD_SIZE") || env("PMIX_RANK") || env("PMI_RANK") || env("PMI_SIZE");
}

#ifdef BABYBERTA_HAVE_MPI

const World& world() {
  if (g_initialised || !launched()) return g_world;
  // OpenMPI's own choice of allreduce for the 34 MB gradient buffer on 2 ranks ran at a quarter
  // of its ring algorithm's speed (bench/RESULTS.md, "Data parallelism"); the ring (reduce-scatter
  // then allgather: every rank gets the same sums) unless the user chose an algorithm.
  if (!env("OMPI_MCA_coll_tuned_allreduce_algorithm")) {
    ::setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    ::setenv("OMPI_MCA_coll_tuned_allreduce_algorithm", "4", 0);
  }
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  g_initialised = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  if (provided < MPI_THREAD_SERIALIZED && g_world.size > 1) {
    MPI_Abort(MPI_COMM_WORLD, 1);  // the scheduler thread needs it; OpenMPI provides it
  }
  return g_world;
}

FinalizeAtExit::~FinalizeAtExit() {
  if (g_initialised) MPI_Finalize();
}

void abort_peers(int code) {
  if (g_initialised && g_world.size > 1 && !g_released) MPI_Abort(MPI_COMM_WORLD, code);
}

void peers_released() { g_released = true; }

void sum(float* data, size_t n) {
  if (!world().active()) return;
  for (size_t at = 0; at < n;) {  // counts are int: chunks of at most 2^30 elements
    const int k = int(std::min<size_t>(n - at, size_t(1) << 30));
    MPI_Allreduce(MPI_IN_PLACE, data + at, k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    at += size_t(k);
  }
}

void sum(double* data, size_t n) {
  if (!world().active()) return;
  MPI_Allreduce(MPI_IN_PLACE, data, int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void barrier() {
  if (world().active()) MPI_Barrier(MPI_COMM_WORLD);
}

std::string broadcast(const std::string& s) {
  if (!world().active()) return s;
  unsigned long long n = s.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = world().rank == 0 ? s : std::string(n, '\0');
  MPI_Bcast(out.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

void send(const std::string& s, int dest, int tag) {
  MPI_Send(s.data(), int(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

int try_recv(std::string& s, int tag) {
  MPI_Status st;
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return -1;
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  s.assign(size_t(n), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return st.MPI_SOURCE;
}

#endif

int recv(std::string& s, int tag) {
  for (;;) {
    const int from = try_recv(s, tag);
    if (from >= 0) return from;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

#ifndef BABYBERTA_HAVE_MPI  // a build without MPI: one process, and a clear error when launched as several

const World& world() {
  BB_CHECK(launched_size() <= 1,
           "this babyberta was built without MPI (-DBABYBERTA_MPI=OFF) but started as one of {} "
           "ranks by mpirun or srun; rebuild with MPI or run it without the launcher",
           launched_size());
  return g_world;
}
FinalizeAtExit::~FinalizeAtExit() = default;
void abort_peers(int) {}
void peers_released() { g_released = true; }
void sum(float*, size_t) {}
void sum(double*, size_t) {}
void barrier() {}
std::string broadcast(const std::string& s) { return s; }
void send(const std::string&, int, int) { fail("internal: MPI send in a build without MPI"); }
int try_recv(std::string&, int) { fail("internal: MPI receive in a build without MPI"); }

#endif

}  // namespace bb::mpi
