#include "probing/results.h"

#include <map>

#include "common/error.h"
#include "common/files.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

TieRule parse_tie_rule(const std::string& s) {
  if (s == "half") return TieRule::half;
  if (s == "wrong") return TieRule::wrong;
  fail("unknown tie rule '{}' (expected half or wrong)", s);
}

std::string tie_rule_name(TieRule t) { return t == TieRule::half ? "half" : "wrong"; }

ProbeSummary summarize(const Suite& suite, const std::vector<double>& good,
                       const std::vector<double>& bad, Method method, TieRule ties) {
  BB_CHECK(good.size() == suite.pairs.size() && bad.size() == suite.pairs.size(),
           "internal: {} pairs but {} / {} scores", suite.pairs.size(), good.size(), bad.size());
  ProbeSummary s;
  std::map<std::string, std::pair<double, int>> per_paradigm;  // sum of outcomes, count
  std::map<std::string, int> tie_count;
  for (size_t i = 0; i < suite.pairs.size(); ++i) {
    const MinimalPair& p = suite.pairs[i];
    double o;
    if (good[i] == bad[i]) {
      o = ties == TieRule::half ? 0.5 : 0.0;
      ++tie_count[p.paradigm];
    } else {
      o = (higher_is_better(method) ? good[i] > bad[i] : good[i] < bad[i]) ? 1.0 : 0.0;
    }
    s.pairs.push_back({p.paradigm, p.index, good[i], bad[i], o});
    per_paradigm[p.paradigm].first += o;
    per_paradigm[p.paradigm].second += 1;
  }
  std::map<std::string, std::string> phenomenon_of;
  for (const MinimalPair& p : suite.pairs) phenomenon_of[p.paradigm] = p.phenomenon;
  std::map<std::string, std::vector<double>> by_phenomenon;
  s.paradigms = json::object();
  double sum = 0;
  for (const std::string& name : suite.paradigms) {
    const auto [correct, n] = per_paradigm[name];
    const double acc = 100.0 * correct / n;
    s.paradigms[name] = {{"accuracy", acc}, {"pairs", n}, {"ties", tie_count[name]},
                         {"phenomenon", phenomenon_of[name]}};
    by_phenomenon[phenomenon_of[name]].push_back(acc);
    sum += acc;
  }
  s.overall = sum / double(suite.paradigms.size());
  s.phenomena = json::object();
  double psum = 0;
  for (const auto& [name, accs] : by_phenomenon) {
    double a = 0;
    for (double x : accs) a += x;
    s.phenomena[name] = a / double(accs.size());
    psum += a / double(accs.size());
  }
  s.overall_by_phenomenon = psum / double(by_phenomenon.size());
  return s;
}

fs::path pairs_path_for(const fs::path& json_path) {
  fs::path p = json_path;
  p.replace_extension(".pairs.jsonl");
  return p;
}

void write_probe_results(const fs::path& json_path, json header, const ProbeSummary& s) {
  header["paradigms"] = s.paradigms;
  header["phenomena"] = s.phenomena;
  header["overall"] = s.overall;
  header["overall_by_phenomenon"] = s.overall_by_phenomenon;
  if (!json_path.parent_path().empty()) fs::create_directories(json_path.parent_path());
  std::string lines;
  for (const PairOutcome& p : s.pairs)
    lines += json{{"paradigm", p.paradigm}, {"index", p.index}, {"good", p.good},
                  {"bad", p.bad}, {"outcome", p.outcome}}.dump() + "\n";
  write_file_atomic(pairs_path_for(json_path), lines);
  write_file_atomic(json_path, header.dump(2) + "\n");
}

}  // namespace bb
