// Ctrl-C and SIGTERM, received by a thread of their own. Every other thread blocks both (main
// blocks them before any thread starts, and threads inherit its mask), so a stop signal never
// interrupts compute code: oneDNN 2.6's JIT GEMM kernels point rsp into a heap buffer while they
// run, and a signal frame pushed there corrupts the heap (uxlfoundation/oneDNN#4845, fixed in
// 3.x; Debian bookworm ships 2.6.3).
#pragma once
#include <signal.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace bb {

// Call first thing in main, before any thread exists (a thread started earlier keeps the signals
// unblocked; none does today: libgomp, oneDNN, MPI and CUDA start theirs later). Until
// stop_gracefully() is called, a stop signal kills the process (exit status 130 or 143 in a
// shell), also where the parent had set it to be ignored (a shell's `cmd &`): the signals are
// taken, as the handler this replaced took them. Throws bb::Error if the signals cannot be set up.
void receive_stop_signals();

// From now on the first stop signal, and every later one, sets `flag`; the command checks it,
// saves its state and exits 130 (train, experiment).
void stop_gracefully(std::atomic<bool>& flag);

// Blocks both signals in the calling thread (a compute thread that did not inherit main's mask:
// set_threads calls it in every OpenMP worker).
void block_stop_signals_in_this_thread();

// For a library caller that owns its signal handling (the Python module): both signals blocked in
// the calling thread while the guard lives, the thread's mask restored after. deliver_pending()
// lets a signal that arrived meanwhile reach the caller's handler now, between two steps, where no
// compute code is on this thread's stack.
class StopSignalsBlocked {
 public:
  StopSignalsBlocked();
  ~StopSignalsBlocked();
  StopSignalsBlocked(const StopSignalsBlocked&) = delete;
  StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;
  void deliver_pending() const;

 private:
  sigset_t old_;
};

// A run stopped by Ctrl-C or SIGTERM after saving its state: main() prints the message and exits
// 130, so that scripts and `experiment` never take an interrupted run for a finished one.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
  // A training run's: `saved` says where its checkpoint is ("checkpoint saved at step N in DIR"),
  // the message adds the CLI's way to continue; Python gives its own (python/training.cpp).
  Interrupted(const std::string& message, std::string saved_at)
      : std::runtime_error(message), saved(std::move(saved_at)) {}
  std::string saved;  // "" where the interruption is not one run's
};

}  // namespace bb
