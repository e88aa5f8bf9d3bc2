// A training run's inputs: its tokenizer (given, the run's own, or trained on the corpus), its
// model config, and the corpus as training and dev batches with BabyBERTa's filters and the run's
// masking recipe.
#pragma once
#include <memory>

#include "corpora/corpus.h"
#include "corpora/batch_stream.h"
#include "corpora/mlm_batches.h"
#include "encoder/config.h"
#include "runs/train_flags.h"
#include "tokenizer/tokenizer.h"

namespace bb {

// --tokenizer's, else the run directory's tokenizer.model, else one trained on --corpus there.
Tokenizer tokenizer_for(const TrainArgs& a);
// The preset with the run's attention function, its trainable values' settings, dropout and the
// tokenizer's vocabulary; validated.
Config model_config(const TrainArgs& a, const Tokenizer& tok);

// The corpus and the kind's batches (roberta: masked utterances; gpt2: utterances or packed
// blocks with every next token scored; its dev batches are always one utterance per sequence, so
// that dev losses compare across packings).
struct TrainingData {
  TokenizedCorpus all, train, dev;
  std::unique_ptr<BatchStream> batches, dev_batches;  // dev_batches: nullptr with --no-dev
  int longest = 0;  // tokens of the longest sequence (utterance, or packed block)
};
// Fills `d` in place (its batches refer to its corpora); sets a.batching's masking from the
// config (and --hf-masking). Prints the corpus's statistics unless a.quiet.
void load_training_data(TrainArgs& a, const Tokenizer& tok, const Config& config, TrainingData& d);

}  // namespace bb
