"""Writes the golden files of the toolkit's tests: PyTorch (and SciPy) as the oracle.

Usage: python3 tests/golden/make_golden.py [--only PART ...]

Each part of the toolkit has a module golden_<part>.py beside this script with a function
make(out_dir) that writes small float64 .npz files (<part>_<case>.npz: inputs, weights, expected
outputs and gradients) into out_dir. The tests read those files with numpy.load (Python) and
symx::load_npz (C++), so `make test` needs neither PyTorch nor network access. Rerun this script
whenever a case is added, and commit the .npz files it writes.
"""

import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="parts to regenerate (default: all)")
    args = parser.parse_args()
    sys.path.insert(0, HERE)
    parts = sorted(f[len("golden_") : -3] for f in os.listdir(HERE) if f.startswith("golden_") and f.endswith(".py"))
    for part in parts:
        if args.only and part not in args.only:
            continue
        importlib.import_module("golden_" + part).make(HERE)
        print("wrote the golden files of", part)


if __name__ == "__main__":
    main()
