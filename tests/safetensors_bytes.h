// Raw safetensors files for tests: bytes from a header JSON and a data section, and back.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace bb::test {

// 8-byte little-endian header length, the header, the data section.
inline std::string safetensors_bytes(const nlohmann::json& header, const std::string& data) {
  const std::string head = header.dump();
  std::string out(8, '\0');
  const uint64_t n = head.size();
  std::memcpy(out.data(), &n, 8);
  return out + head + data;
}

struct SafetensorsParts {
  nlohmann::json header;
  std::string data;
};

// The inverse of safetensors_bytes for a well-formed file.
inline SafetensorsParts split_safetensors(const std::string& bytes) {
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  return {nlohmann::json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
}

}  // namespace bb::test
