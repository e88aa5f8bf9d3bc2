#include "probing/pair_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>

#include "common/error.h"
#include "probing/delimited.h"

namespace bb {

namespace {

using Column = PairColumn;

struct ColumnName {
  const char* name;
  Column column;
};

constexpr std::array<ColumnName, 14> kColumnNames{{
    {"good", Column::good}, {"sentence_good", Column::good}, {"good_sentence", Column::good},
    {"grammatical", Column::good}, {"acceptable", Column::good},
    {"bad", Column::bad}, {"sentence_bad", Column::bad}, {"bad_sentence", Column::bad},
    {"ungrammatical", Column::bad}, {"unacceptable", Column::bad},
    {"paradigm", Column::paradigm}, {"uid", Column::paradigm},
    {"phenomenon", Column::phenomenon}, {"linguistics_term", Column::phenomenon},
}};

// Words of an identifier-like name that say which sentence a column holds.
constexpr std::array<ColumnName, 8> kColumnWords{{
    {"good", Column::good}, {"grammatical", Column::good}, {"acceptable", Column::good},
    {"correct", Column::good},
    {"bad", Column::bad}, {"ungrammatical", Column::bad}, {"unacceptable", Column::bad},
    {"incorrect", Column::bad},
}};

std::string trimmed(const std::string& field) {
  const size_t first = field.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return field.substr(first, field.find_last_not_of(" \t\r") - first + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// A name as a program writes one: letters, digits, '_', '-' or '.', no spaces, a letter first.
bool identifier_like(const std::string& field) {
  const std::string f = trimmed(field);
  if (f.empty() || !std::isalpha(static_cast<unsigned char>(f[0]))) return false;
  return std::all_of(f.begin(), f.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

// An identifier's words: split at '_', '-', '.' and camelCase humps, lower-cased.
std::vector<std::string> name_words(const std::string& field) {
  std::vector<std::string> words;
  std::string w;
  const std::string f = trimmed(field);
  for (size_t i = 0; i < f.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(f[i]);
    const bool hump = i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(f[i - 1]));
    if (c == '_' || c == '-' || c == '.' || hump) {
      if (!w.empty()) words.push_back(lower(w));
      w.clear();
      if (!hump) continue;
    }
    w += char(c);
  }
  if (!w.empty()) words.push_back(lower(w));
  return words;
}

// Whether a field is written like a program's name rather than a word: '_' or a camelCase hump.
bool styled_as_name(const std::string& field) {
  const std::string f = trimmed(field);
  if (f.find('_') != std::string::npos) return true;
  for (size_t i = 1; i < f.size(); ++i)
    if (std::isupper(static_cast<unsigned char>(f[i])) && std::islower(static_cast<unsigned char>(f[i - 1])))
      return true;
  return false;
}

bool has_space(const std::string& s) { return trimmed(s).find_first_of(" \t") != std::string::npos; }

}  // namespace

std::optional<PairColumn> pair_column_of(const std::string& field) {
  const std::string f = lower(trimmed(field));
  if (f.empty()) return std::nullopt;
  for (const ColumnName& n : kColumnNames)
    if (f == n.name) return n.column;
  if (!identifier_like(field)) return std::nullopt;
  std::optional<Column> found;
  for (const std::string& w : name_words(field))
    for (const ColumnName& n : kColumnWords)
      if (w == n.name) {
        if (found && *found != n.column) return std::nullopt;  // good_vs_bad: names neither
        found = n.column;
      }
  return found;
}

bool header_like_row(const std::vector<std::string>& first,
                     const std::vector<std::vector<std::string>>& rest) {
  if (first.empty() || !std::all_of(first.begin(), first.end(), identifier_like)) return false;
  const bool named = std::any_of(first.begin(), first.end(), [](const std::string& f) {
    return styled_as_name(f) || pair_column_of(f).has_value();
  });
  if (named) return true;
  // Plain words above sentences: most of the rows after it have a field with a space.
  size_t sentences = 0;
  for (const auto& row : rest) sentences += std::any_of(row.begin(), row.end(), has_space);
  return !rest.empty() && 2 * sentences > rest.size();
}

namespace {

// Where each column is in a header row (-1: absent), and the header fields it ignores.
struct ColumnMap {
  std::map<Column, int> at;
  std::vector<std::string> ignored;
  bool names_only = true;   // every field is a known column name
  bool positional = false;  // --header on a row that names no columns: read by position
  bool has(Column c) const { return at.count(c) > 0; }
};

ColumnMap map_columns(const std::vector<std::string>& fields) {
  ColumnMap m;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto c = pair_column_of(fields[i]);
    if (!c) {
      m.ignored.push_back(fields[i]);
      m.names_only = false;
    } else if (!m.has(*c)) {
      m.at[*c] = int(i);
    }
  }
  return m;
}

constexpr const char* kHeaderHelp =
    "a header names a good column (good, sentence_good, good_sentence, grammatical, acceptable) "
    "and a bad one (bad, sentence_bad, bad_sentence, ungrammatical, unacceptable)";

// The good and bad fields of the rows after the first, for header_like_row.
std::vector<std::vector<std::string>> rows_after_first(const std::vector<DelimitedRow>& rows) {
  std::vector<std::vector<std::string>> rest;
  for (size_t r = 1; r < rows.size() && r <= kHeaderSampleRows; ++r) {
    const auto& f = rows[r].fields;
    rest.emplace_back(f.begin(), f.begin() + std::ptrdiff_t(std::min<size_t>(f.size(), 2)));
  }
  return rest;
}

// The column map the first row gives, or nothing when it is data.
std::optional<ColumnMap> header_of(const std::string& file, const std::vector<DelimitedRow>& rows,
                                   HeaderRule rule) {
  if (rule == HeaderRule::absent) return std::nullopt;
  const DelimitedRow& first = rows[0];
  ColumnMap m = map_columns(first.fields);
  const bool complete = m.has(Column::good) && m.has(Column::bad);
  if (complete) return m;
  if (rule == HeaderRule::present) {
    // A row of names that names no good and bad column: the columns by position.
    BB_CHECK(std::all_of(first.fields.begin(), first.fields.end(), identifier_like),
             "{}:{}: --header given but the first row ({}) is not one; {}", file, first.line,
             fmt::join(first.fields, ", "), kHeaderHelp);
    ColumnMap p;
    p.positional = true;
    p.at = {{Column::good, 0}, {Column::bad, 1}};
    if (first.fields.size() >= 3) p.at[Column::paradigm] = 2;
    return p;
  }
  BB_CHECK(!m.names_only || m.at.empty(), "{}:{}: the first row ({}) looks like a header but has "
           "no {} column; {} (or --no-header reads it as a pair)", file, first.line,
           fmt::join(first.fields, ", "), m.has(Column::good) ? "bad" : "good", kHeaderHelp);
  BB_CHECK(!header_like_row(first.fields, rows_after_first(rows)),
           "{}:{}: the first row ({}) looks like a header, not a sentence pair like the others; "
           "--header skips it (columns by position), --no-header scores it as a pair, or rename "
           "its columns: {}", file, first.line, fmt::join(first.fields, ", "), kHeaderHelp);
  return std::nullopt;
}

std::string header_note(const std::string& file, const DelimitedRow& first, const ColumnMap& m) {
  if (m.positional)
    return fmt::format("{}: line {} is a header ({}) by --header: columns read by position "
                       "(good, bad[, paradigm])", file, first.line, fmt::join(first.fields, ", "));
  std::string note = fmt::format("{}: line {} is a header ({}): columns read by name", file,
                                 first.line, fmt::join(first.fields, ", "));
  if (!m.ignored.empty()) note += fmt::format(", ignored: {}", fmt::join(m.ignored, ", "));
  return note + "; --no-header scores it as a pair";
}

}  // namespace

PairTable read_pair_table(const std::filesystem::path& file, const std::string& text,
                          HeaderRule header) {
  const std::string name = file.string();
  const bool csv = file.extension() == ".csv";
  const std::vector<DelimitedRow> rows =
      read_delimited(text, csv ? Delimiter::comma : Delimiter::tab, name);
  PairTable t;
  if (rows.empty()) return t;
  const std::optional<ColumnMap> named = header_of(name, rows, header);
  if (named) {
    t.header = rows[0].fields;
    t.note = header_note(name, rows[0], *named);
  }
  const char* sep = csv ? "," : "<TAB>";
  std::map<std::string, int> counts;
  for (size_t r = named ? 1 : 0; r < rows.size(); ++r) {
    const std::vector<std::string>& f = rows[r].fields;
    const std::string where = fmt::format("{}:{}", name, rows[r].line);
    // a .csv whose fields are tab-separated: one field holding tabs
    const std::string tabs_hint =
        csv && f.size() == 1 && f[0].find('\t') != std::string::npos
            ? "; the line has tabs: name a tab-separated file .tsv"
            : "";
    if (named)
      BB_CHECK(f.size() == t.header.size(), "{}: {} fields, expected {} as in the header (line {}){}",
               where, f.size(), t.header.size(), rows[0].line, tabs_hint);
    else
      BB_CHECK(f.size() == 2 || f.size() == 3, "{}: {} fields, expected good{}bad[{}paradigm] (or "
               "a header row naming the columns){}", where, f.size(), sep, sep, tabs_hint);
    // Field index of each column (-1: absent).
    auto at = [&](Column c, int positional) {
      if (!named) return positional < int(f.size()) ? positional : -1;
      return named->has(c) ? named->at.at(c) : -1;
    };
    auto what = [&](const char* column, int i) {
      return fmt::format("the {} (field {})", column, i + 1);
    };
    MinimalPair m;
    const int g = at(Column::good, 0), b = at(Column::bad, 1), p = at(Column::paradigm, 2),
              ph = at(Column::phenomenon, -1);
    check_pair_sentence(f[g], where, what("good sentence", g));
    check_pair_sentence(f[b], where, what("bad sentence", b));
    m.good = f[g];
    m.bad = f[b];
    m.good_at = m.bad_at = where;
    if (p >= 0) check_pair_sentence(f[p], where, what("paradigm", p));
    m.paradigm = p >= 0 ? f[p] : file.stem().string();
    if (ph >= 0) check_pair_sentence(f[ph], where, what("phenomenon", ph));
    m.phenomenon = ph >= 0 ? f[ph] : zorro_phenomenon(m.paradigm);
    m.index = counts[m.paradigm]++;
    t.pairs.push_back(std::move(m));
  }
  return t;
}

}  // namespace bb
