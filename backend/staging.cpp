#include "backend/staging.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "common/error.h"
#ifdef BABYBERTA_HAVE_CUDA
#include "backend/cuda/device.h"
#endif

namespace bb {

StagingBlock::StagingBlock(Device device, const std::vector<size_t>& slot_bytes)
    : device_(device) {
  constexpr size_t kAlign = 64;
  for (size_t b : slot_bytes) {
    offsets_.push_back(bytes_);
    bytes_ += (b + kAlign - 1) / kAlign * kAlign;
  }
  bytes_ = std::max(bytes_, kAlign);
#ifdef BABYBERTA_HAVE_CUDA
  if (device == Device::cuda) {
    host_ = static_cast<std::byte*>(cuda::pinned_alloc(bytes_));
    dev_ = static_cast<std::byte*>(cuda::device_alloc(bytes_));
    uploaded_ = cuda::event_create();
    return;
  }
#endif
  BB_CHECK(device == Device::cpu, "internal: a CUDA staging block in a build without CUDA");
  host_ = static_cast<std::byte*>(std::aligned_alloc(kAlign, bytes_));
  if (!host_) throw std::bad_alloc();
}

StagingBlock::~StagingBlock() {
#ifdef BABYBERTA_HAVE_CUDA
  if (device_ == Device::cuda) {
    cuda::event_destroy(uploaded_);
    cuda::device_free(dev_);
    cuda::pinned_free(host_);
    return;
  }
#endif
  std::free(host_);
}

void StagingBlock::begin_write() {
#ifdef BABYBERTA_HAVE_CUDA
  if (device_ == Device::cuda) cuda::event_wait(uploaded_);
#endif
}

void StagingBlock::upload() {
#ifdef BABYBERTA_HAVE_CUDA
  if (device_ == Device::cuda) {
    cuda::copy_to_device_async(dev_, host_, bytes_);
    cuda::event_record(uploaded_);
  }
#endif
}

}  // namespace bb
