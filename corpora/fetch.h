// `babyberta data fetch`: downloads AO-CHILDES, Zorro and BLiMP from their public repositories at
// pinned commits and verifies every file (sha256, or git blob id for aochildes.txt) before it is
// moved into place. Files already present and verified are kept.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace bb {

enum class Dataset { aochildes, zorro, blimp };

struct Source {
  Dataset dataset;
  std::string repo;    // owner/name
  std::string commit;  // pinned
  std::string licence;
};

struct DataFile {
  Dataset dataset;
  std::string dest;    // path under the output directory
  std::string path;    // path in the repository
  std::string digest;  // "sha256:<hex>" or "gitblob:<hex>"
};

const std::vector<Source>& data_sources();
const std::vector<DataFile>& data_files();

struct FetchOptions {
  std::filesystem::path out;
  // Base URL: a file's URL is BASE/<owner>/<name>/<commit>/<path>. Any libcurl URL works,
  // file:// included (tests, offline mirrors).
  std::string base = "https://raw.githubusercontent.com";
  std::vector<Dataset> datasets = {Dataset::aochildes, Dataset::zorro, Dataset::blimp};
};

struct FetchReport {
  int downloaded = 0, kept = 0;
  std::vector<std::string> failures;  // one line each
};

FetchReport fetch_data(const FetchOptions& opt);
bool digest_matches(const std::string& bytes, const std::string& digest);

}  // namespace bb
