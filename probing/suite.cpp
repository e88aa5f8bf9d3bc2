#include "probing/suite.h"

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <array>
#include <map>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json_read.h"
#include "probing/pair_table.h"
#include "tokenizer/normalizer.h"

namespace bb {

namespace fs = std::filesystem;

std::string zorro_phenomenon(const std::string& paradigm) {
  const size_t dash = paradigm.rfind('-');
  return dash == std::string::npos ? paradigm : paradigm.substr(0, dash);
}

SuiteFormat parse_suite_format(const std::string& s) {
  if (s == "auto") return SuiteFormat::detect;
  if (s == "zorro") return SuiteFormat::zorro;
  fail("unknown suite format '{}' (expected auto or zorro)", s);
}

namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

}  // namespace

void check_pair_sentence(const std::string& s, const std::string& where, const std::string& what) {
  BB_CHECK(!blank(s), "{}: {} is empty, expected a sentence", where, what);
  BB_CHECK(is_valid_utf8(s), "{}: {} is not valid UTF-8, expected UTF-8 text", where, what);
}

namespace {

constexpr const char* kWhatIsASuite =
    "a suite is a directory of Zorro files, a Zorro file phenomenon-paradigm.txt with two lines "
    "per pair, a BLiMP .jsonl or a .tsv or .csv of good, bad[, paradigm] (columns by position, "
    "or named by a header row)";

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

// Zorro file names: phenomenon-paradigm, both parts non-empty, no whitespace.
bool zorro_name(const std::string& stem) {
  const size_t dash = stem.find('-');
  return dash != std::string::npos && dash > 0 && stem.back() != '-' &&
         stem.find_first_of(" \t") == std::string::npos;
}

// What a file read as Zorro looks like instead, from its first non-blank line: its description
// and extension; empty when plain sentences.
std::pair<std::string, std::string> other_format(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    if (blank(line)) continue;
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("sentence_good"))
      return {"a BLiMP file (a JSON object per line)", ".jsonl"};
    if (line.find('\t') != std::string::npos) return {"pairs separated by tabs", ".tsv"};
    return {};
  }
  return {};
}

void load_zorro(const fs::path& p, const std::string& text, PairOrder order, SuiteFormat format,
                Suite& s) {
  const std::string paradigm = p.stem().string();
  auto lines = split_lines(text);
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  if (const auto [other, ext] = other_format(lines); !other.empty())
    fail("{}: read as a Zorro file (one sentence per line) but it looks like {}; {}", p.string(),
         other, format == SuiteFormat::zorro && p.extension() == ext
                    ? "drop --format zorro (" + ext + " files are read as such)"
                    : "name it *" + ext + " (without --format zorro)");
  BB_CHECK(format == SuiteFormat::zorro || lines.size() <= kMaxDetectedZorroLines,
           "{}: {} lines, more than a Zorro suite file has ({}); pass --format zorro if it is one",
           p.string(), lines.size(), kMaxDetectedZorroLines);
  for (size_t i = 0; i < lines.size(); ++i)
    check_pair_sentence(lines[i], fmt::format("{}:{}", p.string(), i + 1), "the line");
  BB_CHECK(lines.size() % 2 == 0, "{}: {} lines, expected an even number (two lines per pair); {}",
           p.string(), lines.size(), kWhatIsASuite);
  BB_CHECK(format == SuiteFormat::zorro || zorro_name(paradigm),
           "{}: not named phenomenon-paradigm.txt, so not read as a Zorro file (--format zorro "
           "reads it anyway); {}", p.string(), kWhatIsASuite);
  for (size_t i = 0; i < lines.size(); i += 2) {
    MinimalPair m;
    m.bad = order == PairOrder::bad_first ? lines[i] : lines[i + 1];
    m.good = order == PairOrder::bad_first ? lines[i + 1] : lines[i];
    const size_t good_line = order == PairOrder::bad_first ? i + 2 : i + 1;
    m.good_at = fmt::format("{}:{}", p.string(), good_line);
    m.bad_at = fmt::format("{}:{}", p.string(), good_line == i + 2 ? i + 1 : i + 2);
    m.paradigm = paradigm;
    m.phenomenon = zorro_phenomenon(paradigm);
    m.index = int(i / 2);
    s.pairs.push_back(std::move(m));
  }
}

