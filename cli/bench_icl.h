// bench train --kind icl: training throughput of an ICL model (icl/) at the curriculum's end
// (41 points: 82 tokens per sequence), one JSON line.
#pragma once
#include <string>

#include "backend/attention_function.h"
#include "backend/device.h"

namespace bb::cli {

struct IclBenchSettings {
  std::string preset = "icl-tiny", arch = "full",
              attention = attention_function_name(AttentionFunction::softmax);
  int threads = 1, batch = 64, points = 41, repeat = 1;
  double seconds = 10;
  Device device = Device::cpu;
  std::string device_label;
};

void bench_train_icl(const IclBenchSettings& s);

}  // namespace bb::cli
