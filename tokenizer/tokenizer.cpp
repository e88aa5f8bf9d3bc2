#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_set>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json_read.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The settings first, the model last (an older model removed before either), each atomically:
// whenever tokenizer.model exists, the settings beside it are complete and belong to it.
void write_tokenizer_files(const fs::path& dir, const json& settings, const std::string& model) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  BB_CHECK(!ec, "{}: cannot create the tokenizer directory ({})", dir.string(), ec.message());
  fs::remove(dir / "tokenizer.model", ec);
  BB_CHECK(!ec, "{}: cannot remove the old tokenizer.model ({})", dir.string(), ec.message());
  write_file_atomic(dir / "tokenizer.json", settings.dump(2) + "\n");
  write_file_atomic(dir / "tokenizer.model", model);
}

class VectorIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorIterator(const std::vector<std::string>& v) : v_(v) {}
  bool done() const override { return i_ >= v_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return v_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& v_;
  size_t i_ = 0;
};

json read_json(const fs::path& p) { return parse_json(read_file(p), p.string()); }

std::unordered_map<std::string, std::string> trainer_args(const TokenizerTrainOptions& opt) {
  return {
      {"model_type", opt.model_type},
      {"vocab_size", std::to_string(opt.vocab_size)},
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", "true"},
      {"byte_fallback", "true"},
      {"character_coverage", "1.0"},
      {"pad_id", "1"}, {"unk_id", "2"}, {"bos_id", "3"}, {"eos_id", "4"},
      {"pad_piece", "<pad>"}, {"unk_piece", "<unk>"}, {"bos_piece", "<s>"}, {"eos_piece", "</s>"},
      {"control_symbols", "<mask>"},  // takes the lowest free id: 0
      {"input_sentence_size", "0"},
      {"num_threads", std::to_string(std::max(1, opt.threads))},
      {"max_sentence_length", std::to_string(kMaxTokenizerSentenceBytes)},
      {"minloglevel", "2"},
  };
}

// SentencePiece's failure as one line saying what to change; its internal check text (source
// file, line, condition) is not shown.
[[noreturn]] void training_failed(const sentencepiece::util::Status& status,
                                  const TokenizerTrainOptions& opt, const std::string& src) {
  const std::string msg = status.error_message();
  const size_t cap = msg.find("Please set it to a value <= ");
  if (msg.find("Vocabulary size too high") != std::string::npos && cap != std::string::npos)
    fail("{}: vocabulary size {} is too large for this corpus (at most ~{} pieces); "
         "lower --vocab-size", src, opt.vocab_size, std::atoi(msg.c_str() + cap + 28));
  fail("{}: SentencePiece could not train a {} tokenizer of {} pieces on it; try a smaller "
       "--vocab-size or a larger corpus", src, opt.model_type, opt.vocab_size);
}

}  // namespace

int min_vocab_size(const std::vector<std::string>& normalized) {
  std::unordered_set<std::string> chars = {"\xE2\x96\x81"};  // "▁": the dummy prefix
  for (const std::string& line : normalized) {
    if (line.size() > kMaxTokenizerSentenceBytes) continue;  // SentencePiece skips these
    for (size_t i = 0; i < line.size();) {
      const unsigned char b = static_cast<unsigned char>(line[i]);
      const size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;  // UTF-8 sequence length
      chars.insert(line[i] == ' ' ? std::string("\xE2\x96\x81") : line.substr(i, n));
      i += n;
    }
  }
  return 5 + 256 + int(chars.size());
}

void Tokenizer::train(const std::vector<std::string>& normalized, const TokenizerTrainOptions& opt,
                      const fs::path& dir) {
  const std::string src = opt.source.empty() ? "tokenizer" : opt.source;
  BB_CHECK(opt.model_type == "bpe" || opt.model_type == "unigram",
           "unknown tokenizer model type '{}' (expected bpe or unigram)", opt.model_type);
  const bool usable = std::any_of(normalized.begin(), normalized.end(), [](const std::string& l) {
    return l.find_first_not_of(' ') != std::string::npos && l.size() <= kMaxTokenizerSentenceBytes;
  });
  BB_CHECK(usable, "{}: no sentences to train the tokenizer on (every line is empty or longer "
           "than {} bytes)", src, kMaxTokenizerSentenceBytes);
  const int need = min_vocab_size(normalized);
  BB_CHECK(opt.vocab_size >= need, "--vocab-size {}: must be at least {} for this corpus (5 "
           "special tokens + 256 byte pieces + {} distinct characters)",
           opt.vocab_size, need, need - 261);
  VectorIterator it(normalized);
  std::string proto;
  const auto status = sentencepiece::SentencePieceTrainer::Train(trainer_args(opt), &it, &proto);
  if (!status.ok()) training_failed(status, opt, src);
  const json settings{{"model_type", opt.model_type},
                      {"vocab_size", opt.vocab_size},
                      {"normalization", opt.normalization.to_json()},
                      {"fingerprint", "sha256:" + sha256_hex(proto)}};
  write_tokenizer_files(dir, settings, proto);
}

