// A saturation analysis (`saturation`, the Python module): per model (BabyBERTa models on a suite's
// sentences, or ICL models on their task's sequences) or, analytic, per attention function on
// random rows, how attention collapses onto one key (probing/saturation.h, icl/saturation.h).
#pragma once
#include <string>
#include <vector>

#include "probing/saturation.h"

namespace bb {

// "softmax,ssa,...": the table's attention functions as an --attention list.
std::string every_attention_function();

struct SaturationArgs {
  std::vector<std::string> models;
  std::string suite, out;
  std::string attention = every_attention_function();  // --analytic's functions
  int sentences = 500, length = 10, threads = 1, points = 40;
  std::string sigmas = "1,2,4,8,16,29", device = "cpu";
  bool analytic = false;
  SaturationSettings settings;
};

// Writes saturation.json, .csv, .md and the SVGs into a.out (ICL models: saturation.json, .csv,
// max_weight.svg) and returns the summary the command prints.
std::string run_saturation(SaturationArgs a);

}  // namespace bb
