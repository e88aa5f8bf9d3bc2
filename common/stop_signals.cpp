#include "common/stop_signals.h"

#include <pthread.h>

#include <csignal>
#include <thread>

#include "common/error.h"

namespace bb {

namespace {

std::atomic<std::atomic<bool>*> graceful_flag{nullptr};

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Never runs (every thread blocks these signals); installed so that a signal the parent left
// ignored (SIG_IGN) is queued for sigwait instead of being discarded.
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

void receive_stop_signals() {
  const sigset_t set = stop_set();
  BB_CHECK(pthread_sigmask(SIG_BLOCK, &set, nullptr) == 0, "cannot block SIGINT and SIGTERM");
  struct sigaction act {};
  act.sa_handler = never_called;
  sigemptyset(&act.sa_mask);
  sigaction(SIGINT, &act, nullptr);
  sigaction(SIGTERM, &act, nullptr);
  std::thread(receive_forever, set).detach();
}

void stop_gracefully(std::atomic<bool>& flag) { graceful_flag.store(&flag); }

}  // namespace bb
