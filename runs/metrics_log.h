// A training run's metrics: one line per evaluation with the window's mean training loss, the dev
// loss (a causal LM's also as dev_perplexity, per token) and, with --probe-every, the probe of that step's model (learning curves).
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "corpora/batch_stream.h"
#include "encoder/config_keys.h"
#include "encoder/trainer.h"
#include "runs/progress.h"
#include "runs/train_flags.h"

namespace bb {

// Mean loss over the first `n` dev batches (no dropout), weighted by scored tokens: the MLM loss
// (fixed masks) or the next-token loss.
double dev_loss(Model<float>& model, BatchStream& dev, int64_t n);

// One metrics line per evaluation; elapsed_s is the trainer's
// clock, which counts on across resumes.
class MetricsLog {
 public:
  // dev: nullptr with --no-dev (no dev loss)
  MetricsLog(const TrainArgs& a, Trainer& trainer, BatchStream* dev, Progress& progress)
      : a_(a), trainer_(trainer), dev_(dev), progress_(progress) {
    const nlohmann::json& w = trainer.window();  // a resume between two lines: their window
    loss_sum_ = w.value("loss_sum", 0.0), loss_n_ = w.value("loss_n", int64_t(0));
  }

  void on_step(const StepLog& s) {
    loss_sum_ += s.loss, ++loss_n_, tokens_ += s.tokens;
    trainer_.set_window({{"loss_sum", loss_sum_}, {"loss_n", loss_n_}});
    if (s.step % a_.eval_every != 0 && s.step != a_.steps) return;
    const double seconds = progress_.seconds();
    nlohmann::json line{{"step", s.step},
                        {"train_loss", loss_sum_ / std::max<int64_t>(1, loss_n_)},
                        {"lr", s.lr},
                        {"grad_norm", s.grad_norm},
                        {"tokens_per_s", tokens_ / seconds},
                        {"elapsed_s", trainer_.elapsed()}};
    if (dev_) {
      const double dl = dev_loss(trainer_.model(), *dev_, a_.dev_batches);
      line["dev_loss"] = dl;
      if (config_keys(text_kind(a_)).next_token_loss) line["dev_perplexity"] = std::exp(dl);
      last_step_ = s.step, last_dev_loss_ = dl;
      if (!a_.quiet) progress_.note(fmt::format("step {}: dev loss {:.4f}", s.step, dl));
    }
    if (a_.probe_every > 0 && s.step % a_.probe_every == 0) probe(s.step, line);
    trainer_.add_metrics(std::move(line));  // written with this step's checkpoint
    loss_sum_ = 0, loss_n_ = 0;
    trainer_.set_window({{"loss_sum", 0.0}, {"loss_n", 0}});
  }
  double tokens() const { return double(tokens_); }
  // The dev loss of the last metrics line when it is step `step`'s (NaN: none at that step).
  double dev_loss_at(int64_t step) const {
    return last_step_ == step ? last_dev_loss_ : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  // Probes this step's model (saved first) into DIR/probes/step-N.json; its accuracies into `line`.
  void probe(int64_t step, nlohmann::json& line);

  const TrainArgs& a_;
  Trainer& trainer_;
  BatchStream* dev_;
  Progress& progress_;
  double loss_sum_ = 0;
  int64_t loss_n_ = 0, tokens_ = 0;
  int64_t last_step_ = -1;  // the step of the last dev loss, which is last_dev_loss_
  double last_dev_loss_ = 0;
};

}  // namespace bb
