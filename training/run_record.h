// A run directory's run.json, for every model kind: the settings that change the run's math (a
// resume must match them), and one "sessions" entry per start or resume saying what computed that
// part of the run (from_step, threads, device, blas, ...). A kind keeps its settings in its own
// keys (train: {"settings": {...}}; icl train: {"kind", "config", "train"}); "sessions" is
// everyone's and never part of the comparison. Every write is atomic.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bb {

// DIR/run.json = {"settings": settings, "sessions": []}: how train records a new run.
void write_run_settings(const std::filesystem::path& dir, const nlohmann::ordered_json& settings);
// Appends `session` to DIR/run.json's "sessions" (any kind's run.json). A session computed by other
// kernels (`session["blas"]`) or another thread count (`session["threads"]`) than the last one is
// warned of: the run continues correctly, but not bit for bit as an uninterrupted run would. A
// bf16 session (`session["precision"]`) must match the last one's kernel, BLAS and threads.
void record_run_session(const std::filesystem::path& dir, const nlohmann::ordered_json& session);
// DIR/run.json's settings ({"settings": ...}), if the run has recorded any.
std::optional<nlohmann::ordered_json> read_run_settings(const std::filesystem::path& dir);
// DIR/run.json whole ({"settings": ..., "sessions": [...]}), or nullopt when there is none.
std::optional<nlohmann::ordered_json> read_run_record(const std::filesystem::path& dir);
// sha256 of the settings with sorted keys: what a probe result records of the run it probed.
std::string settings_fingerprint(const nlohmann::ordered_json& settings);
// One "KEY: WHAT_SAVED A, now B" entry per differing setting (a key missing on one side counts as
// differing and shows "(not set)"); objects on both sides are compared key by key ("train.lr").
// A top-level "sessions" is ignored.
std::vector<std::string> settings_differences(const nlohmann::ordered_json& saved,
                                              const nlohmann::ordered_json& now,
                                              const std::string& what_saved);
// A resumed session's warning when it computes on other kernels or threads than the last one.
void warn_if_session_differs(const std::filesystem::path& out, const std::string& was,
                             int was_threads, const std::string& blas, int threads);

}  // namespace bb
