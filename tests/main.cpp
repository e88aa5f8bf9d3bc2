// doctest main for every test binary: one compute thread unless BB_TEST_THREADS says otherwise.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "backend/cpu/blas_core.h"
#include "common/threads.h"

int main(int argc, char** argv) {
  bb::select_blas_core(argv);  // the fast OpenBLAS kernels, as the binary gets them
  const char* t = std::getenv("BB_TEST_THREADS");
  bb::set_threads(t ? std::atoi(t) : 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