Tokenizer Tokenizer::load(const fs::path& dir) {
  std::error_code ec;
  BB_CHECK(fs::exists(dir, ec), "{}: no such model or tokenizer directory", dir.string());
  BB_CHECK(fs::is_directory(dir, ec),
           "{}: not a directory (expected a model or tokenizer directory)", dir.string());
  const fs::path model = dir / "tokenizer.model";
  fs::path settings_file = dir / "config.json";
  const json config = fs::exists(settings_file) ? read_json(settings_file) : json::object();
  const bool in_config = config.is_object() && config.contains("tokenizer") &&
                         !config["tokenizer"].empty();
  if (!in_config) settings_file = dir / "tokenizer.json";
  const bool has_model = fs::exists(model), has_settings = in_config || fs::exists(settings_file);
  BB_CHECK(has_model || has_settings, "{}: no tokenizer.model (expected a tokenizer directory "
           "from `tokenizer train` or a model directory)", dir.string());
  BB_CHECK(has_settings, "{}: tokenizer.model without tokenizer.json or config.json \"tokenizer\" "
           "(a half-written tokenizer: delete it and train the tokenizer again)", dir.string());
  // `export`'s HF folder: tokenizer.json in HF's format beside tokenizer_config.json, and no
  // SentencePiece model (what this toolkit tokenizes with).
  BB_CHECK(has_model || !fs::exists(dir / "tokenizer_config.json"),
           "{}: an exported HuggingFace folder (HF's tokenizer.json, no tokenizer.model): load the "
           "run directory it was exported from (`info` reads this folder; transformers loads it)",
           dir.string());
  BB_CHECK(has_model, "{}: tokenizer.json without tokenizer.model (a half-written tokenizer: "
           "train it again)", dir.string());
  const json settings = in_config ? config["tokenizer"] : read_json(settings_file);
  BB_CHECK(settings.is_object(), "{}: tokenizer settings are {}, expected an object",
           settings_file.string(), json_kind(settings));
  const std::string recorded = json_string_or(settings, "fingerprint", settings_file.string(), "none");
  Tokenizer t;
  t.model_bytes_ = read_file(model);
  t.fingerprint_ = "sha256:" + sha256_hex(t.model_bytes_);
  BB_CHECK(recorded == t.fingerprint_, "{}: does not match the fingerprint recorded in {} ({} vs {})",
           model.string(), settings_file.string(), t.fingerprint_, recorded);
  t.normalizer_ = Normalizer(
      NormalizerSettings::from_json(settings.value("normalization", json()), settings_file.string()));
  t.settings_ = settings;
  t.sp_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = t.sp_->LoadFromSerializedProto(t.model_bytes_);
  BB_CHECK(status.ok(), "{}: not a SentencePiece model", model.string());
  BB_CHECK(t.sp_->PieceToId("<mask>") == 0 && t.sp_->pad_id() == 1 && t.sp_->unk_id() == 2 &&
               t.sp_->bos_id() == 3 && t.sp_->eos_id() == 4,
           "{}: special ids are not <mask>=0 <pad>=1 <unk>=2 <s>=3 </s>=4", model.string());
  return t;
}

Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

int Tokenizer::vocab_size() const { return sp_->GetPieceSize(); }

std::vector<int32_t> Tokenizer::encode_normalized(std::string_view normalized) const {
  std::vector<int> ids;
  const auto status = sp_->Encode(normalized, &ids);
  BB_CHECK(status.ok(), "SentencePiece: encode failed ({})", status.ToString());
  return {ids.begin(), ids.end()};
}

std::optional<std::vector<int32_t>> Tokenizer::encode(std::string_view text) const {
  const auto norm = normalizer_.normalize(text);
  if (!norm) return std::nullopt;
  std::vector<int32_t> out = {3};
  const auto ids = encode_normalized(*norm);
  out.insert(out.end(), ids.begin(), ids.end());
  out.push_back(4);
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::vector<int> keep;
  for (int32_t id : ids)
    if (id > 4) keep.push_back(id);
  std::string out;
  const auto status = sp_->Decode(keep, &out);
  BB_CHECK(status.ok(), "SentencePiece: decode failed ({})", status.ToString());
  return out;
}

std::string Tokenizer::piece(int32_t id) const { return sp_->IdToPiece(id); }

int32_t Tokenizer::piece_id(const std::string& piece) const { return sp_->PieceToId(piece); }

Tokenizer::PieceKind Tokenizer::kind(int32_t id) const {
  if (sp_->IsByte(id)) return PieceKind::byte;
  if (sp_->IsUnknown(id)) return PieceKind::unknown;
  if (sp_->IsControl(id)) return PieceKind::control;
  return PieceKind::normal;
}

float Tokenizer::score(int32_t id) const { return sp_->GetScore(id); }

void save_tokenizer_model(const fs::path& dir, const Tokenizer& tok) {
  write_tokenizer_files(dir, tok.settings(), tok.model_bytes());
}

}  // namespace bb
