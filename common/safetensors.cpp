#include "common/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstring>

#include "common/error.h"
#include "common/files.h"

namespace bb {

using json = nlohmann::json;

static int dtype_size(DType d) { return (d == DType::F32 || d == DType::I32) ? 4 : 8; }

static DType parse_dtype(const std::string& s, const std::string& where) {
  if (s == "F32") return DType::F32;
  if (s == "F64") return DType::F64;
  if (s == "I32") return DType::I32;
  if (s == "I64") return DType::I64;
  fail("{}: unsupported dtype {} (expected F32, F64, I32 or I64)", where, s);
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

template <typename Out, typename In>
static std::vector<Out> convert(const std::string& bytes, int64_t n) {
  std::vector<Out> out(n);
  for (int64_t i = 0; i < n; ++i) {
    In v;
    std::memcpy(&v, bytes.data() + i * sizeof(In), sizeof(In));
    out[i] = Out(v);
  }
  return out;
}

std::vector<float> Tensor::to_f32() const {
  if (dtype == DType::F32) return convert<float, float>(bytes, numel());
  if (dtype == DType::F64) return convert<float, double>(bytes, numel());
  fail("tensor is integer, expected a float dtype");
}

std::vector<int32_t> Tensor::to_i32() const {
  if (dtype == DType::I32) return convert<int32_t, int32_t>(bytes, numel());
  if (dtype == DType::I64) return convert<int32_t, int64_t>(bytes, numel());
  fail("tensor is float, expected an integer dtype");
}

SafetensorsFile SafetensorsFile::read(const std::filesystem::path& path) {
  const std::string file = read_file(path);
  const std::string where = path.string();
  BB_CHECK(file.size() >= 8, "{}: truncated safetensors file ({} bytes, expected at least 8)",
           where, file.size());
  uint64_t header_len = 0;
  std::memcpy(&header_len, file.data(), 8);
  BB_CHECK(header_len <= file.size() - 8,
           "{}: header length {} exceeds file size {} (truncated or not safetensors)", where,
           header_len, file.size());
  json header;
  try {
    header = json::parse(file.substr(8, header_len));
  } catch (const json::exception& e) {
    fail("{}: header is not valid JSON at byte {}: {}", where, 8, e.what());
  }
  BB_CHECK(header.is_object(), "{}: header is not a JSON object", where);
  const size_t data_start = 8 + header_len;
  const uint64_t data_len = file.size() - data_start;
  SafetensorsFile out;
  out.path = path;
  for (auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      for (auto& [k, v] : info.items())
        if (v.is_string()) out.metadata[k] = v.get<std::string>();
      continue;
    }
    const std::string tw = where + ": tensor " + name;
    BB_CHECK(info.is_object() && info.contains("dtype") && info.contains("shape") &&
                 info.contains("data_offsets"),
             "{}: missing dtype, shape or data_offsets", tw);
    Tensor t;
    t.dtype = parse_dtype(info["dtype"].get<std::string>(), tw);
    for (auto& d : info["shape"]) {
      BB_CHECK(d.is_number_integer() && d.get<int64_t>() >= 0, "{}: bad shape entry", tw);
      t.shape.push_back(d.get<int64_t>());
    }
    const auto& off = info["data_offsets"];
    BB_CHECK(off.is_array() && off.size() == 2, "{}: data_offsets must be [begin, end]", tw);
    const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
    BB_CHECK(begin <= end && end <= data_len,
             "{}: data_offsets [{}, {}] outside the {} data bytes (file truncated?)", tw, begin,
             end, data_len);
    BB_CHECK(end - begin == uint64_t(t.numel() * dtype_size(t.dtype)),
             "{}: {} bytes for shape {} (expected {})", tw, end - begin, shape_str(t.shape),
             t.numel() * dtype_size(t.dtype));
    t.bytes = file.substr(data_start + begin, end - begin);
    out.tensors.emplace(name, std::move(t));
  }
  return out;
}

const Tensor& SafetensorsFile::expect(const std::string& name,
                                      const std::vector<int64_t>& shape) const {
  auto it = tensors.find(name);
  BB_CHECK(it != tensors.end(), "{}: missing tensor {}", path.string(), name);
  BB_CHECK(it->second.shape == shape, "{}: tensor {} has shape {}, expected {}", path.string(),
           name, shape_str(it->second.shape), shape_str(shape));
  BB_CHECK(it->second.dtype == DType::F32 || it->second.dtype == DType::F64,
           "{}: tensor {} is not a float tensor", path.string(), name);
  return it->second;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorRef>& tensors,
                       std::map<std::string, std::string> metadata) {
  metadata["format"] = "pt";
  json header = json::object();
  header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape},
                      {"data_offsets", {offset, offset + uint64_t(n) * 4}}};
    offset += uint64_t(n) * 4;
  }
  std::string head = header.dump();
  head.append((8 - head.size() % 8) % 8, ' ');  // align data to 8 bytes, as the spec suggests
  std::string bytes(8, '\0');
  const uint64_t len = head.size();
  std::memcpy(bytes.data(), &len, 8);
  bytes += head;
  bytes.reserve(bytes.size() + offset);
  for (const auto& t : tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    bytes.append(reinterpret_cast<const char*>(t.data), size_t(n) * 4);
  }
  write_file_atomic(path, bytes);
}

}  // namespace bb
