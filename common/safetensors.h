// safetensors I/O (https://huggingface.co/docs/safetensors): 8-byte little-endian header length,
// a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the data.
// Reading validates the header, dtypes, shapes against byte sizes and offsets against the file:
// the header length is bounded by the file size and 100 MiB, shapes are non-negative with an
// element count that cannot overflow, every tensor's bytes [begin, end) lie in the data section,
// hold exactly numel * dtype size bytes and overlap no other tensor's. Every failure is one line
// naming the file (and tensor and field).
// Integrity: files we write record the sha256 (hex) of the data section in __metadata__ under
// "babyberta_sha256"; reading verifies it when present (files written elsewhere have none).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace bb {

enum class DType { F32, F64, I32, I64 };

struct Tensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::string bytes;  // raw little-endian data
  int64_t numel() const;
  std::vector<float> to_f32() const;    // any float dtype, converted
  std::vector<int32_t> to_i32() const;  // any int dtype, converted
};

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;

  static SafetensorsFile read(const std::filesystem::path& path);
  // Float tensor `name` with exactly `shape`, else a one-line error naming file and tensor.
  const Tensor& expect(const std::string& name, const std::vector<int64_t>& shape) const;
  std::filesystem::path path;
};

struct TensorRef {
  std::string name;
  std::vector<int64_t> shape;
  const float* data;
};
inline constexpr const char* kDigestKey = "babyberta_sha256";

// Writes atomically (temp + rename); metadata always includes "format": "pt" and kDigestKey.
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorRef>& tensors,
                       std::map<std::string, std::string> metadata = {});

std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace bb
