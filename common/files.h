// File helpers: whole-file reads with clear errors, and atomic replacement (temp + fsync + rename)
// so that a crash at any moment leaves either the old or the new file, never a torn one.
// Temporary names: FILE.tmp.PID (a file being written), DIR.tmp.PID or .DIR.tmp.PID (a directory
// being built), DIR.old.PID (a directory moved aside while its replacement is renamed in). A
// failed write removes its temporary before throwing; remove_stale_temporaries() removes those a
// crashed process left behind.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bb {

// The whole file. Errors: "PATH: is a directory, expected a file", "PATH: cannot read: <why>",
// and devices (/dev/zero) are refused: "PATH: not a regular file".
std::string read_file(const std::filesystem::path& path);
// Refuses ("PATH: not a regular file ...") to replace an existing FIFO, device or socket.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// What a command reads, for check_output_spares: the flag that names it and its path (a file, or
// a directory standing for every file directly in it: a model or run directory, a suite).
struct ReadPath {
  std::string flag;
  std::filesystem::path path;
};
// Before any work, for a file `out` that a command will write (given by `flag`): a usage error
// (exit 2) naming both when `out` is one of `reads`' files or lies directly inside one of its
// directories (a results file must not replace a model's weights, config or run.json, nor join a
// suite's files), or when it is an existing FIFO, device or socket (the write would replace it).
void check_output_spares(const std::filesystem::path& out, const std::vector<ReadPath>& reads,
                         std::string_view flag = "--out");
// Renames a fully written directory `tmp` onto `dst`, replacing an existing `dst`. On failure
// `tmp` is removed and a `dst` moved aside is put back.
void replace_directory(const std::filesystem::path& tmp, const std::filesystem::path& dst);

// Whether `name` is one of our temporary names (NAME.tmp.PID or NAME.old.PID).
bool is_temporary_name(const std::string& name);
// The regular files in `dir` whose name ends with `suffix` (".json"), sorted by path, less those
// `skip` names; for commands that take a directory to stand for its files.
std::vector<std::filesystem::path> files_ending_with(
    const std::filesystem::path& dir, std::string_view suffix,
    const std::function<bool(const std::filesystem::path&)>& skip = {});
// Removes the temporaries in `dir` (not recursive) whose process is gone: NAME.tmp.PID files and
// directories; NAME.old.PID is removed when NAME exists and renamed back to NAME when it does not
// (a crash between moving NAME aside and renaming its replacement in). A missing `dir` is fine.
// Returns the number of entries removed or restored.
int remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace bb
