// Suite loaders: Zorro directories (order option), BLiMP jsonl, TSV; malformed input errors.
#include <doctest/doctest.h>

#include <set>

#include "common/error.h"
#include "common/files.h"
#include "probing/suite.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

TEST_CASE("Zorro: odd lines ungrammatical, paradigm from the file, phenomenon before the last '-'") {
  test::TempDir d("zorro");
  write_file_atomic(d.path / "filler-gap-wh_question_object.txt",
                    "what did the dog see the ball ?\nwhat did the dog see ?\n"
                    "who the cat saw ?\nwho did the cat see ?\n");
  write_file_atomic(d.path / "irregular-verb.txt", "he goed .\nhe went .\n");
  write_file_atomic(d.path / "notes.md", "ignored");
  const Suite s = load_suite(d.path);
  REQUIRE(s.pairs.size() == 3);
  CHECK(s.pairs[0].good == "what did the dog see ?");
  CHECK(s.pairs[0].bad == "what did the dog see the ball ?");
  CHECK(s.pairs[0].paradigm == "filler-gap-wh_question_object");
  CHECK(s.pairs[0].phenomenon == "filler-gap");
  CHECK(s.pairs[1].index == 1);
  CHECK(s.pairs[2].phenomenon == "irregular");
  CHECK(s.files.size() == 2);
  CHECK(s.paradigms == std::vector<std::string>{"filler-gap-wh_question_object", "irregular-verb"});
  const Suite g = load_suite(d.path / "irregular-verb.txt", PairOrder::good_first);
  CHECK(g.pairs[0].good == "he goed .");
}

TEST_CASE("the real Zorro suite: 23 paradigms, 13 phenomena, 2000 pairs each") {
  const fs::path zorro = fs::path(BB_SHARED_DATA) / "zorro";
  if (!fs::exists(zorro)) return;
  const Suite s = load_suite(zorro);
  CHECK(s.paradigms.size() == 23);
  CHECK(s.pairs.size() == 23 * 2000);
  std::set<std::string> phenomena;
  for (const auto& p : s.pairs) phenomena.insert(p.phenomenon);
  CHECK(phenomena.size() == 13);
}

TEST_CASE("BLiMP jsonl and TSV") {
  test::TempDir d("blimp");
  write_file_atomic(d.path / "anaphor.jsonl",
                    "{\"sentence_good\": \"Tom saw himself.\", \"sentence_bad\": \"Tom saw herself.\", "
                    "\"UID\": \"anaphor_gender_agreement\", \"linguistics_term\": \"anaphor agreement\"}\n");
  const Suite b = load_suite(d.path / "anaphor.jsonl");
  CHECK(b.pairs[0].good == "Tom saw himself.");
  CHECK(b.pairs[0].paradigm == "anaphor_gender_agreement");
  CHECK(b.pairs[0].phenomenon == "anaphor agreement");
  write_file_atomic(d.path / "mine.tsv", "the dogs run .\tthe dogs runs .\tagreement-simple\n"
                                         "a cat sleeps .\ta cat sleep .\n");
  const Suite t = load_suite(d.path / "mine.tsv");
  CHECK(t.pairs[0].paradigm == "agreement-simple");
  CHECK(t.pairs[0].phenomenon == "agreement");
  CHECK(t.pairs[1].paradigm == "mine");
}

TEST_CASE("malformed suites are reported with file and line") {
  test::TempDir d("bad");
  write_file_atomic(d.path / "odd.txt", "a .\nb .\nc .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "odd.txt"), doctest::Contains("odd.txt: 3 lines, expected an even number"), Error);
  write_file_atomic(d.path / "b.jsonl", "{\"sentence_good\": \"x\", \"sentence_bad\": \"y\"}\n{broken\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "b.jsonl"), doctest::Contains("b.jsonl:2: not valid JSON"), Error);
  write_file_atomic(d.path / "c.jsonl", "{\"sentence_good\": \"x\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "c.jsonl"), doctest::Contains("c.jsonl:1: expected sentence_good and sentence_bad"), Error);
  write_file_atomic(d.path / "t.tsv", "only one field\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "t.tsv"), doctest::Contains("t.tsv:1: expected good<TAB>bad"), Error);
  CHECK_THROWS_WITH_AS(load_suite(d.path / "nope"), doctest::Contains("nope: no such suite"), Error);
}
