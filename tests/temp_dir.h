// A fresh temporary directory per test, removed afterwards.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace bb::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("bbtest-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace bb::test
