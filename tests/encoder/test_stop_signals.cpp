// Stop signals go to a thread of their own (common/stop_signals.h): every other thread blocks
// them, a graceful command sees its flag set, any other command dies by the signal.
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

}  // namespace

// First in this file: the forked child must not inherit a graceful flag from the next case.
TEST_CASE("stop signals: with no graceful command, SIGTERM kills the process as by default") {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    bb::receive_stop_signals();
    ::kill(::getpid(), SIGTERM);
    ::sleep(20);
    ::_exit(0);  // not reached when the signal kills it
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}

TEST_CASE("stop signals: blocked in every thread, received by their own, even where ignored") {
  std::signal(SIGINT, SIG_IGN);  // as a shell leaves it for `cmd &`
  bb::receive_stop_signals();
  CHECK(blocks_stop_signals());
  bool worker_blocks = false;
  std::thread([&] { worker_blocks = blocks_stop_signals(); }).join();
  CHECK(worker_blocks);  // compute threads started later inherit the mask

  std::atomic<bool> flag{false};
  bb::stop_gracefully(flag);
  ::kill(::getpid(), SIGINT);
  CHECK(becomes_true(flag));
  flag = false;
  ::kill(::getpid(), SIGTERM);  // and again: later signals set it too, the process lives on
  CHECK(becomes_true(flag));
}
