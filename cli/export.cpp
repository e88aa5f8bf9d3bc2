// babyberta export --model DIR --out HF_DIR: a folder for HuggingFace tools. config.json (HF
// RobertaConfig / GPT2Config fields and ours), model.safetensors (HF names; the tied decoder left
// out, as HF does), tokenizer.json (tokenizer/hf_tokenizer.h), tokenizer_config.json and
// special_tokens_map.json; for a scoring function other than softmax also the kind's remote code
// (interop/modeling_babyberta*.py and what it imports, embedded at build time) and the config's
// auto_map, which transformers follows with trust_remote_code=True. Written for transformers v4.40+ (tokenizer.json
// format 1.0; the Prepend normalizer needs tokenizers 0.14+) and transformers.js v3.
#include <fmt/core.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "cli/commands.h"
#include "cli/out_option.h"
#include "common/error.h"
#include "common/files.h"
#include "common/flag_names.h"
#include "encoder/checkpoint.h"
#include "encoder/config.h"
#include "encoder/config_keys.h"
#include "models/model_kind.h"
#include "embedded_python.h"
#include "probing/scorer.h"
#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace bb::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json special_tokens() {
  return {{"bos_token", "<s>"},   {"eos_token", "</s>"},  {"unk_token", "<unk>"},
          {"sep_token", "</s>"},  {"pad_token", "<pad>"}, {"cls_token", "<s>"},
          {"mask_token", "<mask>"}};
}

// config.json of the export and the remote code it needs (the kind's own piece): a roberta model
// with softmax is HF's RobertaForMaskedLM, with another function our BabyBertaForMaskedLM (remote
// code); a gpt2 model with softmax is HF's GPT2LMHeadModel (our model.safetensors already holds
// its names and Conv1D layout, the head tied and left out), with another function our
// BabyBertaGPT2LMHeadModel (remote code, the same names plus the function's values under attn.).
struct ExportFiles {
  json config;
  std::vector<std::pair<std::string, std::string_view>> code;  // remote code: file name, text
};
ExportFiles export_files(const Config& c) {
  ExportFiles files{to_json(c), {}};
  json& config = files.config;
  switch (c.kind) {
    case ModelKind::roberta:
      if (c.attention != AttentionFunction::softmax) {  // HF's RoBERTa cannot run it; ours can
        config["model_type"] = kRobertaKeys.export_model_type;
        config["architectures"] = {"BabyBertaForMaskedLM"};
        config["auto_map"] = {{"AutoConfig", "modeling_babyberta.BabyBertaConfig"},
                              {"AutoModelForMaskedLM", "modeling_babyberta.BabyBertaForMaskedLM"}};
        files.code = {{"modeling_babyberta.py", embedded::k_modeling_babyberta_py},
                      {"babyberta_torch.py", embedded::k_babyberta_torch_py}};
      }
      return files;
    case ModelKind::gpt2:
      if (c.attention != AttentionFunction::softmax) {  // HF's GPT-2 cannot run it; ours can
        config["model_type"] = kGpt2Keys.export_model_type;
        config["architectures"] = {"BabyBertaGPT2LMHeadModel"};
        config["auto_map"] = {
            {"AutoConfig", "modeling_babyberta_gpt2.BabyBertaGPT2Config"},
            {"AutoModelForCausalLM", "modeling_babyberta_gpt2.BabyBertaGPT2LMHeadModel"}};
        files.code = {{"modeling_babyberta_gpt2.py", embedded::k_modeling_babyberta_gpt2_py},
                      {"babyberta_gpt2_torch.py", embedded::k_babyberta_gpt2_torch_py},
                      {"babyberta_torch.py", embedded::k_babyberta_torch_py}};
      }
      return files;
    case ModelKind::icl_gpt2: break;
  }
  fail("internal: no export for the ICL kind");
}

