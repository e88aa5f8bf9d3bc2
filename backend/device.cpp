#include "backend/device.h"

#include "common/error.h"
#ifdef BABYBERTA_HAVE_CUDA
#include "backend/cuda/device.h"
#endif

namespace bb {

namespace {
thread_local Device current = Device::cpu;
}

Device parse_device(const std::string& s) {
  if (s == "cpu") return Device::cpu;
  if (s == "cuda") return Device::cuda;
  usage_fail("--device: unknown device '{}' (expected cpu or cuda)", s);
}

void require_device(Device d) {
  if (d == Device::cpu) return;
#ifdef BABYBERTA_HAVE_CUDA
  cuda::require_device();
#else
  usage_fail("--device cuda: this build has no CUDA backend (configure with -DBABYBERTA_CUDA=ON)");
#endif
}

Device usable_device(const std::string& s) {
  const Device d = parse_device(s);
  require_device(d);
  return d;
}

void set_cuda_tf32(bool on) {
#ifdef BABYBERTA_HAVE_CUDA
  cuda::set_tf32(on);
#else
  BB_CHECK(!on, "--tf32: this build has no CUDA backend");
#endif
}

void synchronize(Device d) {
#ifdef BABYBERTA_HAVE_CUDA
  if (d == Device::cuda) cuda::synchronize();
#else
  (void)d;
#endif
}

std::string device_label(Device d) {
#ifdef BABYBERTA_HAVE_CUDA
  if (d == Device::cuda) return "cuda (" + cuda::device_name(0) + ")";
#endif
  return d == Device::cpu ? "cpu" : "cuda";
}

Device current_device() { return current; }
DeviceScope::DeviceScope(Device d) : saved_(current) {
  require_device(d);
  current = d;
}
DeviceScope::~DeviceScope() { current = saved_; }

#ifdef BABYBERTA_HAVE_CUDA
void* cuda_alloc(size_t bytes) { return cuda::device_alloc(bytes); }
void cuda_free(void* p) { cuda::device_free(p); }
void cuda_upload(void* dst, const void* src, size_t bytes) {
  cuda::copy_to_device(dst, src, bytes);
}
void cuda_download(void* dst, const void* src, size_t bytes) {
  cuda::copy_to_host(dst, src, bytes);
}
void cuda_zero(void* p, size_t bytes) { cuda::fill_zero(p, bytes); }
#else
void* cuda_alloc(size_t) { fail("internal: CUDA memory requested in a build without CUDA"); }
void cuda_free(void* p) {
  if (p) std::abort();  // nothing can have been allocated
}
void cuda_upload(void*, const void*, size_t) { fail("internal: no CUDA backend in this build"); }
void cuda_download(void*, const void*, size_t) { fail("internal: no CUDA backend in this build"); }
void cuda_zero(void*, size_t) { fail("internal: no CUDA backend in this build"); }
#endif

}  // namespace bb
