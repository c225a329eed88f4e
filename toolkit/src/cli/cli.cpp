#include "symx/cli.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "symx/distributed.hpp"

namespace symx::cli {

namespace {

// Edits (insertions, deletions, substitutions, swaps of neighbours) that turn `a` into `b`.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The long option of `command` closest to the unknown `given` ("--epoch" -> "--epochs"), or ""
// when none is close: a few edits away, or one of them a prefix of the other ("--out-dir" -> "--out").
std::string closest_option(const CLI::App& command, const std::string& given) {
  std::string best;
  std::size_t best_distance = given.size() / 3 + 1;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      const std::string candidate = "--" + name;
      std::size_t distance = edit_distance(given, candidate);
      bool prefix = given.rfind(candidate, 0) == 0 || candidate.rfind(given, 0) == 0;
      if (prefix) distance = std::min<std::size_t>(distance, 1);
      if (distance < best_distance || (distance == best_distance && best.empty() && prefix))
        best = candidate, best_distance = distance;
    }
  }
  return best;
}

// After CLI11's "not expected" message: the option the user probably meant, for each unknown
// option of the command line, and where the command's options are listed.
void suggest_options(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* command = &app;
  std::string name = "symx";
  while (!command->get_subcommands().empty()) {
    command = command->get_subcommands().front();
    name += " " + command->get_name();
  }
  if (command == &app) return;
  for (const std::string& arg : args) {
    if (arg.rfind("--", 0) != 0 || arg == "--") continue;
    const std::string given = arg.substr(0, arg.find('='));
    if (!command->get_options([&](const CLI::Option* o) { return o->check_lname(given.substr(2)); }).empty()) continue;
    const std::string suggestion = closest_option(*command, given);
    if (!suggestion.empty())
      std::fprintf(stderr, "symx: `%s` has no option %s; did you mean %s? (`%s --help` lists its options)\n",
                   name.c_str(), given.c_str(), suggestion.c_str(), name.c_str());
  }
}

}  // namespace

int run(const std::vector<std::string>& args) {
  CLI::App app{"symx: data sets, training and evaluation with the symx toolkit", "symx"};
  app.require_subcommand(1);
  add_data_commands(app);
  add_train_commands(app);
  // CLI11 parses a vector given in reverse order (it pops from the back).
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::RuntimeError& e) {  // a command's own exit status (130 after Ctrl-C)
    return e.get_exit_code();
  } catch (const CLI::ExtrasError& e) {
    // CLI11 lists the arguments backwards (it joins them in reverse, as it was given them
    // reversed): in the command line's order, then the option probably meant.
    std::string message = e.what();
    const std::size_t colon = message.find(": ");
    if (colon != std::string::npos) {
      std::vector<std::string> words;
      for (std::size_t at = colon + 2; at < message.size();) {
        std::size_t end = std::min(message.find(' ', at), message.size());
        words.push_back(message.substr(at, end - at));
        at = end + 1;
      }
      message = message.substr(0, colon + 2);
      for (auto it = words.rbegin(); it != words.rend(); ++it) message += (it == words.rbegin() ? "" : " ") + *it;
    }
    std::fprintf(stderr, "%s\n", message.c_str());
    suggest_options(app, args);
    std::fprintf(stderr, "Run with --help for more information.\n");
    return 2;
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // One process of a distributed run that cannot go on ends them all, instead of leaving the
    // others waiting in a collective.
    if (distributed::initialized() && distributed::world_size() > 1)
      distributed::abort(std::string("symx: ") + e.what() + "; ending every process of the run", 1);
    std::fprintf(stderr, "symx: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace symx::cli
