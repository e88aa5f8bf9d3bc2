#include "probing/published_results.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "probing/delimited.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// UnMasked's columns that are not paradigms.
const std::set<std::string> kUnmaskedNonParadigms = {"model", "corpora", "rep", "scoring_method",
                                                     "overall", "path"};

double percent(const std::string& field, const std::string& where, const std::string& column) {
  size_t used = 0;
  double v = NAN;
  try {
    v = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  BB_CHECK(used == field.size() && used > 0 && std::isfinite(v) && v >= 0 && v <= 100,
           "{}: column {} is '{}', expected a percentage in [0, 100]", where, column, field);
  return v;
}

}  // namespace

std::vector<json> unmasked_results(const fs::path& csv, const UnmaskedSelection& sel,
                                   const Suite& suite) {
  BB_CHECK(sel.method == "holistic" || sel.method == "pll",
           "--method: '{}', expected holistic (UnMasked's holistic) or pll (its mlm)", sel.method);
  const std::string file = csv.string();
  const std::string text = read_file(csv);
  const std::vector<DelimitedRow> rows = read_delimited(text, Delimiter::comma, file);
  BB_CHECK(rows.size() >= 2, "{}: {} rows, expected a header and at least one result", file,
           rows.size());
  const std::vector<std::string>& header = rows[0].fields;
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < header.size(); ++i) at[header[i]] = i;
  for (const char* c : {"model", "corpora", "rep", "scoring_method", "overall"})
    BB_CHECK(at.count(c), "{}:1: no '{}' column (expected UnMasked's results/zorro.csv)", file, c);
  // Paradigm columns: exactly the suite's paradigms.
  std::vector<std::string> paradigms;
  for (const std::string& h : header)
    if (!kUnmaskedNonParadigms.count(h)) paradigms.push_back(h);
  std::map<std::string, int64_t> pairs;
  std::map<std::string, std::string> phenomenon;
  for (const MinimalPair& p : suite.pairs) ++pairs[p.paradigm], phenomenon[p.paradigm] = p.phenomenon;
  for (const std::string& p : paradigms)
    BB_CHECK(pairs.count(p), "{}:1: column '{}' is no paradigm of the suite (expected the suite's "
             "{} paradigms)", file, p, pairs.size());
  for (const auto& [p, n] : pairs)
    BB_CHECK(at.count(p), "{}:1: no column for the suite's paradigm '{}'", file, p);
  const std::string want = sel.method == "pll" ? "mlm" : "holistic";
  const std::string sha = sha256_hex(text);
  std::vector<json> out;
  for (size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& f = rows[r].fields;
    const std::string where = fmt::format("{}:{}", file, rows[r].line);
    BB_CHECK(f.size() == header.size(), "{}: {} fields, expected {} as in the header", where,
             f.size(), header.size());
    if (f[at["model"]] != sel.model || f[at["corpora"]] != sel.corpora ||
        f[at["scoring_method"]] != want)
      continue;
    json paradigm_json = json::object();
    std::map<std::string, std::vector<double>> by_phenomenon;
    double sum = 0;
    for (const std::string& p : paradigms) {
      const double acc = percent(f[at[p]], where, p);
      sum += acc;
      by_phenomenon[phenomenon[p]].push_back(acc);
      paradigm_json[p] = {{"accuracy", acc}, {"pairs", pairs[p]}, {"ties", 0},
                          {"phenomenon", phenomenon[p]}};
    }
    const double overall = sum / double(paradigms.size());
    const double stated = percent(f[at["overall"]], where, "overall");
    BB_CHECK(std::abs(overall - stated) <= 0.005 + 1e-9, "{}: overall is {}, but its paradigms' "
             "mean is {:.4f} (expected equal to 2 decimals)", where, f[at["overall"]], overall);
    json phenomena = json::object();
    double ph_sum = 0;
    for (const auto& [name, v] : by_phenomenon) {
      double m = 0;
      for (double x : v) m += x / double(v.size());
      phenomena[name] = m;
      ph_sum += m;
    }
    const std::string rep = f[at["rep"]];
    const int seed = int(out.size()) + 1;
    out.push_back(
        {{"model", fmt::format("{} ({}, UnMasked run {})", sel.model, sel.corpora, rep)},
         {"method", sel.method},
         {"reduction", sel.method == "pll" ? "sum" : "mean"},
         {"reference", true},
         {"config", {{"label", sel.label.empty() ? fmt::format("{} (UnMasked)", sel.model) : sel.label},
                     {"seed", seed},
                     {"corpora", sel.corpora}}},
         {"paradigms", paradigm_json},
         {"phenomena", phenomena},
         {"overall", overall},
         {"overall_by_phenomenon", ph_sum / double(by_phenomenon.size())},
         {"pairs_per_paradigm", "all"},
         {"tie_rule", "as published (ties not reported)"},
         {"source", {{"file", csv.filename().string()},
                     {"sha256", sha},
                     {"line", rows[r].line},
                     {"rep", rep},
                     {"scoring_method", want},
                     {"from", sel.source}}}});
  }
  BB_CHECK(!out.empty(), "{}: no row with model {}, corpora {} and scoring_method {}", file,
           sel.model, sel.corpora, want);
  return out;
}

}  // namespace bb
