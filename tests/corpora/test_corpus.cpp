// Corpus reading: counts, invalid UTF-8 with line numbers, filters, empty input, token cache,
// dev split.
#include <doctest/doctest.h>

#include <cstring>

#include "common/error.h"
#include "common/files.h"
#include "corpora/corpus.h"
#include "corpora/token_cache.h"
#include "temp_dir.h"
#include "toy_corpus.h"

using namespace bb;

namespace {
struct Fixture {
  test::TempDir dir{"corpus"};
  std::filesystem::path tok_dir = dir.path / "tok";
  Fixture() { Tokenizer::train(test::toy_sentences(300), {.vocab_size = 300}, tok_dir); }
};
}  // namespace

TEST_CASE("reader counts kept and dropped lines and names invalid UTF-8 lines") {
  Fixture f;
  const auto corpus = f.dir.path / "c.txt";
  write_file_atomic(corpus,
                    "the dog sees the ball .\n"                                   // 1 kept
                    "hi .\n"                                                       // 2 2 words
                    "\n"                                                           // 3 empty
                    "bad \xFF byte here .\n"                                       // 4 not UTF-8
                    "the babies have some milk ?\r\n"                              // 5 kept, CRLF
                    "the dog sees the ball and the cats have the big book too .\n" // 6 too long
                    "you want a cookie");                                          // 7 no final \n
  const Tokenizer tok = Tokenizer::load(f.tok_dir);
  const int longest_kept = int(tok.encode("the babies have some milk ?")->size());
  REQUIRE(int(tok.encode("the dog sees the ball and the cats have the big book too .")->size()) >
          longest_kept);
  const TokenizedCorpus c =
      load_tokenized_corpus(corpus, tok, {.min_words = 3, .max_tokens = longest_kept});
  CHECK(c.stats.lines == 7);
  CHECK(c.stats.empty == 1);
  CHECK(c.stats.too_few_words == 1);
  CHECK(c.stats.invalid_utf8 == 1);
  CHECK(c.stats.invalid_lines == std::vector<int64_t>{4});
  CHECK(c.stats.too_long == 1);
  CHECK(c.stats.kept == 3);
  CHECK(c.size() == 3);
  for (int64_t i = 0; i < c.size(); ++i) {
    CHECK(c.seq(i)[0] == 3);
    CHECK(c.seq(i)[c.length(i) - 1] == 4);
    CHECK(c.length(i) <= longest_kept);
  }
  CHECK_THROWS_WITH_AS(load_tokenized_corpus(corpus, tok, {.strict = true}),
                       doctest::Contains("c.txt:4: invalid UTF-8"), Error);

  // The same utterances as text (the n-gram baselines' word unit), by the same filters.
  CorpusStats stats;
  const auto text =
      read_kept_utterances(corpus, &tok, {.min_words = 3, .max_tokens = longest_kept}, stats);
  CHECK(text == std::vector<std::string>{"the dog sees the ball .", "the babies have some milk ?",
                                         "you want a cookie"});
  CHECK(stats.to_json() == c.stats.to_json());
  for (int64_t i = 0; i < c.size(); ++i)
    CHECK(std::vector<int32_t>(c.seq(i) + 1, c.seq(i) + c.length(i) - 1) ==
          tok.encode_normalized(text[size_t(i)]));
  CorpusStats no_filter;  // without a tokenizer: no max-length filter
  CHECK(read_kept_utterances(corpus, nullptr, {.min_words = 3}, no_filter).size() == 4);
  CHECK(no_filter.too_long == 0);
}

TEST_CASE("empty corpus and corpus without a usable line are errors naming the file") {
  Fixture f;
  const Tokenizer tok = Tokenizer::load(f.tok_dir);
  write_file_atomic(f.dir.path / "empty.txt", "");
  CHECK_THROWS_WITH_AS(load_tokenized_corpus(f.dir.path / "empty.txt", tok, {}),
                       doctest::Contains("empty.txt: empty corpus"), Error);
  write_file_atomic(f.dir.path / "short.txt", "hi .\nok\n");
  CHECK_THROWS_WITH_AS(load_tokenized_corpus(f.dir.path / "short.txt", tok, {}),
                       doctest::Contains("short.txt: no usable utterance"), Error);
  CHECK_THROWS_WITH_AS(load_tokenized_corpus(f.dir.path / "missing.txt", tok, {}),
                       doctest::Contains("missing.txt: cannot open"), Error);
}

