// Where ops run and memory lives: the CPU, or the CUDA device (builds with -DBABYBERTA_CUDA=ON).
// Every op in backend/ops.h runs on the calling thread's current device (DeviceScope); its
// pointers must point to that device's memory, i.e. into Arrays of that device.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/buffer.h"

namespace bb {

enum class Device { cpu, cuda };

Device parse_device(const std::string& s);  // "cpu" | "cuda"; anything else is an error
std::string device_label(Device d);         // "cpu", or "cuda (NVIDIA H200)"
// Throws a one-line bb::Error unless `d` can be used here: "this build has no CUDA backend
// (configure with -DBABYBERTA_CUDA=ON)" or "no CUDA device found ...".
void require_device(Device d);
// A --device value, parsed and checked to be usable here (both errors are one line).
Device usable_device(const std::string& s);
// CUDA GEMMs on TF32 tensor cores (10-bit mantissa inputs): off by default (exact fp32).
void set_cuda_tf32(bool on);
// Waits until the work queued on `d` has finished (CUDA: the stream; the CPU: nothing to wait for).
void synchronize(Device d);

Device current_device();  // of the calling thread; cpu unless inside a DeviceScope
class DeviceScope {
 public:
  explicit DeviceScope(Device d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device saved_;
};

// Raw device memory (CUDA only; the CPU uses Buffer<T>).
void* cuda_alloc(size_t bytes);
void cuda_free(void* p);
void cuda_upload(void* dst, const void* src, size_t bytes);
void cuda_download(void* dst, const void* src, size_t bytes);
void cuda_zero(void* p, size_t bytes);

// n elements of T on one device: a 64-byte aligned host Buffer on the CPU, device memory on
// CUDA. data() is a pointer for that device's ops; host() / from_host() copy as needed.
template <typename T>
class Array {
 public:
  explicit Array(Device d = Device::cpu) : device_(d) {}
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  ~Array() { release(); }

  Device device() const { return device_; }
  size_t size() const { return device_ == Device::cpu ? host_.size() : n_; }
  T* data() { return device_ == Device::cpu ? host_.data() : dev_; }
  const T* data() const { return device_ == Device::cpu ? host_.data() : dev_; }

  // n copies of `value` (reallocates when n changes).
  void assign(size_t n, T value) {
    if (device_ == Device::cpu) return host_.assign(n, value);
    if (n != n_) {
      release();
      dev_ = static_cast<T*>(cuda_alloc(n * sizeof(T)));
    }
    n_ = n;
    if (value == T(0)) return cuda_zero(dev_, n * sizeof(T));
    const std::vector<T> fill(n, value);
    cuda_upload(dev_, fill.data(), n * sizeof(T));
  }
  // Copies the first n <= size() elements from host memory.
  void from_host(const T* src, size_t n) {
    if (device_ == Device::cpu) std::copy(src, src + n, host_.begin());
    else cuda_upload(dev_, src, n * sizeof(T));
  }
  std::vector<T> host() const {
    if (device_ == Device::cpu) return std::vector<T>(host_.begin(), host_.end());
    std::vector<T> out(n_);
    cuda_download(out.data(), dev_, n_ * sizeof(T));
    return out;
  }

 private:
  void release() {
    cuda_free(dev_);
    dev_ = nullptr;
    n_ = 0;
  }
  Device device_;
  Buffer<T> host_;   // cpu
  T* dev_ = nullptr; // cuda
  size_t n_ = 0;     // cuda
};

}  // namespace bb
