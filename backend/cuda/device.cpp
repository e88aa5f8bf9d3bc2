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
  uint64_t workspace_generation = 0;
  void* cublas_workspace = nullptr;
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
    // Our own cuBLAS workspace (after cublasSetStream, which resets it), so that cuBLAS never
    // allocates inside a graph capture; 32 MiB is NVIDIA's recommendation for Hopper.
    constexpr size_t kCublasWorkspace = size_t(32) << 20;
    check(cudaMalloc(&ctx.cublas_workspace, kCublasWorkspace), "cudaMalloc (cuBLAS workspace)");
    check(cublasSetWorkspace(ctx.cublas, ctx.cublas_workspace, kCublasWorkspace),
          "cublasSetWorkspace");
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

Memory memory_of(const void* p) {
  // A query, not stream work; relaxed capture mode lets it run while this thread captures.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  check(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // clear it: the pointer is simply unknown to the driver
    return Memory::pageable;
  }
  switch (a.type) {
    case cudaMemoryTypeHost: return Memory::pinned;
    case cudaMemoryTypeDevice: return Memory::device;
    case cudaMemoryTypeManaged: return Memory::managed;
    default: return Memory::pageable;
  }
}

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
    ++ctx.workspace_generation;
  }
  return ctx.workspace;
}

uint64_t workspace_generation() { return context().workspace_generation; }

void* pinned_alloc(size_t bytes) {
  require_device();
  void* p = nullptr;
  if (bytes > 0) check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return p;
}

void pinned_free(void* p) {
  if (p) cudaFreeHost(p);
}

void copy_to_device_async(void* dst, const void* pinned_src, size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(dst, pinned_src, bytes, cudaMemcpyHostToDevice, stream()),
        "copy to device");
}

void* event_create() {
  require_device();
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}

void event_destroy(void* e) {
  if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

void event_record(void* e) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(e), stream()), "cudaEventRecord");
}

void event_wait(void* e) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "a kernel on the stream");
}

void begin_capture() {
  check(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal),
        "cudaStreamBeginCapture");
}

void* end_capture() {
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(stream(), &graph), "CUDA graph capture");
  cudaGraphExec_t exec = nullptr;
  const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  check(e, "cudaGraphInstantiate");
  return exec;
}

void abort_capture() {
  cudaGraph_t graph = nullptr;
  if (cudaStreamEndCapture(stream(), &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // clear the capture's error state
}

void launch_graph(void* graph) {
  check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), stream()), "cudaGraphLaunch");
}

void destroy_graph(void* graph) {
  if (graph) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
}

}  // namespace bb::cuda
