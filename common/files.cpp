#include "common/files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <regex>

#include "common/error.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

// Closes a POSIX file descriptor on every path out of a scope.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void fsync_path(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void fsync_parent(const fs::path& p) {
  fsync_path(p.parent_path().empty() ? fs::path(".") : p.parent_path(), O_RDONLY | O_DIRECTORY);
}

// Writes `bytes` to a new file `tmp` and makes them durable; `shown` names the file in errors.
void write_durably(const fs::path& tmp, std::string_view bytes, const std::string& shown) {
  Fd f(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  BB_CHECK(f.fd >= 0, "{}: cannot open for writing ({})", shown, std::strerror(errno));
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(f.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    BB_CHECK(n > 0, "{}: write failed ({})", shown, std::strerror(n < 0 ? errno : EIO));
    done += size_t(n);
  }
  BB_CHECK(::fsync(f.fd) == 0, "{}: write failed at fsync ({})", shown, std::strerror(errno));
  const int fd = f.fd;
  f.fd = -1;
  BB_CHECK(::close(fd) == 0, "{}: write failed at close ({})", shown, std::strerror(errno));
}

// NAME.tmp.PID or NAME.old.PID: [1] NAME, [2] tmp|old, [3] PID.
const std::regex& temporary_pattern() {
  static const std::regex re(R"(^(.+)\.(tmp|old)\.([0-9]{1,9})$)");
  return re;
}

// Whether process `pid` may still be running (and so may still be writing its temporary).
bool process_alive(long pid) {
  if (pid <= 0) return false;
  if (pid == long(::getpid())) return true;
  return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::string read_file(const fs::path& path) {
  const std::string p = path.string();
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  BB_CHECK(f.fd >= 0, "{}: cannot open for reading ({})", p, std::strerror(errno));
  struct stat st {};
  BB_CHECK(::fstat(f.fd, &st) == 0, "{}: cannot read: {}", p, std::strerror(errno));
  BB_CHECK(!S_ISDIR(st.st_mode), "{}: is a directory, expected a file", p);
  BB_CHECK(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode),
           "{}: not a regular file (a device or socket), expected a file", p);
  std::string bytes;
  try {
    if (S_ISREG(st.st_mode)) bytes.reserve(size_t(st.st_size));
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(f.fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      BB_CHECK(n >= 0, "{}: cannot read: {}", p, std::strerror(errno));
      if (n == 0) break;
      bytes.append(buf, size_t(n));
    }
  } catch (const std::bad_alloc&) {
    fail("{}: cannot read: too large to hold in memory ({} bytes)", p, bytes.size());
  } catch (const std::length_error&) {
    fail("{}: cannot read: too large to hold in memory ({} bytes)", p, bytes.size());
  }
  return bytes;
}

namespace {

// An existing path that is neither a file nor a directory (a symbolic link counts as what it
// points to): a FIFO, a device or a socket.
bool is_special_file(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  BB_CHECK(!is_special_file(path),
           "{}: not a regular file (a FIFO, device or socket); not replaced", path.string());
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  try {
    write_durably(tmp, bytes, path.string());
    std::error_code ec;
    fs::rename(tmp, path, ec);
    BB_CHECK(!ec, "{}: cannot rename {} into place ({})", path.string(), tmp.string(),
             ec.message());
  } catch (...) {
    ::unlink(tmp.c_str());  // a failed write leaves nothing behind
    throw;
  }
  fsync_parent(path);
}

void check_output_spares(const fs::path& out, const std::vector<ReadPath>& reads,
                         std::string_view flag) {
  if (is_special_file(out))
    usage_fail("{} {}: not a regular file (a FIFO, device or socket); expected a file name", flag,
               out.string());
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(out, ec);
  if (ec) return;  // an unreadable path: the write itself reports it
  for (const ReadPath& r : reads) {
    const fs::path in = fs::weakly_canonical(r.path, ec);
    if (ec) continue;
    if (fs::is_directory(in, ec)) {
      if (target.parent_path() == in)
        usage_fail("{} {}: is inside the {} directory {} (it would add to or overwrite that "
                   "directory's files; expected a path outside it)",
                   flag, out.string(), r.flag, r.path.string());
    } else if (target == in) {
      usage_fail("{} {}: is the {} input {} (it would be overwritten; expected another file)",
                 flag, out.string(), r.flag, r.path.string());
    }
  }
}

void replace_directory(const fs::path& tmp, const fs::path& dst) {
  std::error_code ec, ignored;
  fs::path old;
  // Move the old one aside first: rename cannot replace a non-empty directory.
  if (fs::exists(dst, ignored)) {
    old = dst.string() + ".old." + std::to_string(::getpid());
    fs::rename(dst, old, ec);
    if (ec) {
      fs::remove_all(tmp, ignored);
      fail("{}: cannot move aside ({})", dst.string(), ec.message());
    }
  }
  fs::rename(tmp, dst, ec);
  if (ec) {
    fs::remove_all(tmp, ignored);
    if (!old.empty()) fs::rename(old, dst, ignored);  // put the previous one back
    fail("{}: cannot rename {} into place ({})", dst.string(), tmp.string(), ec.message());
  }
  fsync_parent(dst);
  if (!old.empty()) fs::remove_all(old, ignored);
}

bool is_temporary_name(const std::string& name) {
  return std::regex_match(name, temporary_pattern());
}

std::vector<fs::path> files_ending_with(const fs::path& dir, std::string_view suffix,
                                        const std::function<bool(const fs::path&)>& skip) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().ends_with(suffix) &&
        !(skip && skip(e.path())))
      found.push_back(e.path());
  std::sort(found.begin(), found.end());
  return found;
}

int remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  int count = 0;
  for (const fs::path& e : entries) {
    const std::string name = e.filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, temporary_pattern()) || process_alive(std::stol(m[3]))) continue;
    std::error_code rc;
    const fs::path base = dir / m[1].str();
    if (m[2] == "old" && !fs::exists(base, rc))
      fs::rename(e, base, rc);  // the replacement never arrived: the moved-aside one is current
    else
      fs::remove_all(e, rc);
    if (!rc) ++count;
  }
  return count;
}

}  // namespace bb
