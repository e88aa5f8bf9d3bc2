// The model-kind table (models/model_kind.h): one row per kind, model_types unique, and the
// decision every command makes before any work.
#include <doctest/doctest.h>

#include <set>

#include "common/files.h"
#include "models/model_kind.h"
#include "temp_dir.h"

using namespace bb;
namespace fs = std::filesystem;

TEST_CASE("model kinds: a row per kind, each model_type names one kind, every command taken") {
  std::set<std::string_view> types;
  std::set<ModelCommand> taken;
  for (size_t i = 0; i < model_kind_table().size(); ++i) {
    const ModelKindSpec& k = model_kind_table()[i];
    CHECK(size_t(k.kind) == i);
    CHECK(&model_kind_spec(k.kind) == &k);
    for (std::string_view t : k.model_types)
      if (!t.empty()) CHECK(types.insert(t).second);
    for (size_t c = 0; c < k.command_count; ++c) taken.insert(k.commands[c]);
    // a kind that any command takes can be described
    if (k.command_count > 0) CHECK(static_cast<bool>(k.describe));
  }
  CHECK(taken.size() == kModelCommandCount);  // no command without a kind to read
}

TEST_CASE("model kinds: config.json's model_type decides, a wrong kind is named before any work") {
  test::TempDir d("kinds");
  fs::create_directories(d.path / "icl");
  write_file_atomic(d.path / "icl" / "config.json", "{\"model_type\": \"babyberta_icl_gpt2\"}");
  fs::create_directories(d.path / "old");
  write_file_atomic(d.path / "old" / "config.json", "{\"vocab_size\": 100}");  // before model_type
  fs::create_directories(d.path / "hf");
  write_file_atomic(d.path / "hf" / "config.json", "{\"model_type\": \"babyberta\"}");  // an export
  CHECK(model_kind_of(d.path / "icl") == ModelKind::icl_gpt2);
  CHECK(model_kind_of(d.path / "old") == ModelKind::roberta);
  CHECK(model_kind_of(d.path / "hf") == ModelKind::roberta);
  CHECK(require_model_kind(d.path / "icl", ModelCommand::attention).kind == ModelKind::icl_gpt2);
  CHECK_THROWS_WITH_AS(require_model_kind(d.path / "icl", ModelCommand::probe),
                       doctest::Contains("is an icl-gpt2 model (the in-context-learning GPT-2 of "
                                         "`icl train`); probe takes roberta or gpt2 models"),
                       WrongModelKind);
  CHECK_THROWS_WITH_AS(require_model_kind(d.path / "old", ModelCommand::icl_eval),
                       doctest::Contains("is a roberta model (BabyBERTa's RoBERTa masked LM); icl "
                                         "eval takes icl-gpt2 models"),
                       WrongModelKind);
  // No config.json: the first kind the command takes, whose reader names what is missing.
  CHECK(require_model_kind(d.path / "none", ModelCommand::icl_eval).kind == ModelKind::icl_gpt2);
  CHECK(require_model_kind(d.path / "none", ModelCommand::probe).kind == ModelKind::roberta);
  fs::create_directories(d.path / "t5");
  write_file_atomic(d.path / "t5" / "config.json", "{\"model_type\": \"t5\"}");
  CHECK_THROWS_WITH_AS(model_kind_of(d.path / "t5"),
                       doctest::Contains("model_type 't5' is no kind this toolkit reads"), Error);
  CHECK(model_of_kind(model_kind_spec(ModelKind::icl_gpt2)) == "an icl-gpt2 model");
  CHECK(model_of_kind(model_kind_spec(ModelKind::gpt2)) == "a gpt2 model");
}
