// Timed windows and their medians, shared by the bench commands (cli/bench.cpp, bench_icl.cpp).
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bb::cli {

// One timed window: its length and what `step` counted in it.
struct Window {
  double seconds = 0;
  std::map<std::string, double> counts;
};

// Calls `warm_up` once, then per window calls `step(counts)` (counts start empty) until
// `seconds` have passed; `agree(done)`, when given, makes that decision the same on every MPI rank.
inline std::vector<Window> timed_windows(int windows, double seconds, const std::function<void()>& warm_up,
                                  const std::function<void(std::map<std::string, double>&)>& step,
                                  const std::function<bool(bool)>& agree = {}) {
  using clock = std::chrono::steady_clock;
  warm_up();
  std::vector<Window> out(static_cast<size_t>(windows));
  for (Window& w : out) {
    const auto t0 = clock::now();
    for (bool done = false; !done;) {
      step(w.counts);
      w.seconds = std::chrono::duration<double>(clock::now() - t0).count();
      done = agree ? agree(w.seconds >= seconds) : w.seconds >= seconds;
    }
  }
  return out;
}

// The sum of `key` over windows, and of their seconds.
inline double total(const std::vector<Window>& windows, const std::string& key) {
  double sum = 0;
  for (const Window& w : windows) sum += key == "seconds" ? w.seconds : w.counts.at(key);
  return sum;
}

// The median of each rate over --repeat consecutive windows (this VM's speed drifts by up to
// +-20% between runs; a median with every window's value says how much). Field -> window values.
inline nlohmann::json median_rates(const std::vector<std::map<std::string, double>>& windows) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, unused] : windows.front()) {
    std::vector<double> v;
    for (const auto& w : windows) v.push_back(w.at(name));
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    out[name] = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out[name + "_windows"] = v;
  }
  return out;
}

}  // namespace bb::cli
