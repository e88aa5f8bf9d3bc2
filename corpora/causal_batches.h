// The causal LM's batches (kind gpt2) from a tokenised corpus (utterances <s> ... </s>), a pure
// function of (seed, step), every next token after <s> scored (</s> included):
//   utterance  one utterance per sequence (the format minimal pairs are scored in); each epoch a
//              shuffled pass, length-bucketed as the masked LM's batches (corpora/mlm_batches.h)
//   packed     each epoch's shuffled utterances concatenated and cut into blocks of `block` tokens
//              (an utterance may be split across blocks; the usual causal-LM pipeline): block k
//              is sequence [k P, k P + P) of the epoch's stream, each position predicting the
//              stream's next token, except where that is an utterance's <s> (so both packings
//              score the same targets); batches are batch_size consecutive blocks, in shuffled
//              order.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "corpora/batch_stream.h"
#include "corpora/corpus.h"

namespace bb {

enum class Packing { utterance, packed };
inline constexpr std::array<std::string_view, 2> kPackingNames{"utterance", "packed"};
Packing parse_packing(std::string_view name);  // one of kPackingNames; else a one-line error

struct CausalBatching {
  int batch_size = 16;       // utterances (utterance) or blocks (packed) per batch
  int bucket_batches = 100;  // utterance: batches per length-sorted chunk (1: no bucketing)
  Packing packing = Packing::utterance;
  int block = 128;  // packed: tokens per block (the model's positions)
  int bos_id = 3;
};

class CausalBatches final : public BatchStream {
 public:
  CausalBatches(const TokenizedCorpus& corpus, const CausalBatching& opt, uint64_t seed);
  int64_t batches_per_epoch() const override { return int64_t(epoch_batches_.size()); }
  void batch(int64_t step, Batch& out) override;
  double padding_fraction(int64_t epoch = 0) override;

 private:
  void build_epoch(int64_t epoch);

  const TokenizedCorpus& corpus_;
  CausalBatching opt_;
  uint64_t seed_;
  int64_t epoch_ = -1;
  std::vector<uint32_t> order_;        // utterance: the epoch's utterances in batch order
  std::vector<int32_t> stream_;        // packed: the epoch's tokens
  std::vector<int64_t> epoch_batches_;  // utterance: start of each batch in order_;
                                        // packed: its first block
};

}  // namespace bb
