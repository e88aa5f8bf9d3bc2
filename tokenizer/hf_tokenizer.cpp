#include "tokenizer/hf_tokenizer.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace bb {

using json = nlohmann::json;

namespace {

const std::string kSpace = "\xE2\x96\x81";  // ▁

json normalizer(const Tokenizer& tok) {
  const json& norm = tok.settings().value("normalization", json::object());
  json steps = json::array();
  if (norm.value("unicode", std::string("NFKC")) == "NFKC") steps.push_back({{"type", "NFKC"}});
  if (norm.value("lowercase", true)) steps.push_back({{"type", "Lowercase"}});
  steps.push_back({{"type", "Replace"},
                   {"pattern", {{"Regex", "[\\p{White_Space}\\p{Cc}\\p{Cf}]+"}}},
                   {"content", " "}});
  steps.push_back({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}});
  steps.push_back({{"type", "Prepend"}, {"prepend", kSpace}});
  steps.push_back({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSpace}});
  return {{"type", "Sequence"}, {"normalizers", steps}};
}

// The number of UTF-8 characters of s.
size_t characters(const std::string& s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// BPE merges: every split of a normal piece into two normal pieces, ranked by the merged piece's
// score (highest first), then by the left piece's id.
json bpe_merges(const Tokenizer& tok, const std::unordered_map<std::string, int32_t>& ids) {
  struct Merge {
    float score;
    int32_t left, right;
  };
  std::vector<Merge> merges;
  for (int32_t id = 0; id < tok.vocab_size(); ++id) {
    if (tok.kind(id) != Tokenizer::PieceKind::normal) continue;
    const std::string p = tok.piece(id);
    if (characters(p) < 2) continue;
    for (size_t cut = 1; cut < p.size(); ++cut) {
      if ((p[cut] & 0xC0) == 0x80) continue;  // inside a character
      const auto a = ids.find(p.substr(0, cut)), b = ids.find(p.substr(cut));
      if (a == ids.end() || b == ids.end()) continue;
      if (tok.kind(a->second) != Tokenizer::PieceKind::normal ||
          tok.kind(b->second) != Tokenizer::PieceKind::normal)
        continue;
      merges.push_back({tok.score(id), a->second, b->second});
    }
  }
  std::stable_sort(merges.begin(), merges.end(), [](const Merge& x, const Merge& y) {
    if (x.score != y.score) return x.score > y.score;
    return x.left < y.left;
  });
  // "left right" strings, the format every tokenizers version reads (pairs need 0.20+); pieces
  // never contain a space (SentencePiece writes it as "▁").
  json out = json::array();
  for (const Merge& m : merges) out.push_back(tok.piece(m.left) + " " + tok.piece(m.right));
  return out;
}

json special_token(const Tokenizer& tok, int32_t id) {
  return {{"id", id},          {"content", tok.piece(id)}, {"single_word", false},
          {"lstrip", false},   {"rstrip", false},          {"normalized", false},
          {"special", true}};
}

}  // namespace

json hf_tokenizer_json(const Tokenizer& tok) {
  std::unordered_map<std::string, int32_t> ids;
  for (int32_t id = 0; id < tok.vocab_size(); ++id) ids.emplace(tok.piece(id), id);
  json added = json::array();
  for (int32_t id = 0; id < tok.vocab_size(); ++id)
    if (tok.kind(id) == Tokenizer::PieceKind::control ||
        tok.kind(id) == Tokenizer::PieceKind::unknown)
      added.push_back(special_token(tok, id));
  json model;
  if (tok.settings().value("model_type", std::string("bpe")) == "unigram") {
    json vocab = json::array();
    for (int32_t id = 0; id < tok.vocab_size(); ++id)
      vocab.push_back({tok.piece(id), double(tok.score(id))});
    model = {{"type", "Unigram"}, {"unk_id", tok.piece_id("<unk>")}, {"vocab", vocab},
             {"byte_fallback", true}};
  } else {
    json vocab = json::object();
    for (int32_t id = 0; id < tok.vocab_size(); ++id) vocab[tok.piece(id)] = id;
    model = {{"type", "BPE"},          {"dropout", nullptr},
             {"unk_token", "<unk>"},   {"continuing_subword_prefix", nullptr},
             {"end_of_word_suffix", nullptr}, {"fuse_unk", true},
             {"byte_fallback", true},  {"ignore_merges", false},
             {"vocab", vocab},         {"merges", bpe_merges(tok, ids)}};
  }
  const int32_t bos = tok.piece_id("<s>"), eos = tok.piece_id("</s>");
  auto special = [](const char* name) {
    return json{{"SpecialToken", {{"id", name}, {"type_id", 0}}}};
  };
  auto sequence = [](const char* which, int type) {
    return json{{"Sequence", {{"id", which}, {"type_id", type}}}};
  };
  const json post = {
      {"type", "TemplateProcessing"},
      {"single", {special("<s>"), sequence("A", 0), special("</s>")}},
      {"pair", {special("<s>"), sequence("A", 0), special("</s>"), special("</s>"),
                sequence("B", 0), special("</s>")}},
      {"special_tokens",
       {{"<s>", {{"id", "<s>"}, {"ids", {bos}}, {"tokens", {"<s>"}}}},
        {"</s>", {{"id", "</s>"}, {"ids", {eos}}, {"tokens", {"</s>"}}}}}}};
  const json decoder = {
      {"type", "Sequence"},
      {"decoders",
       {{{"type", "Replace"}, {"pattern", {{"String", kSpace}}}, {"content", " "}},
        {{"type", "ByteFallback"}},
        {{"type", "Fuse"}},
        {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  return {{"version", "1.0"},   {"truncation", nullptr},      {"padding", nullptr},
          {"added_tokens", added}, {"normalizer", normalizer(tok)}, {"pre_tokenizer", nullptr},
          {"post_processor", post}, {"decoder", decoder},       {"model", model}};
}

}  // namespace bb
