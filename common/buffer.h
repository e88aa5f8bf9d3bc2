// Buffer<T>: a std::vector whose storage is 64-byte aligned. Vectorised reductions (Eigen's, the
// BLAS's) peel their first iterations up to an aligned address, so the summation order depends on
// the address mod the vector width; with every buffer aligned alike, results depend only on the
// data: two models (or two processes) given the same seed agree bit for bit.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace bb {

template <typename T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr size_t kAlign = 64;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, bytes == 0 ? kAlign : bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <typename T>
using Buffer = std::vector<T, AlignedAllocator<T>>;

}  // namespace bb
