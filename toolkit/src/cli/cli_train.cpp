#include "commands.hpp"

namespace symx::cli {

void add_train_commands(CLI::App& app) { (void)app; }

}  // namespace symx::cli
