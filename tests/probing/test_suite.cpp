// Suite loaders: Zorro directories (order option), BLiMP jsonl, TSV; malformed input errors.
#include <doctest/doctest.h>

#include <set>

#include "common/error.h"
#include "common/files.h"
#include "probing/pair_table.h"
#include "probing/suite.h"
#include "shared_data.h"
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
  const Suite g = load_suite(d.path / "irregular-verb.txt", {.order = PairOrder::good_first});
  CHECK(g.pairs[0].good == "he goed .");
}

TEST_CASE("the real Zorro suite: 23 paradigms, 13 phenomena, 2000 pairs each") {
  const auto zorro = test::shared_data("zorro");
  if (!zorro) return;
  const Suite s = load_suite(*zorro);
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

TEST_CASE("a TSV header row maps the columns by name and is not scored as a pair") {
  test::TempDir d("header");
  write_file_atomic(d.path / "h.tsv", "good\tbad\tparadigm\n"
                                      "the dogs run .\tthe dogs runs .\tagr-simple\n");
  const Suite s = load_suite(d.path / "h.tsv");
  REQUIRE(s.pairs.size() == 1);
  CHECK(s.pairs[0].good == "the dogs run .");
  CHECK(s.paradigms == std::vector<std::string>{"agr-simple"});
  CHECK(s.files[0].header == std::vector<std::string>{"good", "bad", "paradigm"});
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("h.tsv: line 1 is a header (good, bad, paradigm)") != std::string::npos);
  // Columns in another order, other names, an extra column ignored, a phenomenon column.
  write_file_atomic(d.path / "o.tsv", "ID\t Sentence_Bad \tsentence_good\tUID\tlinguistics_term\n"
                                      "7\tthe dogs runs .\tthe dogs run .\tx_y\tagreement\n");
  const Suite o = load_suite(d.path / "o.tsv");
  REQUIRE(o.pairs.size() == 1);
  CHECK(o.pairs[0].good == "the dogs run .");
  CHECK(o.pairs[0].bad == "the dogs runs .");
  CHECK(o.pairs[0].paradigm == "x_y");
  CHECK(o.pairs[0].phenomenon == "agreement");
  CHECK(o.notes[0].find("ignored: ID") != std::string::npos);
  // --no-header: the first row is a pair; --header: it must be one.
  const Suite n = load_suite(d.path / "h.tsv", {.header = HeaderRule::absent});
  CHECK(n.pairs.size() == 2);
  CHECK(n.pairs[0].good == "good");
  CHECK(n.notes.empty());
  write_file_atomic(d.path / "p.tsv", "a dog runs .\ta dog run .\n");
  CHECK(load_suite(d.path / "p.tsv").pairs.size() == 1);  // no header: detected as data
  CHECK_THROWS_WITH_AS(load_suite(d.path / "p.tsv", {.header = HeaderRule::present}),
                       doctest::Contains("p.tsv:1: --header given but the first row"), Error);
  // A row of column names without a bad column is refused, not scored.
  write_file_atomic(d.path / "q.tsv", "good\tparadigm\nthe dogs run .\tx\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "q.tsv"),
                       doctest::Contains("q.tsv:1: the first row (good, paradigm) looks like a "
                                         "header but has no bad column"), Error);
  write_file_atomic(d.path / "r.tsv", "good\tbad\na .\tb .\tc\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "r.tsv"),
                       doctest::Contains("r.tsv:2: 3 fields, expected 2 as in the header (line 1)"),
                       Error);
}

