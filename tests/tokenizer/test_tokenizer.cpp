// SentencePiece through the library API: special ids, round trip, byte fallback, fingerprint.
#include <doctest/doctest.h>

#include "common/error.h"
#include "common/files.h"
#include "temp_dir.h"
#include "tokenizer/tokenizer.h"
#include "toy_corpus.h"

using namespace bb;

namespace {
void train_toy(const std::filesystem::path& dir, const std::string& type, int vocab) {
  std::vector<std::string> lines = test::toy_sentences(400);
  lines.push_back("zebras and giraffes eat leaves at the zoo .");
  Tokenizer::train(lines, {.model_type = type, .vocab_size = vocab}, dir);
}
}  // namespace

TEST_CASE("trained tokenizer: fixed special ids, round trip, no <unk> thanks to byte fallback") {
  for (const std::string type : {"bpe", "unigram"}) {
    CAPTURE(type);
    test::TempDir dir("tok-" + type);
    train_toy(dir.path, type, 320);
    const Tokenizer tok = Tokenizer::load(dir.path);
    CHECK(tok.vocab_size() == 320);
    CHECK(tok.piece(0) == "<mask>");
    CHECK(tok.piece(1) == "<pad>");
    CHECK(tok.piece(2) == "<unk>");
    CHECK(tok.piece(3) == "<s>");
    CHECK(tok.piece(4) == "</s>");
    const auto ids = *tok.encode("The Dog sees the ball .");
    CHECK(ids.front() == 3);
    CHECK(ids.back() == 4);
    CHECK(tok.decode(ids) == "the dog sees the ball .");
    const auto unseen = *tok.encode("the \xE2\x98\x83 snowman \xC3\xBC");  // ☃ ü: never seen
    for (int32_t id : unseen) CHECK(id != 2);
    CHECK(tok.decode(unseen) == "the \xE2\x98\x83 snowman \xC3\xBC");
    CHECK_FALSE(tok.encode("\xFF").has_value());
  }
}

TEST_CASE("a tokenizer.model that does not match its recorded fingerprint is refused") {
  test::TempDir dir("tok-fp");
  train_toy(dir.path, "bpe", 300);
  test::TempDir other("tok-fp2");
  train_toy(other.path, "bpe", 310);
  write_file_atomic(dir.path / "tokenizer.model", read_file(other.path / "tokenizer.model"));
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path), doctest::Contains("does not match the fingerprint"),
                       Error);
}

TEST_CASE("unknown model type and impossible vocab size give clear errors") {
  test::TempDir dir("tok-bad");
  CHECK_THROWS_WITH_AS(Tokenizer::train({"a b c"}, {.model_type = "wordpiece"}, dir.path),
                       doctest::Contains("unknown tokenizer model type 'wordpiece'"), Error);
  CHECK_THROWS_WITH_AS(
      Tokenizer::train({"a b c ."}, {.vocab_size = 100000, .source = "c.txt"}, dir.path),
      doctest::Contains("c.txt: vocabulary size 100000 is too large for this corpus (at most ~270 "
                        "pieces); lower --vocab-size"),
      Error);
  // 5 specials + 256 bytes + a, b, c, '.', "▁" = 266.
  CHECK(min_vocab_size({"a b c ."}) == 266);
  for (const std::string type : {"bpe", "unigram"})
    CHECK_THROWS_WITH_AS(Tokenizer::train({"a b c ."}, {.model_type = type, .vocab_size = 3}, dir.path),
                         doctest::Contains("--vocab-size 3: must be at least 266 for this corpus"),
                         Error);
  CHECK_THROWS_WITH_AS(Tokenizer::train({"a b c ."}, {.vocab_size = 265}, dir.path),
                       doctest::Contains("must be at least 266"), Error);
  CHECK_THROWS_WITH_AS(Tokenizer::train({}, {.source = "e.txt"}, dir.path),
                       doctest::Contains("e.txt: no sentences to train the tokenizer on"), Error);
  CHECK_THROWS_WITH_AS(Tokenizer::train({std::string(5000, 'a')}, {}, dir.path),
                       doctest::Contains("longer than 4192 bytes"), Error);
  CHECK_FALSE(std::filesystem::exists(dir.path / "tokenizer.model"));
}

TEST_CASE("tokenizer files: settings first, model last; a half-written pair is named as such") {
  test::TempDir dir("tok-pair");
  train_toy(dir.path, "bpe", 300);
  const std::string model = read_file(dir.path / "tokenizer.model");
  // A crash after the settings but before the model: no model, and load says why.
  std::filesystem::remove(dir.path / "tokenizer.model");
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path),
                       doctest::Contains("tokenizer.json without tokenizer.model (a half-written"),
                       Error);
  // Retraining into the same directory repairs it.
  train_toy(dir.path, "bpe", 300);
  CHECK(Tokenizer::load(dir.path).vocab_size() == 300);
  // A model without settings (an older build's crash) is named too.
  std::filesystem::remove(dir.path / "tokenizer.json");
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path),
                       doctest::Contains("tokenizer.model without tokenizer.json"), Error);
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path / "nothing"),
                       doctest::Contains("nothing: no such model or tokenizer directory"), Error);
  // save_tokenizer_model writes a loadable pair into a fresh model directory.
  test::TempDir other("tok-pair2");
  train_toy(other.path, "bpe", 300);
  const Tokenizer tok = Tokenizer::load(other.path);
  save_tokenizer_model(dir.path / "model", tok);
  CHECK(Tokenizer::load(dir.path / "model").fingerprint() == tok.fingerprint());
  write_file_atomic(other.path / "tokenizer.json", "{\"fingerprint\": 7}");
  CHECK_THROWS_WITH_AS(Tokenizer::load(other.path),
                       doctest::Contains("\"fingerprint\" is an integer, expected a string"), Error);
  write_file_atomic(other.path / "tokenizer.json", "{\"fingerprint\": ");
  CHECK_THROWS_WITH_AS(Tokenizer::load(other.path),
                       doctest::Contains("tokenizer.json: not valid JSON (syntax error at byte"), Error);
}
