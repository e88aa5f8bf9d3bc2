#include "models/model_kind.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

#include "common/files.h"
#include "models/model_kind_rows.h"

namespace bb {

namespace fs = std::filesystem;

namespace {

using C = ModelCommand;

constexpr std::array<std::string_view, kModelCommandCount> kCommandNames = {
    "info", "attention", "saturation", "probe", "score", "encode", "export", "icl eval",
    "babyberta.load", "perplexity"};

constexpr std::array<ModelKindSpec, kModelKindCount> kModelKinds =
    model_kind_rows(std::make_index_sequence<kModelKindCount>());

// Every row names its own kind (a row copied from another kind's and not edited would not).
constexpr bool kinds_in_enum_order() {
  for (size_t i = 0; i < kModelKinds.size(); ++i)
    if (size_t(kModelKinds[i].kind) != i || kModelKinds[i].name.empty()) return false;
  return true;
}
static_assert(kinds_in_enum_order(), "kModelKinds: a row per kind, in enum order");
static_assert(size_t(ModelKind::gpt2) + 1 == kModelKindCount,
              "a new kind goes last in ModelKind: raise kModelKindCount and add its row");

}  // namespace

bool model_kind_takes(const ModelKindSpec& k, ModelCommand c) {
  return std::find(k.commands.begin(), k.commands.begin() + std::ptrdiff_t(k.command_count), c) !=
         k.commands.begin() + std::ptrdiff_t(k.command_count);
}

std::string_view model_command_name(ModelCommand c) { return kCommandNames[size_t(c)]; }

std::string info_line(std::string_view key, std::string_view text) {
  return fmt::format("{:<10} {}", key, text);
}

const std::array<ModelKindSpec, kModelKindCount>& model_kind_table() { return kModelKinds; }

const ModelKindSpec& model_kind_spec(ModelKind k) { return kModelKinds[size_t(k)]; }

namespace {

// The kind config.json declares; nothing without a readable config.json (the command's own
// reader then names what is missing, as before the table).
std::optional<ModelKind> declared_kind(const fs::path& dir) {
  const fs::path config = dir / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) return std::nullopt;
  const auto j = nlohmann::json::parse(read_file(config), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  if (!j.contains("model_type") || !j["model_type"].is_string())
    return ModelKind::roberta;  // the format before model_type
  const std::string type = j["model_type"].get<std::string>();
  std::vector<std::string> known;
  for (const ModelKindSpec& k : kModelKinds)
    for (std::string_view t : k.model_types) {
      if (t.empty()) continue;
      if (t == type) return k.kind;
      known.emplace_back(t);
    }
  fail("{}: model_type '{}' is no kind this toolkit reads (expected one of {})", config.string(),
       type, fmt::join(known, ", "));
}

}  // namespace

ModelKind model_kind_of(const fs::path& dir) {
  return declared_kind(dir).value_or(ModelKind::roberta);
}

std::string model_of_kind(const ModelKindSpec& k) {
  const bool vowel = std::string_view("aeiou").find(k.name.front()) != std::string_view::npos;
  return fmt::format("{} {} model", vowel ? "an" : "a", k.name);
}

const ModelKindSpec& require_model_kind(const fs::path& dir, ModelCommand command) {
  const std::optional<ModelKind> declared = declared_kind(dir);
  if (!declared)  // no config.json to read: the first kind that the command takes reads (and names
                  // what is missing)
    for (const ModelKindSpec& k : kModelKinds)
      if (model_kind_takes(k, command)) return k;
  const ModelKindSpec& k = model_kind_spec(*declared);
  if (model_kind_takes(k, command)) return k;
  std::vector<std::string> accepted;
  for (const ModelKindSpec& other : kModelKinds)
    if (model_kind_takes(other, command)) accepted.emplace_back(other.name);
  throw WrongModelKind(fmt::format("{}: {} is {} ({}); {} takes {} models",
                                   model_command_name(command), dir.string(), model_of_kind(k),
                                   k.summary, model_command_name(command),
                                   fmt::join(accepted, " or ")));
}

}  // namespace bb
