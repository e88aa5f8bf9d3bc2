#include "probing/suite.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"

namespace bb {

namespace fs = std::filesystem;

std::string zorro_phenomenon(const std::string& paradigm) {
  const size_t dash = paradigm.rfind('-');
  return dash == std::string::npos ? paradigm : paradigm.substr(0, dash);
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

void load_zorro(const fs::path& p, const std::string& text, PairOrder order, Suite& s) {
  const std::string paradigm = p.stem().string();
  auto lines = split_lines(text);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  BB_CHECK(lines.size() % 2 == 0, "{}: {} lines, expected an even number (two lines per pair)",
           p.string(), lines.size());
  for (size_t i = 0; i < lines.size(); i += 2) {
    BB_CHECK(!lines[i].empty() && !lines[i + 1].empty(), "{}:{}: empty sentence in a pair",
             p.string(), lines[i].empty() ? i + 1 : i + 2);
    MinimalPair m;
    m.bad = order == PairOrder::bad_first ? lines[i] : lines[i + 1];
    m.good = order == PairOrder::bad_first ? lines[i + 1] : lines[i];
    m.paradigm = paradigm;
    m.phenomenon = zorro_phenomenon(paradigm);
    m.index = int(i / 2);
    s.pairs.push_back(std::move(m));
  }
}

void load_blimp(const fs::path& p, const std::string& text, Suite& s) {
  const std::string paradigm = p.stem().string();
  int index = 0;
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(lines[i]);
    } catch (const nlohmann::json::exception& e) {
      fail("{}:{}: not valid JSON ({})", p.string(), i + 1, e.what());
    }
    BB_CHECK(j.is_object() && j.contains("sentence_good") && j.contains("sentence_bad"),
             "{}:{}: expected sentence_good and sentence_bad", p.string(), i + 1);
    MinimalPair m;
    m.good = j["sentence_good"].get<std::string>();
    m.bad = j["sentence_bad"].get<std::string>();
    m.paradigm = j.value("UID", paradigm);
    m.phenomenon = j.value("linguistics_term", m.paradigm);
    m.index = index++;
    s.pairs.push_back(std::move(m));
  }
}

void load_tsv(const fs::path& p, const std::string& text, Suite& s) {
  const auto lines = split_lines(text);
  std::map<std::string, int> counts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> f;
    size_t pos = 0;
    while (true) {
      const size_t tab = lines[i].find('\t', pos);
      f.push_back(lines[i].substr(pos, tab == std::string::npos ? std::string::npos : tab - pos));
      if (tab == std::string::npos) break;
      pos = tab + 1;
    }
    BB_CHECK((f.size() == 2 || f.size() == 3) && !f[0].empty() && !f[1].empty(),
             "{}:{}: expected good<TAB>bad[<TAB>paradigm]", p.string(), i + 1);
    MinimalPair m;
    m.good = f[0];
    m.bad = f[1];
    m.paradigm = f.size() == 3 ? f[2] : p.stem().string();
    m.phenomenon = zorro_phenomenon(m.paradigm);
    m.index = counts[m.paradigm]++;
    s.pairs.push_back(std::move(m));
  }
}

}  // namespace

Suite load_suite(const fs::path& path, PairOrder order) {
  std::vector<fs::path> files;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".txt" || ext == ".jsonl" || ext == ".tsv"))
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    BB_CHECK(fs::exists(path), "{}: no such suite file or directory", path.string());
    files.push_back(path);
  }
  BB_CHECK(!files.empty(), "{}: no .txt, .jsonl or .tsv suite files", path.string());
  Suite s;
  for (const fs::path& f : files) {
    const std::string text = read_file(f);
    const size_t before = s.pairs.size();
    if (f.extension() == ".jsonl") load_blimp(f, text, s);
    else if (f.extension() == ".tsv") load_tsv(f, text, s);
    else load_zorro(f, text, order, s);
    BB_CHECK(s.pairs.size() > before, "{}: no minimal pairs", f.string());
    s.files.push_back({f, sha256_hex(text)});
    for (size_t i = before; i < s.pairs.size(); ++i)
      if (std::find(s.paradigms.begin(), s.paradigms.end(), s.pairs[i].paradigm) == s.paradigms.end())
        s.paradigms.push_back(s.pairs[i].paradigm);
  }
  return s;
}

}  // namespace bb
