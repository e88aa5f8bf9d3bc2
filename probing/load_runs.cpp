// compare's input: probe result files read into runs, grouped by attention label and stratified by
// whatever else differs between them.
#include "probing/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string_view>

#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "common/json_read.h"
#include "probing/results.h"
#include "probing/scorer.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Learning and dev-loss curves: the metrics.jsonl lines `train` wrote next to the model
// (probe_overall with --probe-every; dev_loss at every evaluation). A results folder's own copy
// comes first, so that it regenerates its report without the run directories: metrics-NAME.jsonl
// next to NAME.json, or runs/NAME/metrics.jsonl beside results/ (an experiment directory's layout,
// kept by scripts/collect-experiment.sh); then the model's. Only a result scored by its kind's
// default method carries them (holistic for roberta, causal for gpt2): `train --probe-every`
// probes with it, and one run's curves belong to one group.
void read_curves(RunResult& r, const fs::path& f) {
  const std::string name_of_method = r.header.value("method", std::string("holistic"));
  const std::vector<std::string> scoring = method_names();  // a reference (ngram) trains nothing
  if (std::find(scoring.begin(), scoring.end(), name_of_method) == scoring.end()) return;
  const Method method = parse_method(name_of_method);
  if (default_method(method_kind(method)) != method) return;
  const std::string name = f.stem().string();
  fs::path metrics;
  for (const fs::path& candidate :
       {f.parent_path() / ("metrics-" + name + ".jsonl"),
        f.parent_path().parent_path() / "runs" / name / "metrics.jsonl",
        fs::path(r.header.value("model", std::string())) / "metrics.jsonl"})
    if (fs::exists(candidate)) {
      metrics = candidate;
      break;
    }
  if (metrics.empty()) return;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    try {
      const json j = json::parse(line);
      if (j.contains("probe_overall"))
        r.curve[j.at("step").get<int64_t>()] = j.at("probe_overall").get<double>();
      if (j.contains("dev_loss") && j.at("dev_loss").is_number())
        r.dev_loss[j.at("step").get<int64_t>()] = j.at("dev_loss").get<double>();
    } catch (const json::exception&) {
      // a torn last line: not a point
    }
  }
}

// One result file with its paradigms, curves and pair outcomes (label, stratum, group: later).
RunResult read_run_result(const fs::path& f) {
  RunResult r;
  r.path = f;
  r.header = parse_json(read_file(f), f.string());
  check_probe_result(r.header, f.string());
  r.seed = r.header["config"].value("seed", int64_t(0));
  for (auto& [name, v] : r.header["paradigms"].items()) {
    r.paradigms.push_back(name);
    r.accuracy[name] = v.at("accuracy").get<double>();
    r.phenomenon_of[name] = v.value("phenomenon", name);
  }
  read_curves(r, f);
  const fs::path pairs = fs::path(f).replace_extension(".pairs.jsonl");
  if (fs::exists(pairs)) {
    PairRecords records = read_pair_records(pairs);
    r.outcomes = std::move(records.outcomes);
    r.pair_index = std::move(records.index);
    r.word_counts = std::move(records.word_counts);
  }
  return r;
}

