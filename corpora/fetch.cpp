#include "corpora/fetch.h"

#include <curl/curl.h>
#include <fmt/core.h>

#include <algorithm>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"

namespace bb {

namespace fs = std::filesystem;

bool digest_matches(const std::string& bytes, const std::string& digest) {
  if (digest.rfind("sha256:", 0) == 0) return sha256_hex(bytes) == digest.substr(7);
  if (digest.rfind("gitblob:", 0) == 0) return git_blob_sha1_hex(bytes) == digest.substr(8);
  fail("unknown digest kind in '{}'", digest);
}

static size_t append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// The body of `url`, or an error message.
static bool download(const std::string& url, std::string& body, std::string& error) {
  CURL* curl = curl_easy_init();
  BB_CHECK(curl, "libcurl: cannot initialise");
  char msg[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, msg);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) error = msg[0] ? msg : curl_easy_strerror(rc);
  return rc == CURLE_OK;
}

FetchReport fetch_data(const FetchOptions& opt) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  FetchReport report;
  for (const DataFile& f : data_files()) {
    if (std::find(opt.datasets.begin(), opt.datasets.end(), f.dataset) == opt.datasets.end()) continue;
    const fs::path dest = opt.out / f.dest;
    if (fs::exists(dest) && digest_matches(read_file(dest), f.digest)) {
      ++report.kept;
      continue;
    }
    const Source& src = *std::find_if(data_sources().begin(), data_sources().end(),
                                      [&](const Source& s) { return s.dataset == f.dataset; });
    const std::string url = opt.base + "/" + src.repo + "/" + src.commit + "/" + f.path;
    std::string body, error;
    if (!download(url, body, error)) {
      report.failures.push_back(fmt::format("{}: download failed ({})", url, error));
      continue;
    }
    if (!digest_matches(body, f.digest)) {
      report.failures.push_back(
          fmt::format("{}: content does not match {} (got {} bytes; not written)", url, f.digest,
                      body.size()));
      continue;
    }
    fs::create_directories(dest.parent_path());
    write_file_atomic(dest, body);
    ++report.downloaded;
  }
  curl_global_cleanup();
  return report;
}

}  // namespace bb
