#include "runs/provenance.h"

#include <ctime>

#include "backend/kernel_choice.h"
#include "git_revision.h"

namespace bb {

std::string build_revision() { return BB_GIT_REVISION; }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string kernels_on(Device device) {
  return device == Device::cpu ? blas_provenance() : std::string("cuBLAS");
}

}  // namespace bb
