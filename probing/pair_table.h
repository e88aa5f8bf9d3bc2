// A user's own minimal pairs in a .tsv or .csv file (see delimited.h for the two syntaxes).
// Without a header row the columns are good, bad[, paradigm] by position. A header row maps them
// by name (case-insensitive, surrounding spaces ignored):
//   good:       good, sentence_good, good_sentence, grammatical, acceptable
//   bad:        bad, sentence_bad, bad_sentence, ungrammatical, unacceptable
//   paradigm:   paradigm, uid            (optional; default: the file's stem)
//   phenomenon: phenomenon, linguistics_term (optional; default: the paradigm before its last '-')
// and an identifier-like name one of whose words is good/grammatical/acceptable/correct (or
// bad/ungrammatical/unacceptable/incorrect) names that column: good_sent, badSentence, ...
// Any other column is ignored and named in the note.
//
// HeaderRule::detect takes the first row as a header when it names both a good and a bad column.
// It refuses, naming --header and --no-header, a first row that is no sentence pair like the
// others: one made only of column names that lacks good or bad, or one whose fields are all
// identifier-like (no spaces) and either look like names (an underscore, camelCase, a column
// name) or stand above rows of sentences. A suite of one-word pairs (cat,cats) loads as data.
// present (--header) skips the first row, by name when it names the columns, else by position;
// absent (--no-header) scores it as a pair.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "probing/suite.h"

namespace bb {

struct PairTable {
  std::vector<MinimalPair> pairs;
  std::vector<std::string> header;  // the header row's fields as written; empty without one
  std::string note;                 // one line for the user when a header was read; else empty
};

PairTable read_pair_table(const std::filesystem::path& file, const std::string& text,
                          HeaderRule header);

enum class PairColumn { good, bad, paradigm, phenomenon };
// The column a header field (or a JSONL key) names, by the rules above; nothing for another name.
std::optional<PairColumn> pair_column_of(const std::string& field);
// Whether a first row (`first`) is no sentence pair like the rows after it (`rest`, the good and
// bad fields of the next kHeaderSampleRows rows at most), by the detect rule above.
inline constexpr size_t kHeaderSampleRows = 20;
bool header_like_row(const std::vector<std::string>& first,
                     const std::vector<std::vector<std::string>>& rest);

}  // namespace bb
