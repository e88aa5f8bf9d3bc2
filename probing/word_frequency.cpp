#include "probing/word_frequency.h"

#include <fmt/format.h>

#include <algorithm>

namespace bb {

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < s.size();) {
    size_t end = s.find(' ', pos);
    if (end == std::string_view::npos) end = s.size();
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> differing_word(
    std::span<const std::string_view> good, std::span<const std::string_view> bad) {
  if (good.size() != bad.size()) return std::nullopt;
  std::optional<std::pair<std::string_view, std::string_view>> found;
  for (size_t i = 0; i < good.size(); ++i) {
    if (good[i] == bad[i]) continue;
    if (found) return std::nullopt;  // a second position
    found.emplace(good[i], bad[i]);
  }
  return found;
}

namespace {

using Counts = std::map<std::string, std::map<int, std::array<int64_t, 2>>>;

// One run's shares: paradigm (and kAllParadigms) -> {pairs won by the more frequent word, pairs
// qualifying}.
std::map<std::string, std::pair<double, int>> run_shares(const RunResult& r, const Counts& counts) {
  std::map<std::string, std::pair<double, int>> out;
  for (const auto& [paradigm, outcomes] : r.outcomes) {
    const auto by_index = counts.find(paradigm);
    if (by_index == counts.end()) continue;
    const std::vector<int>& index = r.pair_index.at(paradigm);
    for (size_t k = 0; k < outcomes.size(); ++k) {
      const auto c = by_index->second.find(index[k]);
      if (c == by_index->second.end() || c->second[0] == c->second[1]) continue;
      const double won = c->second[0] > c->second[1] ? outcomes[k] : 1.0 - outcomes[k];
      for (const std::string& key : {paradigm, std::string(kAllParadigms)}) {
        out[key].first += won;
        out[key].second += 1;
      }
    }
  }
  return out;
}

}  // namespace

void add_frequency_shares(Comparison& c) {
  const RunResult* source = nullptr;
  for (const RunResult& r : c.runs)
    if (!source && r.header.value("method", "") == "ngram" && !r.word_counts.empty()) source = &r;
  c.frequency_share.assign(c.groups.size(), {});
  if (!source) return;
  c.frequency_source = source->path.filename().string();
  std::vector<std::map<std::string, std::vector<double>>> values(c.groups.size());
  for (const RunResult& r : c.runs) {
    const size_t g = size_t(std::find(c.groups.begin(), c.groups.end(), r.group) - c.groups.begin());
    for (const auto& [key, won_of] : run_shares(r, source->word_counts)) {
      values[g][key].push_back(100.0 * won_of.first / won_of.second);
      c.frequency_pairs[key] = std::max(c.frequency_pairs[key], won_of.second);
    }
  }
  for (size_t g = 0; g < c.groups.size(); ++g)
    for (const auto& [key, v] : values[g]) c.frequency_share[g][key] = stat_of(v);
}

std::string frequency_md(const Comparison& c) {
  std::string md = "\n## Word frequency\n\n";
  if (c.frequency_source.empty())
    return md + "Not available: no word-unit n-gram reference among the results has a pairs "
                "file with word counts (`babyberta baseline --unit word` writes them beside its "
                "F.json: the corpus counts of the words where a pair's sentences differ).\n";
  md += fmt::format(
      "For the pairs whose sentences differ in exactly one word position, with different corpus "
      "counts for the two words there (counts from {}: the training corpus as `train` reads it), "
      "the percent of pairs whose winner is the sentence with the more frequent word (mean ± sd "
      "over seeds; 50: frequency-blind; 100: every such pair went to the more frequent word). "
      "High shares mean frequency alone could explain the accuracy. \"n/a\": the group's results "
      "have no pairs files.\n\n| paradigm | pairs |",
      c.frequency_source);
  for (const auto& g : c.groups) md += " " + g + " |";
  md += "\n|---|---|";
  for (size_t g = 0; g < c.groups.size(); ++g) md += "---|";
  md += "\n";
  std::vector<std::string> rows;
  for (const auto& p : c.paradigms)
    if (c.frequency_pairs.count(p)) rows.push_back(p);
  rows.push_back(kAllParadigms);
  for (const auto& p : rows) {
    const auto n = c.frequency_pairs.find(p);
    md += fmt::format("| {} | {} |", p == kAllParadigms ? "**all (pooled)**" : p,
                      n == c.frequency_pairs.end() ? 0 : n->second);
    for (size_t g = 0; g < c.groups.size(); ++g) {
      const auto s = c.frequency_share[g].find(p);
      if (s == c.frequency_share[g].end()) {
        md += " n/a |";
        continue;
      }
      md += s->second.n > 1 ? fmt::format(" {:.1f} ± {:.1f} |", s->second.mean, s->second.sd)
                            : fmt::format(" {:.1f} |", s->second.mean);
    }
    md += "\n";
  }
  return md;
}

}  // namespace bb
