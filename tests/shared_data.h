// Tests that read the real data sets in ../shared/data (BB_SHARED_DATA, set by tests/CMakeLists).
#pragma once
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>

namespace bb::test {

// BB_SHARED_DATA/relative if it exists; else a doctest MESSAGE "skipped: ../shared/data not
// found (PATH)" and nullopt, so the caller returns.
inline std::optional<std::filesystem::path> shared_data(const std::string& relative) {
  const std::filesystem::path p = std::filesystem::path(BB_SHARED_DATA) / relative;
  if (std::filesystem::exists(p)) return p;
  MESSAGE("skipped: ../shared/data not found (" << p.string() << ")");
  return std::nullopt;
}

}  // namespace bb::test
