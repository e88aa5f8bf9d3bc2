// The one place that sets how many threads compute: OpenMP (our loops) and OpenBLAS (the
// OpenMP build, so both share one pool). Also turns on flush-to-zero / denormals-are-zero in
// every pool thread, since subnormal floats can slow a CPU run several-fold.
#pragma once

namespace bb {

void set_threads(int n);  // n <= 0: all cores
int num_threads();
int available_cores();  // the cores this process may run on (its CPU affinity), at least 1

}  // namespace bb
