// PyTorch parity: the committed fixtures (tests/fixtures/make_reference.py, HF RobertaForMaskedLM
// semantics computed in float64; tests/fixtures/make_gpt2_parity.py, HF GPT2LMHeadModel's)
// against our float32 model on the same weights and batch: the logits at the scored positions
// (masked ones; every next token), the loss, and every parameter gradient.
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <cmath>

#include "common/safetensors.h"
#include "corpora/next_token_rows.h"
#include "encoder/checkpoint.h"

using namespace bb;

namespace {

double norm(const std::vector<float>& b) {
  double s = 0;
  for (float x : b) s += double(x) * x;
  return std::sqrt(s);
}

// ||a - b|| / max(||b||, floor). The floor matters only for a tensor whose exact gradient is 0
// (softmax is shift-invariant, so the key bias gets none): it is then judged against a small
// fraction of the whole gradient's norm instead of against rounding noise.
double rel_error(const float* a, const std::vector<float>& b, double floor = 1e-300) {
  double num = 0;
  for (size_t i = 0; i < b.size(); ++i) num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(num) / std::max(norm(b), floor);
}

// A reference's padded (B, T) batch, packed: padding dropped, labelled positions become scored
// rows.
Batch packed_batch(const SafetensorsFile& ref, const Config& c) {
  const auto ids = ref.tensors.at("input_ids").to_i32();
  const auto labels = ref.tensors.at("labels").to_i32();
  const auto lengths = ref.tensors.at("lengths").to_i32();
  const int T = int(ref.tensors.at("input_ids").shape[1]);
  Batch batch;
  batch.offsets = {0};
  for (size_t b = 0; b < lengths.size(); ++b) {
    for (int t = 0; t < lengths[b]; ++t) {
      if (labels[b * T + t] != -100) {
        batch.rows.push_back(batch.num_tokens());
        batch.labels.push_back(labels[b * T + t]);
      }
      batch.ids.push_back(ids[b * T + t]);
    }
    for (int t = lengths[b]; t < T; ++t) REQUIRE(ids[b * T + t] == c.pad_id);
    batch.offsets.push_back(batch.num_tokens());
  }
  return batch;
}

// A causal reference's sequences (ids back to back, lengths), every next token scored.
Batch causal_batch(const SafetensorsFile& ref) {
  Batch batch;
  batch.ids = ref.tensors.at("input_ids").to_i32();
  batch.offsets = {0};
  for (int32_t L : ref.tensors.at("lengths").to_i32())
    batch.offsets.push_back(batch.offsets.back() + L);
  set_next_token_rows(batch);
  return batch;
}

// The layer of a function value's tensor name ("roberta.encoder.layer.3.…", "transformer.h.3.…").
int layer_of(const std::string& name) {
  for (const std::string prefix : {"roberta.encoder.layer.", "transformer.h."})
    if (name.rfind(prefix, 0) == 0) return std::stoi(name.substr(prefix.size()));
  FAIL("no layer in " << name);
  return -1;
}

void check_parity(const std::string& fixture) {
  const std::string dir = std::string(BB_FIXTURES) + "/" + fixture;
  const std::string& kind = fixture;
  const Config c = read_config(dir + "/config.json");
  const auto ref = SafetensorsFile::read(dir + "/reference.safetensors");
  const bool causal = c.kind == ModelKind::gpt2;
  const Batch batch = causal ? causal_batch(ref) : packed_batch(ref, c);
  int T = 0;
  for (int s = 0; s < batch.num_seqs(); ++s)
    T = std::max(T, batch.offsets[s + 1] - batch.offsets[s]);
  Model<float> model(c, {batch.num_seqs(), batch.num_tokens(), T, batch.num_rows()});
  load_model_weights(dir, model);
  const float loss = model.forward(batch, {false, 0, 0});
  model.zero_grads();
  model.backward();

  const auto ref_logits = ref.tensors.at("logits").to_f32();
  REQUIRE(ref_logits.size() == size_t(batch.num_rows()) * c.vocab_size);
  const double logit_err = rel_error(model.logits(), ref_logits);
  const double loss_err = std::abs(loss - ref.tensors.at("loss").to_f32()[0]) /
                          std::abs(ref.tensors.at("loss").to_f32()[0]);
  double total = 0;
  for (const auto& [name, t] : ref.tensors)
    if (name.rfind("grad.", 0) == 0) total += std::pow(norm(t.to_f32()), 2);
  const double floor = 1e-3 * std::sqrt(total);
  double worst_grad = 0;
  std::string worst_name;
  for (const ParamTensor& t : model.layout().tensors) {
    std::vector<float> g(model.grads.begin() + t.offset, model.grads.begin() + t.offset + t.size);
    const std::string& name = t.saved_name;
    if (t.conv1d) {  // HF GPT-2's Conv1D gradient is [in, out]
      const std::vector<float> rows = g;
      const int64_t out = t.shape[0], in = t.shape[1];
      for (int64_t o = 0; o < out; ++o)
        for (int64_t i = 0; i < in; ++i) g[size_t(i * out + o)] = rows[size_t(o * in + i)];
    }
    if (is_head_value(t.kind)) {
      // our gradient is w.r.t. the raw value: dL/db = dL/dbeta / b, dL/dtau = dL/dtheta / tau,
      // dL/dn = dL/dnu / (n - 1)
      const int l = layer_of(t.name);
      const int slot = head_value_slot(t.kind);
      for (int h = 0; h < c.heads; ++h)
        g[h] /= model.head_value(l, h, slot) - effective_lower_bound(t.kind);
    }
    const double err = rel_error(g.data(), ref.tensors.at("grad." + name).to_f32(), floor);
    CAPTURE(name);
    CHECK(err < 1e-5);
    if (err > worst_grad) worst_grad = err, worst_name = name;
  }
  MESSAGE(fmt::format("{}: logits rel err {:.2e}, loss rel err {:.2e}, worst gradient rel err "
                      "{:.2e} ({})", kind, logit_err, loss_err, worst_grad, worst_name));
  CHECK(logit_err < 1e-5);
  CHECK(loss_err < 1e-5);
}

}  // namespace