// An optional string field that, when present, must be a non-empty string.
std::string optional_name(const nlohmann::json& j, const std::string& key, const std::string& where,
                          const std::string& fallback) {
  const std::string v = json_string_or(j, key, where, fallback);
  BB_CHECK(!blank(v), "{}: \"{}\" is empty, expected a name", where, key);
  return v;
}

// BLiMP's own keys (its 67 files): never read as a renamed good or bad column, never noted.
constexpr std::array<const char*, 18> kBlimpKeys{
    "sentence_good", "sentence_bad", "UID", "linguistics_term", "field", "pairID",
    "crucial_item", "dependency_length", "lexically_identical", "one_prefix_method",
    "one_prefix_prefix", "one_prefix_word_bad", "one_prefix_word_good", "simple_LM_method",
    "two_prefix_method", "two_prefix_prefix_bad", "two_prefix_prefix_good", "two_prefix_word"};

bool blimp_key(const std::string& k) {
  return std::find(kBlimpKeys.begin(), kBlimpKeys.end(), k) != kBlimpKeys.end();
}

// The key of an object holding column `c` (good or bad): BLiMP's own, else the one other key that
// names it (pair_table.h's rules: good, grammatical, good_sent, ...); empty when none.
std::string pair_key(const nlohmann::json& j, PairColumn c, const std::string& where) {
  const char* blimp = c == PairColumn::good ? "sentence_good" : "sentence_bad";
  if (j.contains(blimp)) return blimp;
  std::vector<std::string> named;
  for (const auto& [k, v] : j.items())
    if (!blimp_key(k) && pair_column_of(k) == c) named.push_back(k);
  BB_CHECK(named.size() <= 1, "{}: keys {} all name the {} sentence; expected one", where,
           fmt::join(named, ", "), c == PairColumn::good ? "good" : "bad");
  return named.empty() ? std::string() : named[0];
}

std::string key_list(const nlohmann::json& j) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "));
}

void load_blimp(const fs::path& p, const std::string& text, HeaderRule header, Suite& s) {
  const std::string stem = p.stem().string();
  std::map<std::string, int> counts;
  const auto lines = split_lines(text);
  struct Record {
    std::string where;
    MinimalPair pair;
  };
  std::vector<Record> records;
  std::set<std::string> used, ignored;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (blank(lines[i])) continue;
    const std::string where = fmt::format("{}:{}", p.string(), i + 1);
    const nlohmann::json j = parse_json(lines[i], where);
    BB_CHECK(j.is_object(), "{}: {}, expected an object with sentence_good and sentence_bad",
             where, json_kind(j));
    const std::string good = pair_key(j, PairColumn::good, where);
    const std::string bad = pair_key(j, PairColumn::bad, where);
    BB_CHECK(!good.empty() && !bad.empty(), "{}: no {} sentence among the keys ({}); expected "
             "sentence_good and sentence_bad (or keys named like good and bad: good, grammatical, "
             "good_sent, ...)", where, good.empty() ? "good" : "bad", key_list(j));
    for (const auto& [k, v] : j.items())
      if (k == good || k == bad) used.insert(k);
      else if (!blimp_key(k)) ignored.insert(k);
    MinimalPair m;
    m.good = json_string(j, good, where);
    m.bad = json_string(j, bad, where);
    m.good_at = m.bad_at = where;
    check_pair_sentence(m.good, where, "\"" + good + "\"");
    check_pair_sentence(m.bad, where, "\"" + bad + "\"");
    m.paradigm = optional_name(j, "UID", where, stem);
    m.phenomenon = optional_name(j, "linguistics_term", where, m.paradigm);
    records.push_back({where, std::move(m)});
  }
  // A first record that is no sentence pair like the others (a header turned into an object).
  size_t first = 0;
  if (!records.empty() && header != HeaderRule::absent) {
    const MinimalPair& f = records[0].pair;
    std::vector<std::vector<std::string>> rest;
    for (size_t r = 1; r < records.size() && r <= kHeaderSampleRows; ++r)
      rest.push_back({records[r].pair.good, records[r].pair.bad});
    const bool like = header_like_row({f.good, f.bad}, rest);
    BB_CHECK(like || header != HeaderRule::present, "{}: --header given but the first record "
             "({}, {}) is a sentence pair like the others", records[0].where, f.good, f.bad);
    BB_CHECK(!like || header == HeaderRule::present, "{}: the first record ({}, {}) looks like a "
             "header, not a sentence pair like the others; --header skips it, --no-header scores "
             "it as a pair", records[0].where, f.good, f.bad);
    if (like) {
      first = 1;
      s.notes.push_back(fmt::format("{}: skipped by --header ({}, {})", records[0].where, f.good, f.bad));
    }
  }
  const bool renamed = !used.count("sentence_good") || !used.count("sentence_bad");
  if (renamed || !ignored.empty()) {
    std::string note = fmt::format("{}: sentences read from the keys {}", p.string(),
                                   fmt::join(used, ", "));
    if (!ignored.empty()) note += fmt::format("; ignored: {}", fmt::join(ignored, ", "));
    s.notes.push_back(note);
  }
  for (size_t r = first; r < records.size(); ++r) {
    MinimalPair m = std::move(records[r].pair);
    m.index = counts[m.paradigm]++;
    s.pairs.push_back(std::move(m));
  }
}

