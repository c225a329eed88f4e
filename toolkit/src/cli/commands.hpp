// The command groups of the `symx` tool; each file cli_<group>.cpp adds its subcommands.
#pragma once

#include <CLI/CLI.hpp>

namespace symx::cli {

// `symx data ...` (cli_data.cpp).
void add_data_commands(CLI::App& app);
// `symx train ...` and `symx eval ...` (cli_train.cpp).
void add_train_commands(CLI::App& app);

}  // namespace symx::cli
