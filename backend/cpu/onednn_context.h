// What every oneDNN primitive of the CPU backend runs on (frozen_linear.cpp, bf16_gemm.cpp): the
// one CPU engine, a stream per calling thread, and the thread count a primitive is built for.
// Only for builds with oneDNN (BABYBERTA_HAVE_ONEDNN).
#pragma once
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace bb::cpu {

inline const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

inline dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

// The threads oneDNN will use where it runs now (one inside our parallel regions).
inline int threads_here() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

}  // namespace bb::cpu
