#!/usr/bin/env python3
"""Fails on an #include that points up the layers of symx (see the README's architecture section).

Usage: check_layers.py [--root DIR] [--count]

Every file of src/, include/symx/, toolkit/ and python/ belongs to a layer; the layers, bottom to top:

    core <- io <- ops <- autodiff <- passes <- codegen <- runtime <- function <- toolkit <- python

A file may include headers of its own layer and of the layers below it, never of a layer above:
a lower layer that needs something from a higher one has that thing in the wrong place. The
toolkit (toolkit/) is built on the public API alone: it may include the engine's public headers
(<symx/...>) and its own, never a header of src/. Each problem is printed as
"file:line: ..." naming the include, both layers and the fix; the exit status is 1 when there is one.
--count prints only the number of upward include arrows (for the before/after of a change).
Python standard library only: `make test` runs it before anything is built.
"""

import argparse
import os
import re
import sys

# Bottom to top. io (the .npy/.npz/safetensors formats of core's arrays and variables) needs only
# core; it sits directly above core so that core stays free of file formats while any higher layer
# may use io's file helpers.
LAYERS = ["core", "io", "ops", "autodiff", "passes", "codegen", "runtime", "function", "toolkit", "python"]
ENGINE = LAYERS[: LAYERS.index("function") + 1]  # the folders of src/

# The public headers (include/symx/) and the layer that implements each.
PUBLIC_HEADERS = {
    "dtype.hpp": "core",
    "error.hpp": "core",
    "array.hpp": "core",
    "op_list.hpp": "core",  # the op kinds a node carries; their rules are the op table (ops)
    "tensor.hpp": "core",
    "graph.hpp": "core",
    "io.hpp": "io",
    "loop_spec.hpp": "core",  # the regions a control-flow node holds: printers and passes read them
    "ops.hpp": "ops",
    "control_flow.hpp": "ops",
    "special.hpp": "ops",  # the NumPy surface of issue 21, one header per area
    "sorting.hpp": "ops",
    "indexing.hpp": "ops",
    "numpy.hpp": "ops",
    "arrays.hpp": "ops",
    "linalg.hpp": "ops",  # issue 22: decompositions, signal processing, interpolation
    "linalg_factor.hpp": "ops",
    "signal.hpp": "ops",
    "fft.hpp": "ops",
    "interpolation.hpp": "ops",
    "autodiff.hpp": "autodiff",
    "function.hpp": "function",
    "symx.hpp": "function",  # the umbrella header: everything of the engine
}

# Upward arrows that exist on purpose, each with the reason. Nothing else may be added here: fix
# the arrow instead. An entry that no longer matches an include fails the check, so that it is
# removed as soon as its arrow is gone.
ALLOWED_UPWARD = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".inl")


def layer_of(rel):
    """The layer of a file (a path relative to the root, with '/'), or None for files outside the layers."""
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 and parts[1] in ENGINE else "unknown"
    if parts[:2] == ["include", "symx"]:
        return PUBLIC_HEADERS.get(parts[2], "unknown") if len(parts) == 3 else "unknown"
    if parts[0] == "toolkit":
        return "toolkit"
    if parts[0] == "python":
        return "python"
    return None


def resolve(root, rel, quote, name):
    """The file an include names, relative to the root, or None (a system or generated header)."""
    candidates = []
    if quote == '"':
        candidates.append(os.path.join(os.path.dirname(rel), name))
    candidates += [os.path.join("include", name), os.path.join("toolkit", "include", name), os.path.join("src", name)]
    for c in candidates:
        c = os.path.normpath(c).replace(os.sep, "/")
        if not c.startswith("..") and os.path.isfile(os.path.join(root, c)):
            return c
    return None


def source_files(root):
    for top in ("src", "include/symx", "toolkit", "python"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/")


def fix_for(layer, target_layer):
    return (
        "Fix: move the code that needs it up into %s (or higher), or move what it uses down into %s (or "
        "lower); a declaration may stay in a lower header while its definition lives in the layer that "
        "can implement it." % (target_layer, layer)
    )


def check(root):
    """(problems, arrows, allowed_used): messages for the user, upward arrows found, exceptions that matched."""
    problems, arrows, used = [], 0, set()
    for rel in source_files(root):
        layer = layer_of(rel)
        if layer == "unknown":
            problems.append(
                "%s: this file belongs to no layer. Put it in one of src/{%s}/, or give the public "
                "header its layer in PUBLIC_HEADERS of tools/check_layers.py." % (rel, ",".join(ENGINE))
            )
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, name = m.groups()
            shown = quote + name + ('"' if quote == '"' else ">")  # as written: "ops/op_table.hpp"
            target = resolve(root, rel, quote, name)
            if target is None:
                continue
            if layer == "toolkit" and target.startswith("src/"):
                arrows += 1
                problems.append(
                    "%s:%d: includes %s, a header of the engine's sources (layer %s), but the toolkit "
                    "is built on the public API only. Include a public header <symx/...> instead, or "
                    "make what it needs public in include/symx/." % (rel, number, shown, layer_of(target))
                )
                continue
            target_layer = layer_of(target)
            if target_layer in (None, "unknown") or LAYERS.index(target_layer) <= LAYERS.index(layer):
                continue
            arrows += 1
            if (rel, target) in ALLOWED_UPWARD:
                used.add((rel, target))
                continue
            problems.append(
                "%s:%d: includes %s (%s, layer %s), but the file is in layer %s, below %s. %s"
                % (rel, number, shown, target, target_layer, layer, target_layer, fix_for(layer, target_layer))
            )
    for rel, target in sorted(ALLOWED_UPWARD - used):
        problems.append(
            "tools/check_layers.py: the allowed upward include %s -> %s no longer exists. Delete its "
            "entry from ALLOWED_UPWARD." % (rel, target)
        )
    return problems, arrows, used


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        help="the source tree (default: the one holding this script)",
    )
    parser.add_argument("--count", action="store_true", help="print the number of upward include arrows only")
    args = parser.parse_args()
    problems, arrows, _ = check(args.root)
    if args.count:
        print(arrows)
        return 0
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(
            "check_layers: %d problem(s). The layers, bottom to top: %s." % (len(problems), " <- ".join(LAYERS)),
            file=sys.stderr,
        )
        return 1
    print("check_layers: every include points down the layers (%s)." % " <- ".join(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
