// The per-step inputs of the ops (batch indices, dropout keys, the AdamW schedule): one block of
// host memory carved into slots, mirrored on the op device. On the CPU the ops read the host
// slots themselves. On CUDA the host block is page-locked and upload() queues one asynchronous
// copy of it on the stream, so nothing in the step waits for the host; begin_write() waits until
// the previous upload has read the block before the host overwrites it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/device.h"

namespace bb {

class StagingBlock {
 public:
  // One slot per entry, of that many bytes (each starts 64-byte aligned).
  StagingBlock(Device device, const std::vector<size_t>& slot_bytes);
  ~StagingBlock();
  StagingBlock(const StagingBlock&) = delete;
  StagingBlock& operator=(const StagingBlock&) = delete;

  void begin_write();
  template <typename T>
  T* host(int slot) {
    return reinterpret_cast<T*>(host_ + offsets_[slot]);
  }
  template <typename T>
  T* device(int slot) {  // where the ops read (or write) the slot
    return reinterpret_cast<T*>((dev_ ? dev_ : host_) + offsets_[slot]);
  }
  template <typename T>
  const T* device(int slot) const {
    return reinterpret_cast<const T*>((dev_ ? dev_ : host_) + offsets_[slot]);
  }
  void upload();

 private:
  Device device_;
  std::vector<size_t> offsets_;
  size_t bytes_ = 0;
  std::byte* host_ = nullptr;  // aligned heap memory on the CPU, pinned on CUDA
  std::byte* dev_ = nullptr;   // CUDA only
  void* uploaded_ = nullptr;   // CUDA event after the last upload
};

}  // namespace bb
