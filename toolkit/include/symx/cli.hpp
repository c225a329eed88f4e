// symx/cli.hpp: the `symx` command-line tool (build/bin/symx; `python -m symx` runs the same).
#pragma once

#include <string>
#include <vector>

namespace symx::cli {

// Runs the tool on `args` (the command line without the program name, e.g. {"train", "--model",
// "mlp"}) and returns the exit status: 0 on success, 1 when a command failed (its message printed
// to stderr), 2 for a command line that does not parse (with the usage).
// Example: symx::cli::run({"data", "download", "mnist", "--dir", "/tmp/data"})
int run(const std::vector<std::string>& args);

}  // namespace symx::cli
