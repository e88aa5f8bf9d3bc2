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

// A request this command, model or machine cannot serve (a model of another kind, bf16 on a CPU
// without it): exit 2 in the CLI, as for a bad flag; babyberta.Error in Python.
struct UsageError : Error {
  using Error::Error;
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

// A UsageError: flags that contradict what is there (a resume with other settings) or ask for
// nothing.
template <typename... Args>
[[noreturn]] void usage_fail(fmt::format_string<Args...> f, Args&&... args) {
  throw UsageError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace bb

// CHECK(cond, fmt, args...): always on, also in release builds.
#define BB_CHECK(cond, ...)      \
  do {                           \
    if (!(cond)) {               \
      ::bb::fail(__VA_ARGS__);   \
    }                            \
  } while (0)
