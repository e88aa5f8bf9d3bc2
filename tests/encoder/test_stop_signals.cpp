// Stop signals go to a thread of their own (common/stop_signals.h): every other thread blocks
// them, a graceful command sees its flag set, any other command dies by the signal. Each case
// runs in a forked child: receive_stop_signals() wants a process with no other thread yet (this
// test binary may have OpenMP workers), and its settings must not outlive the case.
#include <doctest/doctest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "common/stop_signals.h"

namespace {

bool blocks_stop_signals() {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGTERM) == 1;
}

bool becomes_true(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!flag.load() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return flag.load();
}

// Runs body() in a forked child, which exits with its return value (3 if it throws); returns
// the child's wait status.
template <typename Body>
int status_of_child(Body body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 3;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

}  // namespace

TEST_CASE("stop signals: with no graceful command, SIGTERM kills the process") {
  const int status = status_of_child([] {
    bb::receive_stop_signals();
    ::kill(::getpid(), SIGTERM);
    ::sleep(20);
    return 0;  // not reached when the signal kills it
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}

// Exit codes of the child below: 0 all right, 10 + the first check that failed.
TEST_CASE("stop signals: blocked in every thread, received by their own, even where ignored") {
  const int status = status_of_child([] {
    std::signal(SIGINT, SIG_IGN);  // as a shell leaves it for `cmd &`
    bb::receive_stop_signals();
    if (!blocks_stop_signals()) return 10;
    bool worker_blocks = false;
    std::thread([&] { worker_blocks = blocks_stop_signals(); }).join();
    if (!worker_blocks) return 11;  // compute threads started later inherit the mask
    static std::atomic<bool> flag{false};
    bb::stop_gracefully(flag);
    ::kill(::getpid(), SIGINT);
    if (!becomes_true(flag)) return 12;
    flag = false;
    ::kill(::getpid(), SIGTERM);  // and again: later signals set it too, the process lives on
    if (!becomes_true(flag)) return 13;
    return 0;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
