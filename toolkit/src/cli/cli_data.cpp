#include "commands.hpp"

namespace symx::cli {

void add_data_commands(CLI::App& app) { (void)app; }

}  // namespace symx::cli
