// doctest main for every test binary: one compute thread unless BB_TEST_THREADS says otherwise.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "common/threads.h"

int main(int argc, char** argv) {
  const char* t = std::getenv("BB_TEST_THREADS");
  bb::set_threads(t ? std::atoi(t) : 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