TEST_CASE("token cache: round trip, stale key and corrupt file are rebuilt") {
  Fixture f;
  const Tokenizer tok = Tokenizer::load(f.tok_dir);
  const auto corpus = f.dir.path / "c.txt";
  test::write_lines(corpus.string(), test::toy_sentences(50, 7));
  const auto cache = f.dir.path / "cache" / "c.tokens";
  const TokenizedCorpus a = load_tokenized_corpus(corpus, tok, {}, cache);
  REQUIRE(std::filesystem::exists(cache));
  const TokenCacheRead hit = read_token_cache(cache, "other key");
  CHECK_FALSE(hit.corpus.has_value());
  CHECK(hit.problem.empty());  // stale, not broken: rebuilt without a note
  const TokenizedCorpus b = load_tokenized_corpus(corpus, tok, {}, cache);
  CHECK(a.ids == b.ids);
  CHECK(a.offsets == b.offsets);
  CHECK(b.stats.kept == a.stats.kept);
  // The corpus changes: the cache is stale and must not be used.
  test::write_lines(corpus.string(), test::toy_sentences(60, 8));
  const TokenizedCorpus c = load_tokenized_corpus(corpus, tok, {}, cache);
  CHECK(c.size() == 60);
  // A truncated cache is ignored and rebuilt.
  const std::string bytes = read_file(cache);
  write_file_atomic(cache, bytes.substr(0, bytes.size() - 3));
  const TokenizedCorpus d = load_tokenized_corpus(corpus, tok, {}, cache);
  CHECK(d.ids == c.ids);
  CHECK(read_file(cache).size() == bytes.size());
}

TEST_CASE("token cache: a flipped bit, forged counts or bad ids are a problem, never used") {
  Fixture f;
  const Tokenizer tok = Tokenizer::load(f.tok_dir);
  const auto corpus = f.dir.path / "c.txt";
  test::write_lines(corpus.string(), test::toy_sentences(40, 3));
  const auto cache = f.dir.path / "c.tokens";
  const TokenizedCorpus a = load_tokenized_corpus(corpus, tok, {}, cache);
  const std::string good = read_file(cache);
  // Recover the key from a clean decode: it is the one load_tokenized_corpus used.
  auto u32_at = [&](size_t pos) {
    uint32_t v;
    std::memcpy(&v, good.data() + pos, 4);
    return v;
  };
  const uint32_t key_len = u32_at(78);  // after "BBTOKCACHE", version, 64-hex checksum
  const std::string key = good.substr(82, key_len);
  REQUIRE(decode_token_cache(good, key, tok.vocab_size()).corpus.has_value());
  std::string flipped = good;
  flipped[flipped.size() - 5] ^= 0x10;  // inside the last id
  CHECK(decode_token_cache(flipped, key).problem == "checksum mismatch");
  write_file_atomic(cache, flipped);
  const TokenizedCorpus b = load_tokenized_corpus(corpus, tok, {}, cache);  // rebuilt
  CHECK(b.ids == a.ids);
  CHECK(read_file(cache) == good);
  // Sealed with a valid checksum but with absurd counts: bounded before allocating.
  const size_t counts = 82 + key_len + 4 + u32_at(82 + key_len);
  for (uint64_t n : {uint64_t(-1), uint64_t(-2), uint64_t(1) << 61, uint64_t(1) << 40}) {
    std::string forged = good;
    std::memcpy(forged.data() + counts, &n, 8);
    reseal_token_cache(forged);
    CHECK(decode_token_cache(forged, key).problem == "sizes do not match the file length");
    forged = good;
    std::memcpy(forged.data() + counts + 8, &n, 8);
    reseal_token_cache(forged);
    CHECK(decode_token_cache(forged, key).problem == "sizes do not match the file length");
  }
  std::string bad_id = good;
  const int32_t huge = 1 << 30;
  std::memcpy(bad_id.data() + bad_id.size() - 4, &huge, 4);
  reseal_token_cache(bad_id);
  CHECK(decode_token_cache(bad_id, key, tok.vocab_size()).problem ==
        "token id outside the vocabulary");
  std::string bad_offset = good;
  const int64_t back = -1;
  std::memcpy(bad_offset.data() + counts + 16 + 8, &back, 8);  // offsets[1]
  reseal_token_cache(bad_offset);
  CHECK(decode_token_cache(bad_offset, key).problem == "offsets out of order");
  CHECK(decode_token_cache("BBTOKCACHE", key).problem == "truncated");
  CHECK(decode_token_cache("hello", key).problem == "not a token cache");
}

TEST_CASE("dev split is deterministic by seed and close to the requested fraction") {
  TokenizedCorpus all;
  for (int i = 0; i < 20000; ++i) all.push({3, 5 + i % 50, 4});
  const auto [train, dev] = split_dev(all, 0.01, 3);
  CHECK(train.size() + dev.size() == all.size());
  CHECK(dev.size() == doctest::Approx(200).epsilon(0.25));
  const auto [train2, dev2] = split_dev(all, 0.01, 3);
  CHECK(dev2.ids == dev.ids);
  const auto [train3, dev3] = split_dev(all, 0.01, 4);
  CHECK(dev3.ids != dev.ids);
  int64_t held_out = 0;  // split_dev puts utterance i into dev exactly when is_dev_utterance
  for (int64_t i = 0; i < all.size(); ++i) {
    if (!is_dev_utterance(i, 0.01, 3)) continue;
    REQUIRE(held_out < dev.size());
    CHECK(dev.seq(held_out)[1] == all.seq(i)[1]);
    ++held_out;
  }
  CHECK(held_out == dev.size());
}
