// An exclusive lock on a directory that one process writes (a training run, an experiment):
// flock(2) on DIR/.lock, held until the object dies or the process exits (also by kill -9, so a
// crash never leaves a stale lock). The file holds the holder's PID so that a second process
// can name it in its error.
#pragma once
#include <filesystem>

namespace bb {

class DirLock {
 public:
  // Creates dir if needed; fails at once (one line naming dir and the holder's PID) when another
  // process holds the lock.
  explicit DirLock(const std::filesystem::path& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace bb
