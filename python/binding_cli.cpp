// `python -m symx`: the same commands as build/bin/symx, run by the C++ tool (symx/cli.hpp).
#include "binding_common.hpp"
#include "symx/cli.hpp"

void bind_cli(nb::module_& m) {
  // Without the GIL, so that a long `train` leaves other Python threads running; the tool handles
  // SIGINT itself (a checkpoint, then exit status 130).
  m.def("_cli_run", [](const std::vector<std::string>& args) {
    nb::gil_scoped_release release;
    return symx::cli::run(args);
  }, "args"_a, DOC(cli_run));
}
