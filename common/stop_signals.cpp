#include "common/stop_signals.h"

#include <pthread.h>

#include <csignal>
#include <thread>

#include "common/error.h"

namespace bb {

namespace {

// The running command's stop flag, once it takes stop signals gracefully; null before.
std::atomic<std::atomic<bool>*> graceful_flag{nullptr};

sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Never runs (every thread blocks these signals). Installed because POSIX leaves it unspecified
// whether a blocked signal whose action is SIG_IGN (a shell's `cmd &`) is kept for sigwait or
// discarded; with a handler it is kept (Linux keeps it either way).
void never_called(int) {}

[[noreturn]] void receive_forever(sigset_t set) {
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (std::atomic<bool>* flag = graceful_flag.load()) {
      flag->store(true);
      continue;
    }
    // No command takes it: die by the signal, as without a handler.
    std::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    raise(sig);
  }
}

}  // namespace

void block_stop_signals_in_this_thread() {
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StopSignalsBlocked::StopSignalsBlocked() {
  const sigset_t set = stop_signal_set();
  BB_CHECK(pthread_sigmask(SIG_BLOCK, &set, &old_) == 0, "cannot block SIGINT and SIGTERM");
}

StopSignalsBlocked::~StopSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

void StopSignalsBlocked::deliver_pending() const {
  sigset_t pending;
  if (sigpending(&pending) != 0) return;
  if (!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM)) return;
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);  // the pending signal runs its handler here
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void receive_stop_signals() {
  const sigset_t set = stop_signal_set();
  BB_CHECK(pthread_sigmask(SIG_BLOCK, &set, nullptr) == 0, "cannot block SIGINT and SIGTERM");
  struct sigaction act {};
  act.sa_handler = never_called;
  sigemptyset(&act.sa_mask);
  BB_CHECK(sigaction(SIGINT, &act, nullptr) == 0 && sigaction(SIGTERM, &act, nullptr) == 0,
           "cannot install the SIGINT and SIGTERM handlers");
  std::thread(receive_forever, set).detach();
}

void stop_gracefully(std::atomic<bool>& flag) { graceful_flag.store(&flag); }

}  // namespace bb
