#include "common/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json_read.h"

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

namespace {

// The header may be at most 100 MiB (the limit of HF's own reader): a corrupt length cannot make
// us parse, or allocate for, more than that.
constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;

// `v` as JSON text, cut to 60 characters for a one-line message.
std::string short_dump(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// `s` with control characters (a newline in a tensor name) shown as '?': messages stay one line.
std::string printable(std::string s) {
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return s;
}

// Tensor `name`'s place in the data section: bytes [begin, end).
struct Span {
  uint64_t begin, end;
  std::string name;
};

// shape = [d0, d1, ...], every d a non-negative integer; numel = prod(d) checked for overflow.
std::vector<int64_t> parse_shape(const json& v, const std::string& tw, int64_t& numel) {
  BB_CHECK(v.is_array(), "{}: field \"shape\" must be an array of integers, got {}", tw,
           short_dump(v));
  std::vector<int64_t> shape;
  numel = 1;
  for (const json& d : v) {
    BB_CHECK(d.is_number_unsigned() && d.get<uint64_t>() <= uint64_t(INT64_MAX),
             "{}: field \"shape\" must hold non-negative integers, got {}", tw, short_dump(v));
    shape.push_back(d.get<int64_t>());
    BB_CHECK(!__builtin_mul_overflow(numel, shape.back(), &numel),
             "{}: shape {} has too many elements", tw, short_dump(v));
  }
  return shape;
}

// One header entry {dtype, shape, data_offsets}: types, sizes and bounds checked against the
// data_len bytes of the data section.
Tensor parse_entry(const json& info, const std::string& where, const std::string& name,
                   uint64_t data_len, Span& span) {
  const std::string tw = where + ": tensor " + printable(name);
  BB_CHECK(info.is_object(), "{}: entry must be an object, got {}", tw, short_dump(info));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    BB_CHECK(info.contains(key), "{}: missing field \"{}\"", tw, key);
  const json& dtype = info["dtype"];
  BB_CHECK(dtype.is_string(), "{}: field \"dtype\" must be a string, got {}", tw,
           short_dump(dtype));
  Tensor t;
  t.dtype = parse_dtype(printable(dtype.get<std::string>()), tw);
  int64_t numel = 0, nbytes = 0;
  t.shape = parse_shape(info["shape"], tw, numel);
  BB_CHECK(!__builtin_mul_overflow(numel, int64_t(dtype_size(t.dtype)), &nbytes),
           "{}: shape {} has too many elements", tw, shape_str(t.shape));
  const json& off = info["data_offsets"];
  BB_CHECK(off.is_array() && off.size() == 2 && off[0].is_number_unsigned() &&
               off[1].is_number_unsigned(),
           "{}: field \"data_offsets\" must be [begin, end] (non-negative integers), got {}", tw,
           short_dump(off));
  const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
  BB_CHECK(begin <= end && end <= data_len,
           "{}: data_offsets [{}, {}] outside the {} data bytes (file truncated?)", tw, begin,
           end, data_len);
  BB_CHECK(end - begin == uint64_t(nbytes), "{}: {} bytes for shape {} (expected {})", tw,
           end - begin, shape_str(t.shape), nbytes);
  span = {begin, end, name};
  return t;
}

// No byte of the data section may belong to two tensors.
void check_no_overlap(std::vector<Span> spans, const std::string& where) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t i = 1; i < spans.size(); ++i)
    BB_CHECK(spans[i].begin >= spans[i - 1].end,
             "{}: tensor {}: data_offsets [{}, {}] overlap tensor {}'s [{}, {}]", where,
             printable(spans[i].name), spans[i].begin, spans[i].end, printable(spans[i - 1].name),
             spans[i - 1].begin, spans[i - 1].end);
}

// The 8-byte header length, bounded by the file size and kMaxHeaderBytes.
uint64_t header_length(const std::string& file, const std::string& where) {
  BB_CHECK(file.size() >= 8, "{}: truncated safetensors file ({} bytes, expected at least 8)",
           where, file.size());
  uint64_t header_len = 0;
  std::memcpy(&header_len, file.data(), 8);
  BB_CHECK(header_len <= file.size() - 8,
           "{}: header length {} exceeds file size {} (truncated or not safetensors)", where,
           header_len, file.size());
  BB_CHECK(header_len <= kMaxHeaderBytes, "{}: header length {} exceeds the limit of {} bytes",
           where, header_len, kMaxHeaderBytes);
  return header_len;
}

}  // namespace

SafetensorsFile SafetensorsFile::read(const std::filesystem::path& path) {
  const std::string file = read_file(path);
  const std::string where = path.string();
  const uint64_t header_len = header_length(file, where);
  json header;
  try {
    header = json::parse(file.substr(8, header_len));
  } catch (const json::exception& e) {
    fail("{}: header is not valid JSON ({})", where, json_error_text(e));
  }
  BB_CHECK(header.is_object(), "{}: header is not a JSON object", where);
  const std::string_view data = std::string_view(file).substr(8 + header_len);
  SafetensorsFile out;
  out.path = path;
  std::vector<Span> spans;
  for (auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      BB_CHECK(info.is_object(), "{}: __metadata__ must be an object, got {}", where,
               short_dump(info));
      for (auto& [k, v] : info.items())
        if (v.is_string()) out.metadata[k] = v.get<std::string>();
      continue;
    }
    spans.emplace_back();
    out.tensors.emplace(name, parse_entry(info, where, name, data.size(), spans.back()));
  }
  check_no_overlap(spans, where);
  if (const auto it = out.metadata.find(kDigestKey); it != out.metadata.end())
    BB_CHECK(sha256_hex(data) == it->second, "{}: data section sha256 mismatch (file corrupted?)",
             where);
  for (const Span& s : spans)
    out.tensors[s.name].bytes = std::string(data.substr(s.begin, s.end - s.begin));
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
  std::string data;
  json entries = json::object();
  for (const auto& t : tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    const uint64_t begin = data.size();
    data.append(reinterpret_cast<const char*>(t.data), size_t(n) * 4);
    entries[t.name] = {
        {"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  metadata["format"] = "pt";
  metadata[kDigestKey] = sha256_hex(data);
  json header = entries;
  header["__metadata__"] = metadata;
  std::string head = header.dump();
  head.append((8 - head.size() % 8) % 8, ' ');  // align data to 8 bytes, as the spec suggests
  std::string bytes(8, '\0');
  const uint64_t len = head.size();
  std::memcpy(bytes.data(), &len, 8);
  bytes.reserve(8 + head.size() + data.size());
  bytes += head;
  bytes += data;
  write_file_atomic(path, bytes);
}

}  // namespace bb
