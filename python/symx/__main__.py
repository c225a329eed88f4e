"""`python -m symx ...`: the `symx` command-line tool (the same C++ commands as build/bin/symx)."""

import sys

from symx._symx import _cli_run

sys.exit(_cli_run(sys.argv[1:]))
