// File helpers: whole-file reads with clear errors, and atomic replacement (temp + fsync + rename)
// so that a crash at any moment leaves either the old or the new file, never a torn one.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace bb {

std::string read_file(const std::filesystem::path& path);
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);
// Renames a fully written directory `tmp` onto `dst`, replacing an existing `dst`.
void replace_directory(const std::filesystem::path& tmp, const std::filesystem::path& dst);

}  // namespace bb
