// Errors and always-on checks. Every failure a user can cause is a bb::Error whose message is one
// line naming the file (or input) and what was expected; main() prints it and exits non-zero.
#pragma once
#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace bb {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace bb

// CHECK(cond, fmt, args...): always on, also in release builds.
#define BB_CHECK(cond, ...)      \
  do {                           \
    if (!(cond)) {               \
      ::bb::fail(__VA_ARGS__);   \
    }                            \
  } while (0)
