#include "probing/delimited.h"

#include <string_view>

#include "common/error.h"

namespace bb {

namespace {

bool blank_row(const std::vector<std::string>& fields) {
  for (const std::string& f : fields)
    if (f.find_first_not_of(" \t\r") != std::string::npos) return false;
  return true;
}

// One row from `pos` (advanced past its line end). Counts the line breaks inside quoted fields in
// `line`.
std::vector<std::string> next_row(std::string_view text, size_t& pos, size_t& line, char sep,
                                  bool quoting, const std::string& file) {
  std::vector<std::string> fields(1);
  const size_t start_line = line;
  bool at_field_start = true;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '\n' || (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos += c == '\r' ? 2 : 1;
      ++line;
      return fields;
    }
    ++pos;
    if (c == sep) {
      fields.emplace_back();
      at_field_start = true;
      continue;
    }
    if (quoting && c == '"' && at_field_start) {  // a quoted field, up to its closing quote
      for (;;) {
        BB_CHECK(pos < text.size(), "{}:{}: a quoted field opened here is never closed, expected "
                 "a closing \" (CSV, RFC 4180)", file, start_line);
        const char q = text[pos++];
        if (q == '"' && pos < text.size() && text[pos] == '"') {
          fields.back() += '"';
          ++pos;
        } else if (q == '"') {
          break;
        } else {
          if (q == '\n') ++line;
          fields.back() += q;
        }
      }
      const bool row_ends = pos >= text.size() || text[pos] == '\n' ||
                            text.substr(pos, 2) == "\r\n";
      BB_CHECK(row_ends || text[pos] == sep, "{}:{}: text after a closing quote, expected a comma "
               "or the end of the line (CSV, RFC 4180: a quote inside a quoted field is \"\")",
               file, line);
      at_field_start = false;
      continue;
    }
    fields.back() += c;
    at_field_start = false;
  }
  ++line;
  return fields;
}

}  // namespace

std::vector<DelimitedRow> read_delimited(const std::string& text, Delimiter delimiter,
                                         const std::string& file) {
  std::string_view rest(text);
  if (rest.starts_with("\xEF\xBB\xBF")) rest.remove_prefix(3);  // UTF-8 byte-order mark
  const char sep = delimiter == Delimiter::tab ? '\t' : ',';
  std::vector<DelimitedRow> rows;
  size_t pos = 0, line = 1;
  while (pos < rest.size()) {
    const size_t row_line = line;
    std::vector<std::string> fields =
        next_row(rest, pos, line, sep, delimiter == Delimiter::comma, file);
    if (!blank_row(fields)) rows.push_back({row_line, std::move(fields)});
  }
  return rows;
}

}  // namespace bb
