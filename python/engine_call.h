// What every engine call from Python goes through: the GIL released while C++ computes, and the
// calling thread's floating-point state (FTZ/DAZ, which set_threads turns on in every compute
// thread, this one included) restored afterwards, so that the interpreter's own arithmetic and
// numpy's keep their subnormals.
#pragma once
#include <pybind11/pybind11.h>
#include <xmmintrin.h>

#include <utility>

namespace bb::python {

template <typename F>
auto engine_call(F&& f) {
  const unsigned csr = _mm_getcsr();
  struct Restore {
    unsigned csr;
    ~Restore() { _mm_setcsr(csr); }
  } restore{csr};
  pybind11::gil_scoped_release release;
  return std::forward<F>(f)();
}

}  // namespace bb::python
