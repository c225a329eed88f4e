// build/bin/symx: the command-line tool (see symx/cli.hpp).
#include <string>
#include <vector>

#include "symx/cli.hpp"

int main(int argc, char** argv) { return symx::cli::run(std::vector<std::string>(argv + 1, argv + argc)); }
