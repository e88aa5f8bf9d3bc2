// babyberta encode --model DIR: sentences on stdin -> one line of token ids per sentence.
#include <fmt/core.h>
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "models/model_kind.h"
#include "tokenizer/tokenizer.h"

namespace bb::cli {

void add_encode(CLI::App& app) {
  auto* cmd = app.add_subcommand("encode", "Sentences on stdin -> token ids (incl. <s>, </s>)");
  auto dir = std::make_shared<std::string>();
  auto pieces = std::make_shared<bool>(false);
  cmd->add_option("--model", *dir, "Model or tokenizer directory")->required();
  cmd->add_flag("--pieces", *pieces, "Print the pieces instead of the ids");
  cmd->callback([dir, pieces] {
    require_model_kind(*dir, ModelCommand::encode);  // a tokenizer directory reads as roberta
    const Tokenizer tok = Tokenizer::load(*dir);
    std::string line;
    for (int64_t n = 1; std::getline(std::cin, line); ++n) {
      const auto ids = tok.encode(line);
      BB_CHECK(ids, "stdin:{}: invalid UTF-8 (expected UTF-8 text)", n);
      if (*pieces) {
        std::vector<std::string> p;
        for (int32_t id : *ids) p.push_back(tok.piece(id));
        fmt::print("{}\n", fmt::join(p, " "));
      } else {
        fmt::print("{}\n", fmt::join(*ids, " "));
      }
    }
  });
}

}  // namespace bb::cli
