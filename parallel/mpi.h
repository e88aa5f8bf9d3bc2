// MPI for the two multi-process modes (docs/experiments.md: On a cluster): data-parallel `train` and an
// `experiment` grid spread over ranks. MPI is initialised only when this process was started by
// mpirun or srun (their environment says so) and the build has MPI (-DBABYBERTA_MPI=ON, the
// default when CMake finds it); otherwise world() is rank 0 of 1 and nothing here touches MPI.
// Only the main thread calls the collectives; experiment's scheduler thread uses the
// point-to-point calls (MPI_THREAD_MULTIPLE).
#pragma once
#include <cstddef>
#include <string>

namespace bb::mpi {

struct World {
  int rank = 0, size = 1;
  bool active() const { return size > 1; }
};

// True when the environment of mpirun (OpenMPI: OMPI_COMM_WORLD_SIZE; PMIx: PMIX_RANK) or srun
// (PMI_RANK, PMI_SIZE) is present, i.e. this process is one rank of a launched job.
bool launched();
// This process's place in MPI_COMM_WORLD; initialises MPI on the first call when launched().
// A launched job of more than one rank on a build without MPI is an error.
const World& world();
// world() as it stands, without initialising anything (rank 0 of 1 before world()).
const World& world_so_far();
// MPI_Finalize at exit, when world() initialised it (call from main's scope: a guard).
struct FinalizeAtExit {
  ~FinalizeAtExit();
};
// After an error on one rank, the others may wait in a collective forever: abort them all
// (MPI_Abort) when world().active() and peers may still be waiting; else nothing.
void abort_peers(int code);
// The experiment scheduler releases its peers before its own last steps: from then on an error
// on rank 0 need not abort them.
void peers_released();

// In-place sums over all ranks (MPI_Allreduce); identity when !world().active().
void sum(float* data, size_t n);
void sum(double* data, size_t n);
void barrier();
// Rank 0's string on every rank.
std::string broadcast(const std::string& s);

// Point-to-point messages of strings (experiment's scheduler).
void send(const std::string& s, int dest, int tag);
// A message with `tag` from any rank, if one has arrived: returns its sender, else -1.
int try_recv(std::string& s, int tag);
// Waits for a message with `tag` from any rank, polling every 2 ms rather than spinning, so a
// waiting rank leaves its core to the others; returns the sender.
int recv(std::string& s, int tag);

}  // namespace bb::mpi
