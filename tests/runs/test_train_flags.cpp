// The training-flag table (runs/train_flags.h): a run's settings survive the round trip through
// a child's command line, the table's roles decide what run.json records, and the settings that
// older binaries recorded (the committed 40k-step results, made before --dev-seed, --schedule and
// the table existed) come out of today's table with the same fingerprints.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/json_read.h"
#include "runs/run_settings.h"
#include "runs/train_flags.h"
#include "runs/train_run.h"

using namespace bb;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

const fs::path kOldResults = fs::path(BB_SOURCE_DIR) / "results" / "zorro-aochildes-ssa-recipe-40k";

TrainArgs parsed(std::vector<std::string> args) {
  args.insert(args.begin(), "train");
  for (const char* required : {"--corpus", "--out"})
    if (std::find(args.begin(), args.end(), required) == args.end())
      args.insert(args.end(), {required, "unused"});
  return parse_train_args(args);
}

// `recorded` (run.json's settings) as the command line that made them: a value flag with its
// value, a recorded switch given when true; the content fingerprints are not flags.
std::vector<std::string> command_line_of(const ojson& recorded) {
  std::vector<std::string> args;
  for (const auto& [key, value] : recorded.items()) {
    if (key.find(" (sha256)") != std::string::npos || key == "corpus") continue;
    if (value.is_boolean()) {
      if (value.get<bool>()) args.push_back(key);
      continue;
    }
    args.push_back(key);
    args.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  return args;
}

}  // namespace

TEST_CASE("train flags: a run's settings survive its child command line (to_args, parse)") {
  const TrainArgs a = parsed({"--attention", "ssa", "--lr", "0.0003", "--seed", "7", "--steps",
                              "1200", "--schedule", "wsd", "--decay-steps", "200",
                              "--no-bias-correction", "--ssa-n-init", "2", "--ssa-freeze-n",
                              "--keep-checkpoints", "all", "--recipe", "ssa-paper",
                              "--dev-seed", "3", "--mask-prob", "0.2", "--threads", "2"});
  const std::vector<std::string> args = to_args(a);
  const TrainArgs b = parse_train_args(args);
  CHECK(to_args(b) == args);
  CHECK(train_settings(b, "c", "t") == train_settings(a, "c", "t"));
  CHECK(b.keep_checkpoints == 0);  // `all`
  CHECK(!b.optim.bias_correction);
  CHECK(b.threads == 2);
}

TEST_CASE("train flags: run.json records the math flags, not those that may change on resume") {
  const ojson s = train_settings(parsed({}), "corpus-sha", "tokenizer-sha");
  for (const char* math : {"--lr", "--seed", "--steps", "--attention", "--mask-prob"})
    CHECK_MESSAGE(s.contains(math), math);
  // The recipe enters only when not the default (runs made before --recipe existed match).
  CHECK(!s.contains("--recipe"));
  CHECK(train_settings(parsed({"--recipe", "ssa-paper"}), "c", "t").at("--recipe") == "ssa-paper");
  for (const char* resumable : {"--threads", "--device", "--eval-every", "--keep-checkpoints"}) {
    CHECK_MESSAGE(!s.contains(resumable), resumable);
    CHECK(resumable_flags().find(resumable) != std::string::npos);
  }
  CHECK(s.at("--corpus (sha256)") == "corpus-sha");
  // Flags added after runs existed enter run.json only where they change the run.
  CHECK(!s.contains("--schedule"));
  CHECK(train_settings(parsed({"--schedule", "constant"}), "c", "t").at("--schedule") == "constant");
  // A recipe sets the flags not given; a given one wins.
  CHECK(parsed({"--recipe", "ssa-paper"}).optim.weight_decay == 0.0);
  CHECK(parsed({"--recipe", "ssa-paper", "--weight-decay", "0.05"}).optim.weight_decay == 0.05);
}

TEST_CASE("train flags: settings an older binary recorded get the same fingerprints today") {
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kOldResults)) {
    const fs::path settings_file = e.path();
    const std::string name = settings_file.filename().string();
    if (name.size() < 14 || name.substr(name.size() - 14) != ".settings.json") continue;
    const fs::path result = kOldResults / (name.substr(0, name.size() - 14) + ".json");
    const ojson recorded = ojson::parse(read_file(result)).at("training");
    CAPTURE(result.string());
    ojson saved = recorded;
    saved.erase("corpus");  // probe's addition: the last session's corpus path
    TrainArgs a = parsed(command_line_of(saved));
    keep_recorded_dev_split(a, saved);  // as train --resume and experiment read an older run
    const ojson now = train_settings(a, saved.at("--corpus (sha256)").get<std::string>(),
                                     saved.at("--tokenizer (sha256)").get<std::string>());
    CHECK(settings_differences(saved, now, "recorded").empty());
    CHECK(nlohmann::json(now) == nlohmann::json(saved));  // probe wrote the keys sorted
    CHECK(settings_fingerprint(now) ==
          ojson::parse(read_file(settings_file)).at("run").get<std::string>());
    ++checked;
  }
  CHECK(checked >= 7);  // one run per attention function at least
}