// Group by the attention label; what else differs between the files (method, size, steps,
// training recipe, precision, suite, pairs per paradigm) makes strata, compared within and never
// across: fp32 and bf16 results are never mixed in a group or subtracted.
void assign_groups(std::vector<RunResult>& runs) {
  auto field = [](const RunResult& r, const std::string& k) -> std::string {
    const json& cfg = r.header["config"];
    if (k == "method") {  // with the reduction when not the method's default: "pll (mean)"
      const std::string m = r.header["method"].get<std::string>();
      const std::string red = r.header.value("reduction", std::string());  // absent: older results
      const auto known = method_names();
      const bool is_default = std::find(known.begin(), known.end(), m) != known.end() &&
                              red == reduction_name(default_reduction(parse_method(m)));
      return red.empty() || is_default ? m : fmt::format("{} ({})", m, red);
    }
    if (k == "size")
      return model_size_label(cfg);
    if (k == "steps") return fmt::format("{} steps", cfg.value("steps", int64_t(0)));
    auto text = [](const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); };
    if (k == "suite") return "suite " + text(r.header.value("suite", json()));
    if (k == "precision") {  // trained and scored in (--precision; absent: fp32, older files)
      const json t = r.header.value("training", json());
      const std::string trained = t.is_object() ? t.value(flag_name::precision, std::string("fp32"))
                                                : std::string("fp32");
      const std::string scored = r.header.value("precision", std::string("fp32"));
      return trained == scored ? trained : fmt::format("trained {}, scored {}", trained, scored);
    }
    if (k == "recipe") {  // the training recipe, from the run.json that probe recorded
      const json t = r.header.value("training", json());
      return "recipe " + (t.is_object() ? t.value(flag_name::recipe, std::string("babyberta"))
                                        : std::string("babyberta"));
    }
    return text(r.header.value("pairs_per_paradigm", json("all"))) + " pairs per paradigm";
  };
  for (auto& r : runs) r.label = r.header["config"].value("label", std::string("model"));
  // Reference results (n-gram baselines, method "ngram"; published results, "reference": true)
  // are shown beside the groups and never compared: they stand apart from the strata, which the
  // trained models' settings alone make.
  auto is_reference = [](const RunResult& r) {
    return r.header.value("method", "") == "ngram" || r.header.value("reference", false);
  };
  for (const std::string k : {"method", "size", "steps", "recipe", "precision", "suite", "pairs"}) {
    std::set<std::string> values;
    for (const auto& r : runs)
      if (!is_reference(r)) values.insert(field(r, k));
    if (values.size() > 1)
      for (auto& r : runs)
        if (!is_reference(r)) {
          r.stratum += (r.stratum.empty() ? "" : ", ") + field(r, k);
          if (k != "method")
            r.stratum_but_method += (r.stratum_but_method.empty() ? "" : ", ") + field(r, k);
        }
  }
  for (auto& r : runs) {
    if (is_reference(r)) {
      r.stratum = "reference";  // equal to no trained group's stratum: never compared
      r.group = r.label + " (reference)";
    } else {
      r.group = r.stratum.empty() ? r.label : r.label + ", " + r.stratum;
    }
  }
}

// The result files a path stands for, appended to `out`: a result .json (experiment's
// NAME.settings.json files are skipped), or a directory's result .json files (sorted). A pairs
// file is refused naming the result file it belongs to.
void add_result_files(const fs::path& path, std::vector<fs::path>& out) {
  const std::string name = path.string();
  constexpr std::string_view kPairs = ".pairs.jsonl";
  BB_CHECK(!name.ends_with(kPairs), "{}: a pairs file; give its result file {}.json", name,
           name.substr(0, name.size() - kPairs.size()));
  auto settings_file = [](const fs::path& p) {
    return p.filename().string().ends_with(".settings.json");
  };
  if (!fs::is_directory(path)) {
    if (!settings_file(path)) out.push_back(path);
    return;
  }
  const std::vector<fs::path> found = files_ending_with(path, ".json", settings_file);
  BB_CHECK(!found.empty(), "{}: a directory without result .json files (expected probe results)",
           name);
  out.insert(out.end(), found.begin(), found.end());
}

}  // namespace

std::vector<fs::path> result_files(const std::vector<fs::path>& paths) {
  std::vector<fs::path> out;
  for (const fs::path& p : paths) add_result_files(p, out);
  BB_CHECK(!out.empty(), "compare: only settings files given (expected probe result files)");
  return out;
}

std::vector<RunResult> load_runs(const std::vector<fs::path>& files) {
  BB_CHECK(!files.empty(), "compare: no result files given");
  std::vector<RunResult> runs;
  for (const fs::path& f : files) runs.push_back(read_run_result(f));
  assign_groups(runs);
  return runs;
}

}  // namespace bb
