#include "probing/results.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "common/error.h"
#include "common/files.h"
#include "common/json_read.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

TieRule parse_tie_rule(const std::string& s) {
  if (s == "half") return TieRule::half;
  if (s == "wrong") return TieRule::wrong;
  usage_fail("--tie-rule: unknown tie rule '{}' (expected half or wrong)", s);
}

std::string tie_rule_name(TieRule t) { return t == TieRule::half ? "half" : "wrong"; }

ProbeSummary summarize(const Suite& suite, const std::vector<double>& good,
                       const std::vector<double>& bad, bool higher_wins, TieRule ties) {
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
      o = (higher_wins ? good[i] > bad[i] : good[i] < bad[i]) ? 1.0 : 0.0;
    }
    s.pairs.push_back({p.paradigm, p.index, good[i], bad[i], o, p.good, p.bad, std::nullopt});
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

namespace {

void check_paradigm(const json& v, const std::string& where) {
  BB_CHECK(v.is_object(), "{}: {}, expected an object with accuracy, pairs and ties", where,
           json_kind(v));
  const double acc = json_number(v, "accuracy", where);
  BB_CHECK(acc >= 0 && acc <= 100, "{}: \"accuracy\" is {}, expected a percentage in [0, 100]",
           where, acc);
  const int64_t pairs = json_integer(v, "pairs", where);
  BB_CHECK(pairs > 0, "{}: \"pairs\" is {}, expected at least 1", where, pairs);
  const int64_t ties = json_integer(v, "ties", where);
  BB_CHECK(ties >= 0 && ties <= pairs, "{}: \"ties\" is {}, expected 0 to {} (the pairs)", where,
           ties, pairs);
  json_string_or(v, "phenomenon", where, "");
}

}  // namespace

void check_probe_result(const json& h, const std::string& file) {
  BB_CHECK(h.is_object() && h.contains("paradigms") && h.contains("config") && h.contains("method"),
           "{}: not a probe result (expected an object with paradigms, config and method)", file);
  const json& paradigms = json_field(h, "paradigms", file, [](const json& v) {
    return v.is_object();
  }, "an object");
  BB_CHECK(!paradigms.empty(), "{}: \"paradigms\" is empty, expected at least one paradigm", file);
  for (const auto& [name, v] : paradigms.items())
    check_paradigm(v, fmt::format("{}: paradigm '{}'", file, name));
  const json& config = json_field(h, "config", file, [](const json& v) { return v.is_object(); },
                                  "an object");
  const std::string where = file + ": config";
  for (const char* k : {"seed", "steps", "num_hidden_layers", "num_attention_heads", "hidden_size",
                        "n_layer", "n_head", "n_embd"})
    json_integer_or(config, k, where, 0);
  json_string_or(config, "label", where, "");
  json_string(h, "method", file);
  const std::string reduction = json_string_or(h, "reduction", file, "sum");
  BB_CHECK(reduction == "sum" || reduction == "mean",
           "{}: \"reduction\" is '{}', expected sum or mean", file, reduction);
  json_string_or(h, "model", file, "");
  if (h.contains("overall")) json_number(h, "overall", file);
  BB_CHECK(!h.contains("reference") || h["reference"].is_boolean(),
           "{}: \"reference\" is {}, expected true or false", file, json_kind(h["reference"]));
}

PairRecords read_pair_records(const fs::path& pairs) {
  PairRecords out;
  const std::string text = read_file(pairs);
  size_t n = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    const std::string where = fmt::format("{}:{}", pairs.string(), ++n);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const json j = parse_json(line, where);
    BB_CHECK(j.is_object(), "{}: {}, expected an object with paradigm and outcome", where,
             json_kind(j));
    const std::string paradigm = json_string(j, "paradigm", where);
    const double o = json_number(j, "outcome", where);
    BB_CHECK(o >= 0 && o <= 1, "{}: \"outcome\" is {}, expected 0 to 1", where, o);
    // Files written before the index was recorded: the position in the paradigm.
    const int index = int(json_integer_or(j, "index", where, int64_t(out.index[paradigm].size())));
    out.outcomes[paradigm].push_back(o);
    out.index[paradigm].push_back(index);
    if (j.contains("word_counts")) {
      const json& w = j["word_counts"];
      BB_CHECK(w.is_array() && w.size() == 2 && w[0].is_number_integer() && w[0] >= 0 &&
                   w[1].is_number_integer() && w[1] >= 0,
               "{}: \"word_counts\" is {}, expected [good count, bad count] (integers >= 0)",
               where, w.dump());
      out.word_counts[paradigm][index] = {w[0].get<int64_t>(), w[1].get<int64_t>()};
    }
  }
  return out;
}

void check_results_writable(const fs::path& json_path, const std::vector<ReadPath>& reads) {
  BB_CHECK(json_path.has_filename(), "{}: expected a results file path (F.json)", json_path.string());
  for (const fs::path& p : {json_path, pairs_path_for(json_path)}) check_output_spares(p, reads);
  const fs::path dir = json_path.parent_path().empty() ? fs::path(".") : json_path.parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  BB_CHECK(!ec, "{}: cannot create the directory {} ({})", json_path.string(), dir.string(),
           ec.message());
  for (const fs::path& p : {json_path, pairs_path_for(json_path)})
    BB_CHECK(!fs::is_directory(p), "{}: is a directory, expected a results file path", p.string());
  const fs::path scratch = dir / (".bb-write-check." + std::to_string(::getpid()));
  const int fd = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  BB_CHECK(fd >= 0, "{}: cannot write results in {} ({})", json_path.string(), dir.string(),
           std::strerror(errno));
  ::close(fd);
  fs::remove(scratch, ec);
}

void write_probe_results(const fs::path& json_path, json header, const ProbeSummary& s) {
  header["paradigms"] = s.paradigms;
  header["phenomena"] = s.phenomena;
  header["overall"] = s.overall;
  header["overall_by_phenomenon"] = s.overall_by_phenomenon;
  if (!json_path.parent_path().empty()) fs::create_directories(json_path.parent_path());
  std::string lines;
  for (const PairOutcome& p : s.pairs) {
    json line{{"paradigm", p.paradigm},    {"index", p.index},
              {"good", p.good},            {"bad", p.bad},
              {"outcome", p.outcome},      {"good_sentence", p.good_sentence},
              {"bad_sentence", p.bad_sentence}};
    if (p.word_counts) line["word_counts"] = *p.word_counts;
    lines += line.dump() + "\n";
  }
  write_file_atomic(pairs_path_for(json_path), lines);
  write_file_atomic(json_path, header.dump(2) + "\n");
}

}  // namespace bb

namespace bb {

std::string model_size_label(const nlohmann::json& config) {
  auto size = [&](const char* roberta, const char* gpt2) {
    return config.contains(roberta) ? config.value(roberta, 0) : config.value(gpt2, 0);
  };
  return fmt::format("{}L/{}H/{}d", size("num_hidden_layers", "n_layer"),
                     size("num_attention_heads", "n_head"), size("hidden_size", "n_embd"));
}

}  // namespace bb
