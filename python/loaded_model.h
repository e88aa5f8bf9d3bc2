// A trained model directory loaded for the Python module (python/module.cpp): its configuration,
// the attention function's trained values and the scorer the CLI's `score` runs, so that every
// number the module returns comes from the CLI's own code path. Plain C++: no Python here.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "backend/device.h"
#include "probing/attention_maps.h"
#include "probing/scorer.h"
#include "probing/word_scores.h"

namespace bb::python {

class LoadedModel {
 public:
  // `threads`: compute threads for this model's calls, in [1, 1024] as the CLI's --threads.
  // `precision`: fp32 or bf16 (--precision; bf16 checks the machine first).
  LoadedModel(const std::filesystem::path& dir, const std::string& device, int threads,
              const std::string& precision = "fp32");

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& config_json() const { return config_json_; }  // config.json as written
  std::string attention_label() const;  // "softmax", "ssa(n=2 frozen)", ...
  // The function's trained values by name ("b", "n", "tau"): [layers * heads] row-major.
  const std::map<std::string, std::vector<double>>& trained_values() const { return values_; }
  int layers() const;
  int heads() const;
  int threads() const { return threads_; }

  // Per sentence: ids (with <s>, </s>) and per-token log-probs, as `score --per-token`.
  std::vector<SentenceScore> score(const std::vector<std::string>& sentences, Method m);
  ModelKind kind() const { return scorer_.config().kind; }
  // The pieces of the tokens a method scores (holistic every id, pll all but <s> and </s>).
  std::vector<std::string> scored_pieces(const SentenceScore& s) const;
  // The scored pieces of a sentence grouped into whitespace words (probing/word_scores.h).
  std::vector<WordScore> words(const SentenceScore& s, Method m) const;
  // Per pair i the log-probabilities of continuations[i]'s pieces in the sentence
  // prefixes[i] + " " + continuations[i] under the method (probing/word_scores.h); errors name
  // the pair as `call`[i].
  std::vector<std::vector<double>> conditional_logprobs(const std::vector<std::string>& prefixes,
                                                        const std::vector<std::string>& continuations,
                                                        Method m, const std::string& call);
  // One sentence's output logits (L, V) row-major, and its ids (with <s>, </s>) in `ids`.
  std::vector<float> logits(const std::string& sentence, std::vector<int32_t>& ids);
  // For each "<mask>" in `text`, in order, the k most probable tokens with their probabilities
  // (softmax of the logits there, in double), most probable first.
  struct Filled {
    int32_t id;
    std::string piece;
    double probability;
  };
  std::vector<std::vector<Filled>> fill_mask(const std::string& text, int k);
  // One sentence's attention weights, as the `attention` command reads them (probing/attention_maps.h).
  SentenceAttention attention(const std::string& sentence) const;
  // The model's tokenizer (encode, decode, pieces by id and ids by piece).
  const Tokenizer& tokenizer() const { return scorer_.tokenizer(); }
  // Per sentence its ids (with <s>, </s>) and pieces; a one-line error for invalid UTF-8.
  std::vector<std::pair<std::vector<int32_t>, std::vector<std::string>>> encode(
      const std::vector<std::string>& sentences) const;

 private:
  void use_threads() const;
  // The ids of a sentence that may hold "<mask>" markers (each the mask token), with <s>, </s>.
  std::vector<int32_t> ids_with_masks(const std::string& text) const;  // before every engine call: the thread count is process-wide
  std::filesystem::path dir_;
  nlohmann::json config_json_;
  std::map<std::string, std::vector<double>> values_;
  int threads_;
  Scorer scorer_;
};

}  // namespace bb::python
