// What every engine call from Python goes through (EngineCall): SIGINT and SIGTERM blocked in the
// calling thread while C++ computes (a signal frame pushed while oneDNN 2.6's JIT GEMM has moved
// the stack pointer corrupts memory: common/stop_signals.h), the thread's mask restored after, so
// that a Ctrl-C pressed meanwhile reaches Python's handler on return and raises
// KeyboardInterrupt; the calling thread's floating-point state (FTZ/DAZ, which set_threads turns
// on in every compute thread, this one included) restored, so that the interpreter's and numpy's
// arithmetic keep their subnormals; and, in engine_call, the GIL released while C++ computes.
#pragma once
#include <pybind11/pybind11.h>
#include <xmmintrin.h>

#include <utility>

#include "common/stop_signals.h"

namespace bb::python {

class EngineCall {
 public:
  EngineCall() : csr_(_mm_getcsr()) {}
  ~EngineCall() { _mm_setcsr(csr_); }
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;
  // Between two steps: a signal that arrived meanwhile runs Python's handler now.
  void deliver_pending_signals() const { blocked_.deliver_pending(); }

 private:
  unsigned csr_;
  StopSignalsBlocked blocked_;
};

template <typename F>
auto engine_call(F&& f) {
  EngineCall call;
  pybind11::gil_scoped_release release;
  return std::forward<F>(f)();
}

}  // namespace bb::python
