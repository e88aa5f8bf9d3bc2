#include "probing/pair_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "common/error.h"
#include "probing/delimited.h"

namespace bb {

namespace {

enum class Column { good, bad, paradigm, phenomenon };

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

std::optional<Column> column_of(std::string field) {
  const size_t first = field.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::nullopt;
  field = field.substr(first, field.find_last_not_of(" \t\r") - first + 1);
  std::transform(field.begin(), field.end(), field.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  for (const ColumnName& n : kColumnNames)
    if (field == n.name) return n.column;
  return std::nullopt;
}

// Where each column is in a header row (-1: absent), and the header fields it ignores.
struct ColumnMap {
  std::map<Column, int> at;
  std::vector<std::string> ignored;
  bool names_only = true;  // every field is a known column name
  bool has(Column c) const { return at.count(c) > 0; }
};

ColumnMap map_columns(const std::vector<std::string>& fields) {
  ColumnMap m;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto c = column_of(fields[i]);
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

// The column map the first row gives, or nothing when it is data.
std::optional<ColumnMap> header_of(const std::string& file, const DelimitedRow& first,
                                   HeaderRule rule) {
  if (rule == HeaderRule::absent) return std::nullopt;
  ColumnMap m = map_columns(first.fields);
  const bool complete = m.has(Column::good) && m.has(Column::bad);
  if (rule == HeaderRule::present)
    BB_CHECK(complete, "{}:{}: --header given but the first row ({}) is not one; {}", file,
             first.line, fmt::join(first.fields, ", "), kHeaderHelp);
  else
    BB_CHECK(complete || !m.names_only, "{}:{}: the first row ({}) looks like a header but has no "
             "{} column; {} (or --no-header reads it as a pair)", file, first.line,
             fmt::join(first.fields, ", "), m.has(Column::good) ? "bad" : "good", kHeaderHelp);
  if (!complete) return std::nullopt;
  return m;
}

std::string header_note(const std::string& file, const DelimitedRow& first, const ColumnMap& m) {
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
  const std::optional<ColumnMap> named = header_of(name, rows[0], header);
  if (named) {
    t.header = rows[0].fields;
    t.note = header_note(name, rows[0], *named);
  }
  const char* sep = csv ? "<COMMA>" : "<TAB>";
  std::map<std::string, int> counts;
  for (size_t r = named ? 1 : 0; r < rows.size(); ++r) {
    const std::vector<std::string>& f = rows[r].fields;
    const std::string where = fmt::format("{}:{}", name, rows[r].line);
    if (named)
      BB_CHECK(f.size() == t.header.size(), "{}: {} fields, expected {} as in the header (line {})",
               where, f.size(), t.header.size(), rows[0].line);
    else
      BB_CHECK(f.size() == 2 || f.size() == 3, "{}: {} fields, expected good{}bad[{}paradigm] (or "
               "a header row naming the columns)", where, f.size(), sep, sep);
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
