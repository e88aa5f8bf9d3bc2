#include "runs/run_settings.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/hash.h"

namespace bb {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

void write_run_settings(const fs::path& dir, const ojson& settings) {
  write_file_atomic(dir / "run.json",
                    ojson{{"settings", settings}, {"sessions", ojson::array()}}.dump(2) + "\n");
}

// DIR/run.json as written by write_run_settings (key order kept), or a one-line error.
static ojson read_run_json(const fs::path& path) {
  const ojson run = ojson::parse(read_file(path), nullptr, /*allow_exceptions=*/false);
  BB_CHECK(run.is_object() && run.contains("settings") && run["settings"].is_object(),
           "{}: not a run settings file (expected JSON with an object \"settings\")", path.string());
  return run;
}

void add_run_session(const fs::path& dir, const ojson& session) {
  const fs::path path = dir / "run.json";
  ojson run = read_run_json(path);
  if (!run.contains("sessions") || !run["sessions"].is_array()) run["sessions"] = ojson::array();
  run["sessions"].push_back(session);
  write_file_atomic(path, run.dump(2) + "\n");
}

std::optional<ojson> read_run_record(const fs::path& dir) {
  const fs::path path = dir / "run.json";
  if (!fs::exists(path)) return std::nullopt;
  return read_run_json(path);
}

std::optional<ojson> read_run_settings(const fs::path& dir) {
  const auto record = read_run_record(dir);
  if (!record) return std::nullopt;
  return (*record)["settings"];
}

std::optional<RunPlan> read_run_plan(const fs::path& dir) {
  const auto settings = read_run_settings(dir);
  if (!settings) return std::nullopt;
  RunPlan plan{.steps = std::nullopt, .recipe = settings->value(flag_name::recipe, "babyberta")};
  if (settings->contains(flag_name::steps) && (*settings)[flag_name::steps].is_number_integer())
    plan.steps = (*settings)[flag_name::steps].get<int64_t>();
  return plan;
}

std::string settings_fingerprint(const ojson& settings) {
  return sha256_hex(nlohmann::json(settings).dump());  // keys sorted: independent of their order
}

std::vector<std::string> settings_differences(const ojson& saved, const ojson& now,
                                              const std::string& what_saved) {
  std::vector<std::string> out;
  auto show = [](const ojson& j, const std::string& key) {
    if (!j.contains(key)) return std::string("(not set)");
    const ojson& v = j.at(key);
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  for (const auto& [key, value] : now.items())
    if (!saved.contains(key) || saved.at(key) != value)
      out.push_back(fmt::format("{}: {} {}, now {}", key, what_saved, show(saved, key),
                                show(now, key)));
  for (const auto& [key, value] : saved.items())
    if (!now.contains(key))
      out.push_back(fmt::format("{}: {} {}, now (not set)", key, what_saved, show(saved, key)));
  return out;
}

}  // namespace bb
