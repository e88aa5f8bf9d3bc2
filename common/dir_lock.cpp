#include "common/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"

namespace bb {

namespace fs = std::filesystem;

DirLock::DirLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  BB_CHECK(!ec, "{}: cannot create directory: {}", dir.string(), ec.message());
  const fs::path path = dir / ".lock";
  // O_CLOEXEC: child processes (experiment's runs) do not inherit the lock.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  BB_CHECK(fd_ >= 0, "{}: cannot open lock file: {}", path.string(), std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    BB_CHECK(err == EWOULDBLOCK, "{}: cannot lock: {}", path.string(), std::strerror(err));
    const std::string pid = n > 0 ? std::string(buf, size_t(n)) : "unknown";
    fail("{}: in use by another babyberta process (PID {}); wait for it to finish or choose "
         "another output directory", dir.string(), pid.substr(0, pid.find_first_of("\n ")));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size()))
    fail("{}: cannot write the lock holder's PID: {}", path.string(), std::strerror(errno));
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace bb
