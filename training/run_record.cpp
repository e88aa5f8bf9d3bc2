#include "training/run_record.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// DIR/run.json as an object (key order kept), or a one-line error.
ojson read_run_object(const fs::path& path) {
  const ojson run = ojson::parse(read_file(path), nullptr, /*allow_exceptions=*/false);
  BB_CHECK(run.is_object(), "{}: not a run record (expected a JSON object)", path.string());
  return run;
}

std::string shown(const ojson& j, const std::string& key) {
  if (!j.contains(key)) return "(not set)";
  const ojson& v = j.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void differences(const ojson& saved, const ojson& now, const std::string& what_saved,
                 const std::string& prefix, std::vector<std::string>& out) {
  auto skip = [&](const std::string& key) { return prefix.empty() && key == "sessions"; };
  for (const auto& [key, value] : now.items()) {
    if (skip(key)) continue;
    if (saved.contains(key) && saved.at(key).is_object() && value.is_object())
      differences(saved.at(key), value, what_saved, prefix + key + ".", out);
    else if (!saved.contains(key) || saved.at(key) != value)
      out.push_back(fmt::format("{}{}: {} {}, now {}", prefix, key, what_saved, shown(saved, key),
                                shown(now, key)));
  }
  for (const auto& [key, value] : saved.items())
    if (!now.contains(key) && !skip(key))
      out.push_back(fmt::format("{}{}: {} {}, now (not set)", prefix, key, what_saved,
                                shown(saved, key)));
}

}  // namespace

void write_run_settings(const fs::path& dir, const ojson& settings) {
  write_file_atomic(dir / "run.json",
                    ojson{{"settings", settings}, {"sessions", ojson::array()}}.dump(2) + "\n");
}

void record_run_session(const fs::path& dir, const ojson& session) {
  const fs::path path = dir / "run.json";
  ojson run = read_run_object(path);
  if (!run.contains("sessions") || !run["sessions"].is_array()) run["sessions"] = ojson::array();
  if (!run["sessions"].empty()) {
    const ojson& last = run["sessions"].back();
    const int threads = session.value("threads", 0);
    // bf16's bits depend on the kernel oneDNN picks and on the thread count: no other resumes.
    if (session.value("precision", std::string("fp32")) == "bf16") {
      auto where = [](const ojson& s) {
        return fmt::format("{} ({}) on {} thread{}", s.value("kernel", std::string("?")),
                           s.value("blas", std::string("?")), s.value("threads", 0),
                           s.value("threads", 0) == 1 ? "" : "s");
      };
      BB_CHECK(where(last) == where(session),
               "{}: a bf16 run resumes only on the kernels and thread count of its last session "
               "(its bits depend on both): it ran on {}, this session would run on {}",
               dir.string(), where(last), where(session));
    }
    warn_if_session_differs(dir, last.value("blas", std::string()), last.value("threads", threads),
                            session.value("blas", std::string()), threads);
  }
  run["sessions"].push_back(session);
  write_file_atomic(path, run.dump(2) + "\n");
}

std::optional<ojson> read_run_record(const fs::path& dir) {
  const fs::path path = dir / "run.json";
  if (!fs::exists(path)) return std::nullopt;
  const ojson run = read_run_object(path);
  BB_CHECK(run.contains("settings") && run["settings"].is_object(),
           "{}: not a run settings file (expected JSON with an object \"settings\")", path.string());
  return run;
}

std::optional<ojson> read_run_settings(const fs::path& dir) {
  const auto record = read_run_record(dir);
  if (!record) return std::nullopt;
  return (*record)["settings"];
}

std::string settings_fingerprint(const ojson& settings) {
  return sha256_hex(nlohmann::json(settings).dump());  // keys sorted: independent of their order
}

std::vector<std::string> settings_differences(const ojson& saved, const ojson& now,
                                              const std::string& what_saved) {
  std::vector<std::string> out;
  differences(saved, now, what_saved, "", out);
  return out;
}

void warn_if_session_differs(const fs::path& out, const std::string& was, int was_threads,
                             const std::string& blas, int threads) {
  if (!was.empty() && was != blas)
    fmt::print(stderr, "babyberta: warning: {}: its last session ran on \"{}\", this one on \"{}\"; "
               "training continues correctly, but not bit for bit as an uninterrupted run\n",
               out.string(), was, blas);
  else if (was_threads != threads)
    fmt::print(stderr, "babyberta: warning: {}: its last session ran on {} threads, this one on {}; "
               "training continues correctly, but not bit for bit as an uninterrupted run\n",
               out.string(), was_threads, threads);
}

}  // namespace bb
