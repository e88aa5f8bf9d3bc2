// The training layer shared by every model kind (training/): run.json's comparison and sessions,
// and the metrics log kept with the checkpoints.
#include <doctest/doctest.h>

#include <fstream>

#include "common/files.h"
#include "temp_dir.h"
#include "training/run_log.h"
#include "training/run_record.h"

namespace bb {

using ojson = nlohmann::ordered_json;
using nlohmann::json;

TEST_CASE("settings_differences names every differing key, nested ones by their path") {
  const ojson saved = {{"kind", "icl"},
                       {"train", {{"lr", 1e-4}, {"batch", 64}, {"ssa_lr_mult", 10.0}}},
                       {"sessions", ojson::array({{{"threads", 1}}})}};
  ojson now = saved;
  now["sessions"] = ojson::array();  // what computed the run is never compared
  CHECK(settings_differences(saved, now, "run.json").empty());
  now["train"]["lr"] = 1e-3;
  now["train"].erase("ssa_lr_mult");
  now["train"]["clip"] = 1.0;
  const auto d = settings_differences(saved, now, "run.json");
  REQUIRE(d.size() == 3);
  CHECK(d[0] == "train.lr: run.json 0.0001, now 0.001");
  CHECK(d[1] == "train.clip: run.json (not set), now 1.0");
  CHECK(d[2] == "train.ssa_lr_mult: run.json 10.0, now (not set)");
  // flat settings (train's) as before
  CHECK(settings_differences(ojson{{"--lr", 1e-4}}, ojson{{"--lr", 2e-4}}, "checkpoint") ==
        std::vector<std::string>{"--lr: checkpoint 0.0001, now 0.0002"});
}

TEST_CASE("record_run_session appends to any kind's run.json and keeps its settings") {
  test::TempDir dir("run-record");
  write_file_atomic(dir.path / "run.json", R"({"kind": "icl", "train": {"lr": 0.0001}})");
  record_run_session(dir.path, {{"from_step", 0}, {"threads", 2}, {"blas", "A"}});
  record_run_session(dir.path, {{"from_step", 5}, {"threads", 1}, {"blas", "A"}});  // warns
  const json run = json::parse(read_file(dir.path / "run.json"));
  CHECK(run["train"]["lr"] == 0.0001);
  REQUIRE(run["sessions"].size() == 2);
  CHECK(run["sessions"][1]["from_step"] == 5);
  write_file_atomic(dir.path / "run.json", "[1, 2]");
  CHECK_THROWS_WITH(record_run_session(dir.path, {{"from_step", 0}}),
                    doctest::Contains("run.json: not a run record (expected a JSON object)"));
}

TEST_CASE("RunLog: a checkpoint's state restores the lines, window and clock") {
  test::TempDir dir("run-log");
  training::RunLog log;
  log.start_clock();
  log.add({{"step", 1}, {"train_loss", 2.5}});
  log.add({{"step", 2}, {"train_loss", 2.0}});
  log.set_window({{"loss_sum", 1.5}, {"loss_n", 1}});
  json state{{"step", 2}};
  log.save_into(state);
  log.write(dir.path);
  CHECK(state["metrics"].size() == 2);
  CHECK(state["elapsed_s"].get<double>() >= 0);

  training::RunLog back;
  back.restore(state, dir.path, 2, /*write=*/true);
  CHECK(back.window() == log.window());
  CHECK(back.elapsed() == state["elapsed_s"].get<double>());  // no step yet in this session
  json again{{"step", 2}};
  back.save_into(again);
  CHECK(again["metrics"] == state["metrics"]);

  // a checkpoint written before the log was part of its state: metrics.jsonl's lines up to its
  // step, a torn last line dropped, and the clock from the last kept line
  {
    std::ofstream f(dir.path / "metrics.jsonl");
    f << R"({"step": 1, "elapsed_s": 3.0})" << "\n"
      << R"({"step": 2, "elapsed_s": 6.0})" << "\n"
      << R"({"step": 3, "elapsed_s": 9.0})" << "\n"
      << R"({"step": 4, "ela)";
  }
  training::RunLog old;
  old.restore(json{{"step", 2}}, dir.path, 2, /*write=*/true);
  CHECK(old.elapsed() == 6.0);
  CHECK(read_file(dir.path / "metrics.jsonl") ==
        "{\"elapsed_s\":3.0,\"step\":1}\n{\"elapsed_s\":6.0,\"step\":2}\n");
}

}  // namespace bb
