// data fetch against a local file:// mirror (no network here): verified copies land in place,
// tampered or missing files are reported and never written.
#include <doctest/doctest.h>

#include "common/files.h"
#include "common/hash.h"
#include "corpora/fetch.h"
#include "shared_data.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

TEST_CASE("digests: sha256 and git blob ids") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(git_blob_sha1_hex("hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a");
  CHECK(digest_matches("abc", "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

TEST_CASE("fetch from a file:// mirror of the pinned commits verifies every file") {
  if (!test::shared_data("zorro")) return;
  const fs::path shared = BB_SHARED_DATA;
  test::TempDir mirror("mirror"), out("fetched");
  // Lay out BASE/<owner>/<repo>/<commit>/<path> from the byte-identical copies in shared/.
  for (const DataFile& f : data_files()) {
    if (f.dataset == Dataset::aochildes) continue;
    const Source& s = data_sources()[f.dataset == Dataset::zorro ? 1 : 2];
    const fs::path dst = mirror.path / s.repo / s.commit / f.path;
    fs::create_directories(dst.parent_path());
    fs::copy_file(shared / f.dest, dst);
  }
  FetchOptions opt{.out = out.path, .base = "file://" + mirror.path.string(),
                   .datasets = {Dataset::zorro, Dataset::blimp}};
  FetchReport r = fetch_data(opt);
  CHECK(r.failures.empty());
  CHECK(r.downloaded == 23 + 1 + 67);
  CHECK(read_file(out.path / "zorro/binding-principle_a.txt") ==
        read_file(shared / "zorro/binding-principle_a.txt"));
  r = fetch_data(opt);  // idempotent: verified files are kept
  CHECK(r.kept == 91);
  CHECK(r.downloaded == 0);

  // A tampered upstream file is refused and not written.
  const Source& zorro = data_sources()[1];
  const fs::path tampered = mirror.path / zorro.repo / zorro.commit / "sentences/babyberta/irregular-verb.txt";
  write_file_atomic(tampered, "the dog sees the ball .\n");
  fs::remove(out.path / "zorro/irregular-verb.txt");
  r = fetch_data(opt);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].find("irregular-verb.txt: content does not match sha256:") != std::string::npos);
  CHECK_FALSE(fs::exists(out.path / "zorro/irregular-verb.txt"));

  // AO-CHILDES is not in the mirror: a clear download failure.
  opt.datasets = {Dataset::aochildes};
  r = fetch_data(opt);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].find("aochildes.txt: download failed") != std::string::npos);
}

TEST_CASE("the AO-CHILDES blob id is checked the git way") {
  const auto merged = test::shared_data("aochildes/aochildes_merged.txt");
  if (!merged) return;
  // The recoverable 40% is not the original file: it must not pass as aochildes.txt.
  CHECK_FALSE(digest_matches(read_file(*merged), data_files()[0].digest));
}
