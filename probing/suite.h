// Minimal-pair suites: Zorro (a directory of paradigm .txt files, two lines per pair, odd line
// ungrammatical and even grammatical by default), BLiMP jsonl (sentence_good, sentence_bad,
// linguistics_term), and plain TSV (good<TAB>bad[<TAB>paradigm]) for a user's own pairs.
// A paradigm is named by its file; its phenomenon is the part before the last '-' (Zorro) or the
// jsonl linguistics_term.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace bb {

struct MinimalPair {
  std::string good, bad, paradigm, phenomenon;
  int index = 0;  // within the paradigm
};

struct SuiteFile {
  std::filesystem::path path;
  std::string sha256;
};

struct Suite {
  std::vector<MinimalPair> pairs;
  std::vector<SuiteFile> files;
  std::vector<std::string> paradigms;  // in file order
};

enum class PairOrder { bad_first, good_first };  // Zorro: odd line (first) ungrammatical

// A directory (every .txt / .jsonl / .tsv in it, sorted) or one file.
Suite load_suite(const std::filesystem::path& path, PairOrder order = PairOrder::bad_first);
std::string zorro_phenomenon(const std::string& paradigm);

}  // namespace bb
