// Device discovery, memory, the process's stream + cuBLAS handle, and the workspace.
#include <algorithm>
#include <mutex>

#include "backend/cuda/context.h"
#include "backend/cuda/device.h"
#include "common/error.h"

namespace bb::cuda {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA error in {}: {}", what, cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail("cuBLAS error {} in {}", int(s), what);
}

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string device_name(int id) {
  cudaDeviceProp p{};
  return cudaGetDeviceProperties(&p, id) == cudaSuccess ? std::string(p.name) : std::string();
}

namespace {
struct Context {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  bool tf32 = false;
};

Context& context() {
  static Context ctx;
  static std::once_flag once;
  std::call_once(once, [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
      fail("no CUDA device found (CUDA runtime: {}); use --device cpu",
           e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublasCreate(&ctx.cublas), "cublasCreate");
    check(cublasSetStream(ctx.cublas, ctx.stream), "cublasSetStream");
    check(cublasSetMathMode(ctx.cublas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  });
  return ctx;
}
}  // namespace

void require_device() { (void)context(); }
cudaStream_t stream() { return context().stream; }
cublasHandle_t cublas() { return context().cublas; }

void synchronize() { check(cudaStreamSynchronize(stream()), "a kernel on the stream"); }

void set_tf32(bool on) {
  context().tf32 = on;
  check(cublasSetMathMode(cublas(), on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH),
        "cublasSetMathMode");
}
bool tf32() { return context().tf32; }

void* device_alloc(size_t bytes) {
  require_device();
  void* p = nullptr;
  if (bytes > 0) check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}

void device_free(void* p) {
  if (p) cudaFree(p);  // never throws from destructors
}

void copy_to_device(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream()), "copy to device");
  synchronize();
}

void copy_to_host(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream()), "copy to host");
  synchronize();
}

void fill_zero(void* p, size_t bytes) {
  if (bytes > 0) check(cudaMemsetAsync(p, 0, bytes, stream()), "cudaMemsetAsync");
}

void* workspace(size_t bytes) {
  Context& ctx = context();
  if (bytes > ctx.workspace_bytes) {
    synchronize();  // the old workspace may still be in use by queued kernels
    device_free(ctx.workspace);
    ctx.workspace_bytes = std::max(bytes, 2 * ctx.workspace_bytes);
    check(cudaMalloc(&ctx.workspace, ctx.workspace_bytes), "cudaMalloc (workspace)");
  }
  return ctx.workspace;
}

}  // namespace bb::cuda
