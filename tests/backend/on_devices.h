// Runs a test body once per device this build and machine have: the CPU always, CUDA when the
// build has it and a device is present. The body gets an OnDevice, which puts host inputs in that
// device's memory, makes outputs there and reads them back; while it lives, ops run on it.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "backend/device.h"
#include "common/error.h"

namespace bb::test {

class OnDevice {
 public:
  explicit OnDevice(Device d) : device_(d), scope_(d) {}

  // A copy of `host` in this device's memory (n zeros), alive as long as this object.
  template <typename T>
  T* copy(const std::vector<T>& host) {
    auto a = std::make_shared<Array<T>>(device_);
    a->assign(host.size(), T(0));
    a->from_host(host.data(), host.size());
    kept_.push_back(a);
    return a->data();
  }
  template <typename T>
  T* zeros(size_t n) {
    return copy(std::vector<T>(n, T(0)));
  }
  // n values at p, in this device's memory, back on the host.
  template <typename T>
  std::vector<T> read(const T* p, size_t n) const {
    std::vector<T> out(n);
    if (device_ == Device::cpu) std::copy(p, p + n, out.begin());
    else cuda_download(out.data(), p, n * sizeof(T));
    return out;
  }

 private:
  Device device_;
  DeviceScope scope_;
  std::vector<std::shared_ptr<void>> kept_;
};

// The devices to test on: the CPU, and CUDA where usable here.
inline std::vector<Device> test_devices() {
  std::vector<Device> out = {Device::cpu};
  try {
    require_device(Device::cuda);
    out.push_back(Device::cuda);
  } catch (const Error&) {  // no CUDA backend in this build, or no device
  }
  return out;
}

// body(OnDevice&) once per device; failures name the device.
template <typename Body>
void on_each_device(Body&& body) {
  for (Device d : test_devices()) {
    CAPTURE(device_label(d));
    OnDevice on(d);
    body(on);
  }
}

}  // namespace bb::test
