// The CUDA backend's context: device discovery, device memory, one stream and one cuBLAS handle
// for the process, and a grow-only scratch workspace. Plain C++ header (no CUDA headers), so
// host code and tests can use it; the ops themselves are declared in backend/cuda/ops.h.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bb::cuda {

int device_count();               // 0 when no driver or no device
std::string device_name(int id);  // e.g. "NVIDIA H200"
// Throws bb::Error with one line ("no CUDA device: ...") unless a device is usable; selects
// device 0 and creates the stream and cuBLAS handle on first use.
void require_device();
void synchronize();  // waits for the stream; throws on an asynchronous kernel error
// TF32 tensor-core GEMMs (10-bit mantissa inputs): off by default, for exact fp32.
void set_tf32(bool on);
bool tf32();

// What a pointer points to, as the driver sees it (cudaPointerGetAttributes): pageable host
// memory (also any pointer the driver does not know), page-locked host memory, device memory or
// managed memory. Allowed inside a stream capture.
enum class Memory { pageable, pinned, device, managed };
Memory memory_of(const void* p);

void* device_alloc(size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, size_t bytes);  // synchronous
void copy_to_host(void* dst, const void* src, size_t bytes);    // synchronous
void fill_zero(void* p, size_t bytes);                          // async on the stream
void* workspace(size_t bytes);  // scratch valid until the next call; grows, never shrinks
// Changes whenever workspace() moves to a larger allocation (a captured graph that used the old
// one must be captured again).
uint64_t workspace_generation();

// Page-locked host memory, from which copy_to_device_async copies without synchronising.
void* pinned_alloc(size_t bytes);
void pinned_free(void* p);
void copy_to_device_async(void* dst, const void* pinned_src, size_t bytes);  // queued on the stream
// Events on the stream (opaque handles).
void* event_create();
void event_destroy(void* e);
void event_record(void* e);  // after the work queued so far
void event_wait(void* e);    // the host waits for it

// CUDA graphs of the work queued on the stream between begin_capture and end_capture (opaque
// handles). While capturing nothing runs; an op that would synchronise fails the capture.
void begin_capture();
void* end_capture();   // the instantiated graph; throws if the capture failed
void abort_capture();  // ends a capture whose body threw, discarding it; never throws
void launch_graph(void* graph);
void destroy_graph(void* graph);

// Owning device array of n elements of T.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(size_t n) : n_(n), p_(static_cast<T*>(device_alloc(n * sizeof(T)))) {}
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : n_(o.n_), p_(o.p_) { o.n_ = 0, o.p_ = nullptr; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  ~DeviceArray() { device_free(p_); }

  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T>& host) {
    copy_to_device(p_, host.data(), std::min(n_, host.size()) * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    copy_to_host(host.data(), p_, n_ * sizeof(T));
    return host;
  }

 private:
  size_t n_ = 0;
  T* p_ = nullptr;
};

}  // namespace bb::cuda
