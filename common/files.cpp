#include "common/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/error.h"

namespace bb {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BB_CHECK(in.good(), "{}: cannot open for reading ({})", path.string(), std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BB_CHECK(!in.bad(), "{}: read error", path.string());
  return bytes;
}

static void fsync_path(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    BB_CHECK(out.good(), "{}: cannot open for writing ({})", tmp.string(), std::strerror(errno));
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    BB_CHECK(out.good(), "{}: write failed ({})", tmp.string(), std::strerror(errno));
  }
  fsync_path(tmp, O_RDONLY);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  BB_CHECK(!ec, "{}: cannot rename {} into place ({})", path.string(), tmp.string(), ec.message());
  fsync_path(path.parent_path().empty() ? fs::path(".") : path.parent_path(), O_RDONLY | O_DIRECTORY);
}

void replace_directory(const fs::path& tmp, const fs::path& dst) {
  std::error_code ec;
  fs::path old;
  if (fs::exists(dst)) {  // move the old one aside first: rename cannot replace a non-empty dir
    old = dst.string() + ".old." + std::to_string(::getpid());
    fs::rename(dst, old, ec);
    BB_CHECK(!ec, "{}: cannot move aside ({})", dst.string(), ec.message());
  }
  fs::rename(tmp, dst, ec);
  BB_CHECK(!ec, "{}: cannot rename {} into place ({})", dst.string(), tmp.string(), ec.message());
  fsync_path(dst.parent_path(), O_RDONLY | O_DIRECTORY);
  if (!old.empty()) fs::remove_all(old);
}

}  // namespace bb