// An exported HF folder (`babyberta export` of a tiny trained model), read back by us, gives the
// masked-token logits that plain PyTorch computes from the same folder (interop/babyberta_torch.py,
// the module the bundled modeling_babyberta.py runs).
void check_export(const std::string& kind) {
  const std::string dir = std::string(BB_FIXTURES) + "/export_" + kind;
  const Config c = read_config(dir + "/config.json");
  CHECK(c.attention == parse_attention_function(kind));
  const auto ref = SafetensorsFile::read(dir + "/reference.safetensors");
  const int T = int(ref.tensors.at("input_ids").shape[1]);
  const Batch batch = packed_batch(ref, c);
  Model<float> model(c, {batch.num_seqs(), batch.num_tokens(), T, batch.num_rows()});
  load_model_weights(dir, model);
  model.forward(batch, {false, 0, 0});
  const auto ref_logits = ref.tensors.at("logits").to_f32();
  REQUIRE(ref_logits.size() == size_t(batch.num_rows()) * c.vocab_size);
  const double err = rel_error(model.logits(), ref_logits);
  MESSAGE(fmt::format("export_{}: masked-token logits rel err {:.2e}", kind, err));
  CHECK(err < 1e-5);
}

TEST_CASE("exported folders of every function: our logits equal plain PyTorch's") {
  for (AttentionFunction s : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(s));
    check_export(attention_function_name(s));
  }
}

TEST_CASE("every function's model matches PyTorch (logits, loss, all gradients incl. b, n, tau)") {
  for (AttentionFunction s : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(s));
    check_parity("parity_" + std::string(attention_function_name(s)));
  }
}

TEST_CASE("gpt2: every function's causal LM matches plain PyTorch GPT-2 (logits, loss, gradients)") {
  for (AttentionFunction s : kAllAttentionFunctions) {
    CAPTURE(attention_function_name(s));
    check_parity("gpt2_parity_" + std::string(attention_function_name(s)));
  }
}
