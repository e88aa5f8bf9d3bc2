// Minimal-pair suites. A suite is one of:
//   - a directory: every .txt (Zorro), .jsonl (BLiMP) and .tsv file in it, sorted by name;
//   - a Zorro file phenomenon-paradigm.txt: two lines per pair, odd line ungrammatical and even
//     grammatical by default, at most 20,000 lines (--format zorro lifts the name and size rule);
//   - a BLiMP .jsonl: one object per line with string fields sentence_good, sentence_bad and
//     optionally UID (the paradigm) and linguistics_term (the phenomenon);
//   - a .tsv or .csv of a user's own pairs: good, bad[, paradigm] by position, or columns named
//     by a header row (detected, or forced either way; see pair_table.h).
// Anything else (a result .json, a training corpus) is refused with one line saying what a suite
// is. Every sentence must be non-empty UTF-8; errors name the file and line. A paradigm is named
// by its file (Zorro, BLiMP without UID, TSV/CSV without a paradigm column); its phenomenon is the
// part before the last '-' (Zorro, TSV/CSV) or BLiMP's linguistics_term (or a table's phenomenon
// column). A paradigm comes from one file
// only: the same name in two files is an error naming both.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace bb {

struct MinimalPair {
  std::string good, bad, paradigm, phenomenon;
  int index = 0;                 // within the paradigm
  std::string good_at = {}, bad_at = {};  // where each sentence stands: "FILE:LINE" (messages)
};

struct SuiteFile {
  std::filesystem::path path;
  std::string sha256;
  std::vector<std::string> header;  // a TSV/CSV header row read as column names; else empty
};

struct Suite {
  std::vector<MinimalPair> pairs;
  std::vector<SuiteFile> files;
  std::vector<std::string> paradigms;  // in file order
  std::vector<std::string> notes;      // one line per file read in a way the user should know
};

enum class PairOrder { bad_first, good_first };  // Zorro: odd line (first) ungrammatical
// detect: by extension, with the Zorro name and size rule for .txt; zorro: every file given (every
// .txt of a directory) is a Zorro file, whatever its name, extension or size.
enum class SuiteFormat { detect, zorro };
SuiteFormat parse_suite_format(const std::string& s);  // "auto" or "zorro"
// A TSV/CSV's first row: detect (a header when it names a good and a bad column), present, absent.
enum class HeaderRule { detect, present, absent };

struct SuiteOptions {
  PairOrder order = PairOrder::bad_first;
  SuiteFormat format = SuiteFormat::detect;
  HeaderRule header = HeaderRule::detect;
};

constexpr size_t kMaxDetectedZorroLines = 20000;

// A directory (every .txt / .jsonl / .tsv / .csv in it, sorted) or one file.
Suite load_suite(const std::filesystem::path& path, const SuiteOptions& options = {});
// Several suites as one, in the order given.
Suite load_suites(const std::vector<std::filesystem::path>& paths,
                  const SuiteOptions& options = {});
std::string zorro_phenomenon(const std::string& paradigm);
// A sentence (or name) at `where` (file:line) must be non-empty UTF-8; `what` names the field.
void check_pair_sentence(const std::string& s, const std::string& where, const std::string& what);

}  // namespace bb
