// A user's own minimal pairs in a .tsv or .csv file (see delimited.h for the two syntaxes).
// Without a header row the columns are good, bad[, paradigm] by position. A header row maps them
// by name (case-insensitive, surrounding spaces ignored):
//   good:       good, sentence_good, good_sentence, grammatical, acceptable
//   bad:        bad, sentence_bad, bad_sentence, ungrammatical, unacceptable
//   paradigm:   paradigm, uid            (optional; default: the file's stem)
//   phenomenon: phenomenon, linguistics_term (optional; default: the paradigm before its last '-')
// any other column is ignored and named in the note. HeaderRule::detect takes the first row as a
// header when it names both a good and a bad column, and refuses a first row made only of column
// names that lacks one of them; present / absent force the choice (--header / --no-header).
#pragma once
#include <filesystem>
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

}  // namespace bb
