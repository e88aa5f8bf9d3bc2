// SentencePiece tokenizer (BPE by default, unigram as an option) behind the ICU normaliser.
// SentencePiece's own normalisation is off ("identity"): text is normalised once, by ICU.
// Fixed special ids (BabyBERTa's): <mask>=0 <pad>=1 <unk>=2 <s>=3 </s>=4; byte fallback, so no
// input ever becomes <unk>-only. A tokenizer directory holds tokenizer.model and
// tokenizer.json (settings + fingerprint); a model directory records the same settings in
// config.json under "tokenizer".
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/normalizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace bb {

struct TokenizerTrainOptions {
  std::string model_type = "bpe";  // bpe | unigram
  int vocab_size = 8192;
  NormalizerSettings normalization{};
  int threads = 1;
  std::string source = {};  // where the sentences came from (the corpus path), named in errors
};

// SentencePiece skips sentences longer than this many bytes (its max_sentence_length).
constexpr size_t kMaxTokenizerSentenceBytes = 4192;
// The smallest vocabulary SentencePiece accepts for these normalised sentences: 5 specials
// + 256 byte-fallback pieces + every distinct character (a space counts as "▁", always needed).
int min_vocab_size(const std::vector<std::string>& normalized);

class Tokenizer {
 public:
  // Trains on already-normalised sentences; writes DIR/tokenizer.json, then DIR/tokenizer.model
  // (each atomically, an older tokenizer.model removed first), so a tokenizer.model present
  // implies its settings are complete. Errors say which option or input to change.
  static void train(const std::vector<std::string>& normalized, const TokenizerTrainOptions& opt,
                    const std::filesystem::path& dir);
  // From a tokenizer or model directory; checks the model file against the recorded fingerprint.
  // A half-written pair (a model without settings or settings without a model) is named as such.
  static Tokenizer load(const std::filesystem::path& dir);

  Tokenizer(Tokenizer&&) noexcept;
  ~Tokenizer();

  // <s> ids(normalize(text)) </s>; nullopt when text is not valid UTF-8.
  std::optional<std::vector<int32_t>> encode(std::string_view text) const;
  // Ids of already-normalised text, without <s> </s>.
  std::vector<int32_t> encode_normalized(std::string_view normalized) const;
  std::string decode(const std::vector<int32_t>& ids) const;  // specials dropped
  std::string piece(int32_t id) const;
  int32_t piece_id(const std::string& piece) const;  // the <unk> id for an unknown piece

  int vocab_size() const;
  // What kind of piece an id is, and its SentencePiece score (the BPE merge priority, or the
  // unigram log-probability).
  enum class PieceKind { normal, control, unknown, byte };
  PieceKind kind(int32_t id) const;
  float score(int32_t id) const;
  const Normalizer& normalizer() const { return normalizer_; }
  const std::string& fingerprint() const { return fingerprint_; }  // sha256 of tokenizer.model
  // What a checkpoint's config.json records under "tokenizer".
  nlohmann::json settings() const { return settings_; }
  const std::string& model_bytes() const { return model_bytes_; }

 private:
  Tokenizer() = default;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  Normalizer normalizer_;
  std::string fingerprint_, model_bytes_;
  nlohmann::json settings_;
};

// Writes the tokenizer files of `tok` into a model directory: tokenizer.json (its settings),
// then tokenizer.model, each atomically, the model last.
void save_tokenizer_model(const std::filesystem::path& dir, const Tokenizer& tok);

}  // namespace bb