// The files a suite path stands for.
std::vector<fs::path> suite_files(const fs::path& path, SuiteFormat format) {
  std::vector<fs::path> files;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path)) {
      const auto ext = e.path().extension();
      const bool wanted = format == SuiteFormat::zorro
                              ? ext == ".txt"
                              : ext == ".txt" || ext == ".jsonl" || ext == ".tsv" || ext == ".csv";
      if (e.is_regular_file() && wanted) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    BB_CHECK(!files.empty(), "{}: no .txt, .jsonl, .tsv or .csv suite files; {}", path.string(),
             kWhatIsASuite);
    return files;
  }
  BB_CHECK(fs::exists(path), "{}: no such suite file or directory", path.string());
  const auto ext = path.extension();
  BB_CHECK(format == SuiteFormat::zorro || ext == ".txt" || ext == ".jsonl" || ext == ".tsv" ||
               ext == ".csv",
           "{}: not a suite ({})", path.string(), kWhatIsASuite);
  return {path};
}

// Reads one file into `s`; `origin` records which file (index into s.files) each paradigm came
// from.
void load_file(const fs::path& f, const SuiteOptions& o, std::map<std::string, size_t>& origin,
               Suite& s) {
  for (const SuiteFile& seen : s.files)
    BB_CHECK(fs::weakly_canonical(seen.path) != fs::weakly_canonical(f),
             "{}: given twice as a suite file (also as {})", f.string(), seen.path.string());
  const std::string text = read_file(f);
  const size_t before = s.pairs.size();
  std::vector<std::string> header;
  if (o.format == SuiteFormat::zorro || f.extension() == ".txt") {
    load_zorro(f, text, o.order, o.format, s);
  } else if (f.extension() == ".jsonl") {
    load_blimp(f, text, o.header, s);
  } else {
    PairTable t = read_pair_table(f, text, o.header);
    std::move(t.pairs.begin(), t.pairs.end(), std::back_inserter(s.pairs));
    if (!t.note.empty()) s.notes.push_back(t.note);
    header = std::move(t.header);
  }
  BB_CHECK(s.pairs.size() > before, "{}: no minimal pairs", f.string());
  s.files.push_back({f, sha256_hex(text), std::move(header)});
  for (size_t i = before; i < s.pairs.size(); ++i) {
    const std::string& name = s.pairs[i].paradigm;
    const auto [it, added] = origin.emplace(name, s.files.size() - 1);
    if (added) s.paradigms.push_back(name);
    else
      BB_CHECK(it->second == s.files.size() - 1, "paradigm '{}' is in both {} and {} (paradigm "
               "names must be unique across suite files)", name, s.files[it->second].path.string(),
               f.string());
  }
}

}  // namespace

Suite load_suites(const std::vector<fs::path>& paths, const SuiteOptions& options) {
  BB_CHECK(!paths.empty(), "no suite given; {}", kWhatIsASuite);
  Suite s;
  std::map<std::string, size_t> origin;
  for (const fs::path& path : paths)
    for (const fs::path& f : suite_files(path, options.format)) load_file(f, options, origin, s);
  return s;
}

Suite load_suite(const fs::path& path, const SuiteOptions& options) {
  return load_suites({path}, options);
}

}  // namespace bb
