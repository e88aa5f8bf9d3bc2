#include "cli/parse_errors.h"
#include "common/closest_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <vector>

namespace bb::cli {

namespace {

// The deepest subcommand the user chose (the app itself when none).
const CLI::App* chosen_command(const CLI::App& app) {
  const CLI::App* cmd = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : cmd->get_subcommands())
      if (sub->parsed()) {
        cmd = sub, deeper = true;
        break;
      }
  }
  return cmd;
}

// "--flag" -> the closest long flag of cmd within 3 edits, or "".
std::string closest_flag(const CLI::App& cmd, const std::string& given) {
  const std::string name = given.substr(0, given.find('='));
  std::string best;
  size_t best_d = 4;
  for (const CLI::Option* opt : cmd.get_options())
    for (const std::string& l : opt->get_lnames()) {
      const size_t d = edit_distance(name, "--" + l);
      if (d < best_d) best_d = d, best = "--" + l;
    }
  return best;
}

}  // namespace

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* cmd = chosen_command(app);
  if (cmd == &app) {  // no command chosen: name the unknown one, or list them
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    for (const std::string& arg : app.remaining()) {
      if (arg.rfind("-", 0) == 0) continue;
      const std::string near = closest_name(arg, commands);
      return fmt::format("unknown command '{}'{} (see babyberta --help)", arg,
                         near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
    }
    for (const std::string& arg : app.remaining())  // a flag where a command should be
      if (arg.rfind("-", 0) == 0)
        return fmt::format("unknown option {} before a command: flags follow the command "
                           "(babyberta COMMAND --help); commands: {}", arg, fmt::join(commands, ", "));
    if (dynamic_cast<const CLI::RequiredError*>(&e))
      return fmt::format("a command is required: {} (see babyberta --help)",
                         fmt::join(commands, ", "));
  }
  std::string where;  // "babyberta icl train": the command's path from the root
  for (const CLI::App* c = cmd; c && c != &app; c = c->get_parent()) where = " " + c->get_name() + where;
  where = "babyberta" + where;
  if (const auto* extras = dynamic_cast<const CLI::ExtrasError*>(&e)) {
    (void)extras;
    for (const std::string& arg : cmd->remaining()) {
      if (arg.rfind("--", 0) != 0) continue;
      const std::string near = closest_flag(*cmd, arg);
      return near.empty() ? fmt::format("{}: unknown flag {} (see {} --help)", where, arg, where)
                          : fmt::format("{}: unknown flag {}; did you mean {}?", where, arg, near);
    }
    return fmt::format("{}: unexpected arguments {} (see {} --help)", where,
                       fmt::join(cmd->remaining(), " "), where);
  }
  std::string msg = e.what();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  // CLI11's "--steps: At Most 1 required but received 2": a flag given twice
  static const std::regex twice(R"(^(-[-\w]+): At Most 1 required but received (\d+)$)");
  if (std::smatch m; std::regex_match(msg, m, twice))
    return fmt::format("{}: {} given {} times (give it once)", where, m[1].str(), m[2].str());
  return fmt::format("{}: {} (see {} --help)", where, msg, where);
}

}  // namespace bb::cli
