// doctest main for every test binary: one compute thread unless BB_TEST_THREADS says otherwise,
// and every op checks that its pointers are on its device (backend/ops.h; CUDA builds).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "backend/cpu/blas_core.h"
#include "backend/ops.h"
#include "backend/threads.h"

int main(int argc, char** argv) {
  bb::select_blas_core(argv);  // the fast OpenBLAS kernels, as the binary gets them
  if (const std::string bad = bb::unsupported_blas_core(); !bad.empty()) {
    std::fprintf(stderr, "error: %s\n", bad.c_str());  // else SIGILL at the first product
    return 1;
  }
  const char* t = std::getenv("BB_TEST_THREADS");
  bb::set_threads(t ? std::atoi(t) : 1);
  bb::ops::check_pointers(true);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
