// Rows of a delimited text file (a user's own minimal pairs).
//   TSV: fields split at every tab, no quoting (IANA text/tab-separated-values: a field holds no
//        tab or line break).
//   CSV: RFC 4180: fields split at commas; a field in double quotes may hold commas, line breaks
//        and "" for one quote; a quote inside an unquoted field is kept as it is.
// Both: LF or CRLF line ends, a UTF-8 byte-order mark at the start is dropped, blank rows (no
// field but whitespace) are skipped. Errors name file:line.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace bb {

enum class Delimiter { tab, comma };

struct DelimitedRow {
  size_t line = 0;  // 1-based line where the row starts
  std::vector<std::string> fields;
};

std::vector<DelimitedRow> read_delimited(const std::string& text, Delimiter delimiter,
                                         const std::string& file);

}  // namespace bb
