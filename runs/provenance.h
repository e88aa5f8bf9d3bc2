// What computed a file: the build's git revision ("-dirty" when built from uncommitted changes),
// the time and the kernels, for result headers, perplexity files and run.json's sessions.
#pragma once
#include <string>

#include "backend/device.h"

namespace bb {

// `git describe`-style revision of the source this binary was built from (cmake/GitRevision.cmake).
std::string build_revision();
// Now, in UTC, as 2026-12-07T09:13:57Z.
std::string utc_now();
// The kernels that compute on `device`: the CPU's BLAS (blas_provenance()) or "cuBLAS".
std::string kernels_on(Device device);

}  // namespace bb
