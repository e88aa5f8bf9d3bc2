// Synthetic probe results for the compare tests: runs with known accuracies per seed.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "probing/results.h"
#include "probing/suite.h"

namespace bb::test {

namespace fs = std::filesystem;

// A run whose paradigm "agr-x" has `correct` of 100 pairs right (the first ones), "bind-y" 50.
inline fs::path write_run(const fs::path& dir, const std::string& label, int seed, int correct,
                   const std::string& method = "holistic", bool with_training = false) {
  Suite s;
  s.paradigms = {"agr-x", "bind-y"};
  std::vector<double> good, bad;
  for (int i = 0; i < 100; ++i) {
    s.pairs.push_back({"g", "b", "agr-x", "agr", i});
    good.push_back(i < correct ? 1.0 : 3.0), bad.push_back(2.0);
  }
  for (int i = 0; i < 100; ++i) {
    s.pairs.push_back({"g", "b", "bind-y", "bind", i});
    good.push_back(i % 2 ? 1.0 : 3.0), bad.push_back(2.0);
  }
  const auto sum = summarize(s, good, bad, Method::holistic, TieRule::half);
  const fs::path f = dir / (label + "-" + method + "-" + std::to_string(seed) + ".json");
  nlohmann::json header{{"model", "m"}, {"config", {{"label", label}, {"seed", seed}, {"steps", 10}}},
                        {"method", method}, {"tie_rule", "half"}};
  if (with_training)  // the run.json settings probe copies: the same data order for every label
    header["training"] = {{"--corpus (sha256)", "c0ffee"}, {"--seed", seed}, {"--steps", 10},
                          {"--batch-size", 16}, {"--attention", label}};
  write_probe_results(f, header, sum);
  return f;
}

// Like write_groups, with the runs' training settings recorded (pairable by seed).
inline std::vector<fs::path> write_paired_groups(const fs::path& dir, const std::vector<int>& softmax,
                                          const std::vector<int>& ssa) {
  std::vector<fs::path> files;
  for (size_t k = 0; k < softmax.size(); ++k) {
    files.push_back(write_run(dir, "softmax", int(k) + 1, softmax[k], "holistic", true));
    files.push_back(write_run(dir, "ssa", int(k) + 1, ssa[k], "holistic", true));
  }
  return files;
}

// A softmax and an ssa run per seed k (1-based): softmax[k-1] and ssa[k-1] pairs of agr-x right.
inline std::vector<fs::path> write_groups(const fs::path& dir, const std::vector<int>& softmax,
                                   const std::vector<int>& ssa) {
  std::vector<fs::path> files;
  for (size_t k = 0; k < softmax.size(); ++k) {
    files.push_back(write_run(dir, "softmax", int(k) + 1, softmax[k]));
    files.push_back(write_run(dir, "ssa", int(k) + 1, ssa[k]));
  }
  return files;
}

}  // namespace bb::test
