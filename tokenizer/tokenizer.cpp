#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/json_file.h"

namespace bb {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

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

json read_json(const fs::path& p) {
  json j = read_json_file(p);
  BB_CHECK(j.is_object(), "{}: expected a JSON object", p.string());
  return j;
}

}  // namespace

void Tokenizer::train(const std::vector<std::string>& normalized, const TokenizerTrainOptions& opt,
                      const fs::path& dir) {
  BB_CHECK(opt.model_type == "bpe" || opt.model_type == "unigram",
           "unknown tokenizer model type '{}' (expected bpe or unigram)", opt.model_type);
  BB_CHECK(!normalized.empty(), "tokenizer: no sentences to train on");
  const std::unordered_map<std::string, std::string> args = {
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
      {"minloglevel", "2"},
  };
  VectorIterator it(normalized);
  std::string proto;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &it, &proto);
  BB_CHECK(status.ok(), "SentencePiece training failed: {}", status.ToString());
  fs::create_directories(dir);
  write_file_atomic(dir / "tokenizer.model", proto);
  const json settings{{"model_type", opt.model_type},
                      {"vocab_size", opt.vocab_size},
                      {"normalization", opt.normalization.to_json()},
                      {"fingerprint", "sha256:" + sha256_hex(proto)}};
  write_file_atomic(dir / "tokenizer.json", settings.dump(2) + "\n");
}

Tokenizer Tokenizer::load(const fs::path& dir) {
  std::error_code ec;
  BB_CHECK(fs::exists(dir, ec), "{}: no such model or tokenizer directory", dir.string());
  BB_CHECK(fs::is_directory(dir, ec),
           "{}: not a directory (expected a model or tokenizer directory)", dir.string());
  const fs::path model = dir / "tokenizer.model";
  json settings;
  fs::path settings_file = dir / "config.json";
  const json config = fs::exists(settings_file) ? read_json(settings_file) : json::object();
  if (config.contains("tokenizer") && config["tokenizer"].is_object() &&
      !config["tokenizer"].empty()) {
    settings = config["tokenizer"];
  } else {
    settings_file = dir / "tokenizer.json";
    BB_CHECK(fs::exists(settings_file),
             "{}: no tokenizer settings (expected config.json with \"tokenizer\" or tokenizer.json)",
             dir.string());
    settings = read_json(settings_file);
  }
  Tokenizer t;
  t.model_bytes_ = read_file(model);
  t.fingerprint_ = "sha256:" + sha256_hex(t.model_bytes_);
  const json& fp = settings.contains("fingerprint") ? settings["fingerprint"] : json();
  const std::string recorded = fp.is_string() ? fp.get<std::string>() : "none";
  BB_CHECK(recorded == t.fingerprint_,
           "{}: does not match the fingerprint recorded in {} ({} vs {})", model.string(),
           settings_file.string(), t.fingerprint_, recorded);
  t.normalizer_ = Normalizer(
      NormalizerSettings::from_json(settings.value("normalization", json()), settings_file.string()));
  t.settings_ = settings;
  t.sp_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = t.sp_->LoadFromSerializedProto(t.model_bytes_);
  BB_CHECK(status.ok(), "{}: not a SentencePiece model ({})", model.string(), status.ToString());
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

void save_tokenizer_model(const fs::path& dir, const Tokenizer& tok) {
  write_file_atomic(dir / "tokenizer.model", tok.model_bytes());
}

}  // namespace bb