TEST_CASE("a first row that is no sentence pair like the others is never scored silently") {
  test::TempDir d("header-like");
  // Issue 46's input: identifier-like names that say which column is good and which bad.
  write_file_atomic(d.path / "h2.csv", "good_sent,bad_sent\n"
                                       "the dog runs .,the dog run .\nthe cats are .,the cats is .\n");
  const Suite h = load_suite(d.path / "h2.csv");
  REQUIRE(h.pairs.size() == 2);
  CHECK(h.pairs[0].good == "the dog runs .");
  REQUIRE(h.notes.size() == 1);
  CHECK(h.notes[0].find("line 1 is a header (good_sent, bad_sent): columns read by name") !=
        std::string::npos);
  // camelCase and reversed order map by name too.
  write_file_atomic(d.path / "c.tsv", "badSentence\tgoodSentence\nthe dog run .\tthe dog runs .\n");
  CHECK(load_suite(d.path / "c.tsv").pairs.at(0).good == "the dog runs .");
  // Names that say neither good nor bad: refused, naming both flags; each flag then decides.
  write_file_atomic(d.path / "a.csv", "sentence_a,sentence_b\nthe dog runs .,the dog run .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "a.csv"),
                       doctest::Contains("a.csv:1: the first row (sentence_a, sentence_b) looks like "
                                         "a header, not a sentence pair like the others; --header "
                                         "skips it (columns by position), --no-header scores it"),
                       Error);
  const Suite skipped = load_suite(d.path / "a.csv", {.header = HeaderRule::present});
  REQUIRE(skipped.pairs.size() == 1);
  CHECK(skipped.pairs[0].good == "the dog runs .");
  CHECK(skipped.notes.at(0).find("columns read by position") != std::string::npos);
  CHECK(load_suite(d.path / "a.csv", {.header = HeaderRule::absent}).pairs.size() == 2);
  // Plain words above sentences: refused; plain words above plain words: one-word pairs.
  write_file_atomic(d.path / "w.tsv", "first\tsecond\nthe dog runs .\tthe dog run .\n"
                                      "a cat sits .\ta cat sit .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "w.tsv"), doctest::Contains("looks like a header"), Error);
  write_file_atomic(d.path / "words.csv", "cat,cats\ndog,dogs\n");
  const Suite words = load_suite(d.path / "words.csv");
  CHECK(words.pairs.size() == 2);
  CHECK(words.notes.empty());
  // A one-word pair alone, and a good_vs_bad name (both words): data, not a header.
  write_file_atomic(d.path / "one.csv", "cat,cats\n");
  CHECK(load_suite(d.path / "one.csv").pairs.size() == 1);
  CHECK_FALSE(pair_column_of("good_vs_bad").has_value());
  CHECK(pair_column_of("Grammatical_Sentence") == PairColumn::good);
  CHECK(pair_column_of("sent_incorrect") == PairColumn::bad);
  CHECK_FALSE(pair_column_of("the good dog").has_value());  // a sentence, not a name
}

TEST_CASE("JSONL: keys read by name, the others named, a header-like first record refused") {
  test::TempDir d("jsonl-keys");
  write_file_atomic(d.path / "k.jsonl",
                    "{\"good\": \"the dog runs .\", \"bad\": \"the dog run .\", \"id\": 1}\n");
  const Suite k = load_suite(d.path / "k.jsonl");
  REQUIRE(k.pairs.size() == 1);
  CHECK(k.pairs[0].bad == "the dog run .");
  REQUIRE(k.notes.size() == 1);
  CHECK(k.notes[0].find("sentences read from the keys bad, good; ignored: id") != std::string::npos);
  // BLiMP's own keys are neither read as sentences nor noted (one_prefix_word_good is a word).
  write_file_atomic(d.path / "b.jsonl",
                    "{\"sentence_good\": \"a b .\", \"sentence_bad\": \"b a .\", "
                    "\"one_prefix_word_good\": \"a\", \"UID\": \"x\", \"pairID\": \"0\"}\n");
  const Suite b = load_suite(d.path / "b.jsonl");
  CHECK(b.pairs.at(0).good == "a b .");
  CHECK(b.notes.empty());
  write_file_atomic(d.path / "h.jsonl",
                    "{\"sentence_good\": \"sentence_good\", \"sentence_bad\": \"sentence_bad\"}\n"
                    "{\"sentence_good\": \"the dog runs .\", \"sentence_bad\": \"the dog run .\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "h.jsonl"),
                       doctest::Contains("h.jsonl:1: the first record (sentence_good, sentence_bad) "
                                         "looks like a header"), Error);
  CHECK(load_suite(d.path / "h.jsonl", {.header = HeaderRule::present}).pairs.size() == 1);
  CHECK(load_suite(d.path / "h.jsonl", {.header = HeaderRule::absent}).pairs.size() == 2);
  write_file_atomic(d.path / "two.jsonl",
                    "{\"good\": \"a b .\", \"grammatical\": \"a b .\", \"bad\": \"b a .\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "two.jsonl"),
                       doctest::Contains("keys good, grammatical all name the good sentence"), Error);
}

TEST_CASE("CSV: RFC 4180 quoting, CRLF, a byte-order mark, a header, and errors by line") {
  test::TempDir d("csv");
  write_file_atomic(d.path / "c.csv", "\xEF\xBB\xBFsentence_good,sentence_bad\r\n"
                                      "\"yes, the dog runs .\",\"yes, the dog run .\"\r\n"
                                      "\"he said \"\"hi\"\" .\",\"he say\nhi .\"\r\n"
                                      "\r\n"
                                      "a cat sleeps .,a cat sleep .\n");
  const Suite s = load_suite(d.path / "c.csv");
  REQUIRE(s.pairs.size() == 3);
  CHECK(s.pairs[0].good == "yes, the dog runs .");
  CHECK(s.pairs[1].good == "he said \"hi\" .");
  CHECK(s.pairs[1].bad == "he say\nhi .");
  CHECK(s.pairs[2].bad == "a cat sleep .");
  CHECK(s.pairs[2].paradigm == "c");
  CHECK(s.files[0].header == std::vector<std::string>{"sentence_good", "sentence_bad"});
  write_file_atomic(d.path / "n.csv", "a b .,a c .,agr-x\n");
  CHECK(load_suite(d.path / "n.csv").pairs[0].paradigm == "agr-x");
  write_file_atomic(d.path / "u.csv", "a b .,a c .\n\"open,b .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "u.csv"),
                       doctest::Contains("u.csv:2: a quoted field opened here is never closed"),
                       Error);
  write_file_atomic(d.path / "t.csv", "\"a\" b,c\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "t.csv"),
                       doctest::Contains("t.csv:1: text after a closing quote"), Error);
  write_file_atomic(d.path / "one.csv", "a b .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "one.csv"),
                       doctest::Contains("one.csv:1: 1 fields, expected good,bad[,paradigm]"), Error);
  // a tab-separated file named .csv: the fix said
  write_file_atomic(d.path / "tabs.csv", "a b .\ta c .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "tabs.csv"),
                       doctest::Contains("tabs.csv:1: 1 fields, expected good,bad[,paradigm] (or a "
                                         "header row naming the columns); the line has tabs: name "
                                         "a tab-separated file .tsv"),
                       Error);
  // A directory picks up .csv files too.
  fs::create_directory(d.path / "dir");
  write_file_atomic(d.path / "dir" / "agr-x.csv", "a b .,a c .\n");
  write_file_atomic(d.path / "dir" / "agr-y.txt", "a c .\na b .\n");
  CHECK(load_suite(d.path / "dir").paradigms == std::vector<std::string>{"agr-x", "agr-y"});
}

TEST_CASE("a BLiMP or TSV file read as Zorro is named, with the format it looks like") {
  test::TempDir d("wrong-format");
  write_file_atomic(d.path / "island.jsonl",
                    "{\"sentence_good\": \"Who did Tom see?\", \"sentence_bad\": \"Who Tom see?\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "island.jsonl", {.format = SuiteFormat::zorro}),
                       doctest::Contains("island.jsonl: read as a Zorro file (one sentence per line) "
                                         "but it looks like a BLiMP file (a JSON object per line); "
                                         "drop --format zorro"), Error);
  write_file_atomic(d.path / "agr-x.txt", "a b .\ta c .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "agr-x.txt"),
                       doctest::Contains("agr-x.txt: read as a Zorro file (one sentence per line) "
                                         "but it looks like pairs separated by tabs; name it *.tsv"),
                       Error);
}

TEST_CASE("malformed suites are reported with file and line") {
  test::TempDir d("bad");
  write_file_atomic(d.path / "odd.txt", "a .\nb .\nc .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "odd.txt"), doctest::Contains("odd.txt: 3 lines, expected an even number"), Error);
  write_file_atomic(d.path / "b.jsonl", "{\"sentence_good\": \"x\", \"sentence_bad\": \"y\"}\n{broken\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "b.jsonl"), doctest::Contains("b.jsonl:2: not valid JSON"), Error);
  write_file_atomic(d.path / "c.jsonl", "{\"sentence_good\": \"x\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "c.jsonl"), doctest::Contains("c.jsonl:1: no bad sentence among the keys (sentence_good); expected "
                                         "sentence_good and sentence_bad"), Error);
  write_file_atomic(d.path / "t.tsv", "only one field\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "t.tsv"), doctest::Contains("t.tsv:1: 1 fields, expected good<TAB>bad"), Error);
  CHECK_THROWS_WITH_AS(load_suite(d.path / "nope"), doctest::Contains("nope: no such suite"), Error);
}

TEST_CASE("what is not a suite is refused with what a suite is") {
  test::TempDir d("notsuite");
  write_file_atomic(d.path / "r.json", "{\"paradigms\": {}}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "r.json"),
                       doctest::Contains("r.json: not a suite (a suite is a directory of Zorro"), Error);
  write_file_atomic(d.path / "corpus.txt", "the dog runs .\nthe cat sleeps .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "corpus.txt"),
                       doctest::Contains("corpus.txt: not named phenomenon-paradigm.txt"), Error);
  CHECK(load_suite(d.path / "corpus.txt", {.format = SuiteFormat::zorro}).pairs.size() == 1);
  std::string big;
  for (int i = 0; i < 20002; ++i) big += "a sentence .\n";
  write_file_atomic(d.path / "big-one.txt", big);
  CHECK_THROWS_WITH_AS(load_suite(d.path / "big-one.txt"),
                       doctest::Contains("big-one.txt: 20002 lines, more than a Zorro suite file has "
                                         "(20000); pass --format zorro"), Error);
  CHECK(load_suite(d.path / "big-one.txt", {.format = SuiteFormat::zorro}).pairs.size() ==
        10001);
  CHECK(parse_suite_format("auto") == SuiteFormat::detect);
  CHECK_THROWS_WITH_AS(parse_suite_format("blimp"), doctest::Contains("unknown suite format 'blimp'"),
                       Error);
}

TEST_CASE("empty sentences and wrongly typed fields name the file and line") {
  test::TempDir d("empty");
  write_file_atomic(d.path / "a-b.txt", "x .\n\ny .\nz .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "a-b.txt"),
                       doctest::Contains("a-b.txt:2: the line is empty, expected a sentence"), Error);
  write_file_atomic(d.path / "a-c.txt", "x .\n  \t\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "a-c.txt"), doctest::Contains("a-c.txt: 1 lines"), Error);
  write_file_atomic(d.path / "a-d.txt", "x \xFF.\ny .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "a-d.txt"),
                       doctest::Contains("a-d.txt:1: the line is not valid UTF-8"), Error);
  write_file_atomic(d.path / "b.jsonl", "{\"sentence_good\": \"x\", \"sentence_bad\": \"y\"}\n"
                                        "{\"sentence_good\": \"\", \"sentence_bad\": \"y\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "b.jsonl"),
                       doctest::Contains("b.jsonl:2: \"sentence_good\" is empty, expected a sentence"),
                       Error);
  write_file_atomic(d.path / "c.jsonl", "{\"sentence_good\": 3, \"sentence_bad\": \"y\"}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "c.jsonl"),
                       doctest::Contains("c.jsonl:1: \"sentence_good\" is an integer, expected a string"),
                       Error);
  write_file_atomic(d.path / "e.jsonl", "{\"sentence_good\": \"x\", \"sentence_bad\": \"y\", \"UID\": [1]}\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "e.jsonl"),
                       doctest::Contains("e.jsonl:1: \"UID\" is an array, expected a string"), Error);
  write_file_atomic(d.path / "f.jsonl", "[1, 2]\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "f.jsonl"),
                       doctest::Contains("f.jsonl:1: an array, expected an object"), Error);
  write_file_atomic(d.path / "t.tsv", "a .\tb .\n\t b .\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "t.tsv"),
                       doctest::Contains("t.tsv:2: the good sentence (field 1) is empty"), Error);
  write_file_atomic(d.path / "u.tsv", "a .\tb .\t\n");
  CHECK_THROWS_WITH_AS(load_suite(d.path / "u.tsv"),
                       doctest::Contains("u.tsv:1: the paradigm (field 3) is empty"), Error);
}

TEST_CASE("several suites load as one; a paradigm in two files is an error naming both") {
  test::TempDir d("multi");
  write_file_atomic(d.path / "a-x.txt", "he goed .\nhe went .\n");
  write_file_atomic(d.path / "mine.tsv", "a b .\ta c .\tagr-y\n");
  const Suite s = load_suites({d.path / "a-x.txt", d.path / "mine.tsv"});
  CHECK(s.paradigms == std::vector<std::string>{"a-x", "agr-y"});
  CHECK(s.files.size() == 2);
  write_file_atomic(d.path / "other.tsv", "a b .\ta c .\ta-x\n");
  CHECK_THROWS_WITH_AS(load_suites({d.path / "a-x.txt", d.path / "other.tsv"}),
                       doctest::Contains("paradigm 'a-x' is in both"), Error);
  CHECK_THROWS_WITH_AS(load_suites({d.path / "a-x.txt", d.path / "a-x.txt"}),
                       doctest::Contains("given twice"), Error);
}

TEST_CASE("the real BLiMP files load: 67 paradigms of 1,000 pairs") {
  const auto blimp = test::shared_data("blimp");
  if (!blimp) return;
  const Suite s = load_suite(*blimp);
  CHECK(s.paradigms.size() == 67);
  CHECK(s.pairs.size() == 67000);
}
