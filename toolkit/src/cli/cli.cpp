#include "symx/cli.hpp"

#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "symx/distributed.hpp"

namespace symx::cli {

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
