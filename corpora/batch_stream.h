// A model kind's training (or dev) batches: a pure function of the step, so that a resumed run
// sees exactly the batches it would have seen. roberta: MlmBatches (masked utterances); gpt2:
// CausalBatches (utterances or packed blocks, every next token scored).
#pragma once
#include <cstdint>

#include "common/batch.h"

namespace bb {

class BatchStream {
 public:
  virtual ~BatchStream() = default;
  virtual int64_t batches_per_epoch() const = 0;
  virtual void batch(int64_t step, Batch& out) = 0;  // batch `step` (0-based over all epochs)
  // Mean over an epoch's batches of pad / (sequences x longest) had they been padded.
  virtual double padding_fraction(int64_t epoch = 0) = 0;
};

}  // namespace bb