// An export's files but the remote code: name and bytes.
std::vector<std::pair<std::string, std::string>> export_data(const fs::path& model, const Config& c,
                                                             const Tokenizer& tok,
                                                             const json& config) {
  json tc = special_tokens();
  tc["tokenizer_class"] = "PreTrainedTokenizerFast";
  tc["model_max_length"] = c.max_tokens();
  tc["clean_up_tokenization_spaces"] = false;
  return {{"config.json", config.dump(2) + "\n"},
          {"model.safetensors", read_file(model / "model.safetensors")},
          {"tokenizer.json", hf_tokenizer_json(tok).dump() + "\n"},
          {"tokenizer_config.json", tc.dump(2) + "\n"},
          {"special_tokens_map.json", special_tokens().dump(2) + "\n"}};
}

// The remote code files of every kind export takes (a function other than softmax).
std::set<std::string> every_code_file() {
  std::set<std::string> names;
  for (const ModelKindSpec& k : model_kind_table()) {
    if (!model_kind_takes(k, ModelCommand::export_hf)) continue;
    Config c = preset("tiny", k.kind);
    c.attention = AttentionFunction::ssa;
    for (const auto& [name, _] : export_files(c).code) names.insert(name);
  }
  return names;
}

// An existing --out may hold only what an export writes (an earlier export, written again) and
// Python's __pycache__ beside its remote code; a run's or a model's files, or anything else, make it
// a usage error before anything is written.
void check_export_folder(const fs::path& model, const fs::path& out,
                         const std::set<std::string>& ours) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  BB_CHECK(fs::is_directory(out, ec), "{}: not a directory (--out names the HF folder to write)",
           out.string());
  if (fs::canonical(model) == fs::canonical(out))
    usage_fail("{}: --out must not be the model directory", out.string());
  std::vector<std::string> other;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    if (!ours.contains(name) && name != "__pycache__" && !is_temporary_name(name))
      other.push_back(name);
  }
  for (const char* marker : {"run.json", "tokenizer.model"})  // a run's or a model's directory
    if (std::find(other.begin(), other.end(), marker) != other.end())
      usage_fail("export: --out {} is a run or model directory (it holds {}); expected a new or "
                 "empty folder, or one an earlier export wrote",
                 out.string(), marker);
  std::sort(other.begin(), other.end());
  if (other.size() > 4) other.resize(4), other.push_back("...");
  if (!other.empty())
    usage_fail("export: --out {} holds files an export does not write ({}); expected a new or "
               "empty folder, or one an earlier export wrote",
               out.string(), fmt::join(other, ", "));
}

void run_export(const fs::path& model, const fs::path& out) {
  const Config c = read_model_config(model);
  const Tokenizer tok = Tokenizer::load(model);
  check_tokenizer_matches(model, c, tok);
  const ExportFiles files = export_files(c);
  const auto data = export_data(model, c, tok, files.config);
  const std::set<std::string> code_files = every_code_file();
  std::set<std::string> ours = code_files;
  for (const auto& [name, _] : data) ours.insert(name);
  check_export_folder(model, out, ours);
  std::error_code ec;
  fs::create_directories(out, ec);
  BB_CHECK(!ec, "{}: cannot create directory ({})", out.string(), ec.message());
  remove_stale_temporaries(out);  // FILE.tmp.PID of an export killed mid-way (Ctrl-C)
  std::set<std::string> stale = code_files;  // an earlier export's code this one does not need
  for (const auto& [name, text] : files.code) write_file_atomic(out / name, text), stale.erase(name);
  for (const auto& [name, bytes] : data) write_file_atomic(out / name, bytes);
  for (const std::string& name : stale) fs::remove(out / name, ec);
  fmt::print("exported {} ({}) -> {}\n", model.string(), c.label(), out.string());
}

}  // namespace

void add_export(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write a model directory as a HuggingFace folder");
  auto model = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  cmd->add_option("--model", *model, "Model directory")->required();
  add_out_option(cmd, *out, "HF folder to write")->required();
  cmd->callback([model, out] {
    require_model_kind(*model, ModelCommand::export_hf);
    run_export(*model, *out);
  });
}

}  // namespace bb::cli
